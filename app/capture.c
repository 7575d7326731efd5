/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --capture DIR: every frame the app transmits, per port and TX queue, in a
 * nanosecond pcap stamped with the pipeline's departure time (the virtual
 * clock when [general] virtual_time is on, so replays give identical
 * captures; with the whole-process virtual clock, the instant the frame's
 * serialization starts on the port, as its wire computes it). A TX callback per queue: each queue has one writer lcore, so
 * each file has one writer. net_pcap's own tx_pcap uses the wall clock.
 *
 * On the whole-process virtual clock the stamps model the port's one
 * transmitter: its queues' files (a generator port with several workers
 * has a TX queue per worker) share one app_serial per port, so frames two
 * workers send in one step follow each other on the wire, as the port's
 * wire serializes them, instead of each queue starting its own. Safe
 * unlocked: that clock polls every worker on the main lcore.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

#include "app.h"

#define CAP_SNAP 65535u

struct cap_q {
	pcap_dumper_t *d;
	char *path;                   /* for the error a full disk gives */
	int err;                      /* errno of its first failed write */
	const struct app_vclock *vc;  /* whole-process virtual clock, or NULL */
	struct app_serial *ser;       /* then: the port's transmitter */
	const struct rte_eth_rxtx_callback *cb;
	struct aifab_port_tap *tap;   /* a ring port's instead of cb */
	uint16_t port_id, queue;
	int ts_off;
	uint64_t ts_flag;
	uint8_t buf[CAP_SNAP];
};

struct app_capture {
	unsigned int n;
	struct cap_q **q;        /* one per port and TX queue */
	struct app_serial *ser;  /* one per port, shared by its queues */
};

static uint16_t
cap_tx(uint16_t port_id, uint16_t queue, struct rte_mbuf **pkts,
       uint16_t n, void *user)
{
	struct cap_q *c = user;
	struct pcap_pkthdr h;
	uint16_t i;

	RTE_SET_USED(port_id);
	RTE_SET_USED(queue);
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		uint64_t ns;
		const void *data;

		if (c->vc != NULL) /* the model's serialization start */
			ns = app_serial_start(c->ser, app_vclock_now(c->vc),
					      m->pkt_len);
		else if (c->ts_off >= 0 && (m->ol_flags & c->ts_flag))
			ns = *RTE_MBUF_DYNFIELD(m, c->ts_off, const uint64_t *);
		else
			ns = rte_rdtsc() * 1000000000.0 / rte_get_tsc_hz();
		h.ts.tv_sec = (time_t)(ns / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(ns % 1000000000u); /* nano pcap */
		h.len = m->pkt_len;
		h.caplen = RTE_MIN(m->pkt_len, CAP_SNAP);
		data = rte_pktmbuf_read(m, 0, h.caplen, c->buf);
		if (data != NULL)
			pcap_dump((u_char *)c->d, &h, data);
	}
	/* pcap_dump() says nothing of a failed write: its stream's error,
	 * with the errno that write left (said at the stop) */
	if (unlikely(c->err == 0) && ferror(pcap_dump_file(c->d)))
		c->err = errno != 0 ? errno : EIO;
	return n;
}

static struct cap_q *
cap_open(const char *path, const struct aifab_port_rt *rt, uint16_t queue,
	 struct app_serial *ser, int ts_off, uint64_t ts_flag)
{
	uint16_t port_id = rt->port_id;
	struct cap_q *c = calloc(1, sizeof(*c));
	pcap_t *pc;
	int e;

	if (c == NULL)
		return NULL;
	pc = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, CAP_SNAP,
						  PCAP_TSTAMP_PRECISION_NANO);
	errno = ENOMEM;
	if (pc != NULL)
		c->d = pcap_dump_open(pc, path);
	e = errno; /* fopen()'s: the reason to say */
	if (pc != NULL)
		pcap_close(pc);
	if (c->d != NULL)
		c->path = strdup(path);
	if (c->d == NULL || c->path == NULL) {
		if (c->d != NULL)
			pcap_dump_close(c->d);
		else
			errno = e;
		free(c);
		return NULL;
	}
	c->port_id = port_id;
	c->queue = queue;
	c->ser = ser;
	c->ts_off = ts_off;
	c->ts_flag = ts_flag;
	if (aifab_port_is_ring(rt)) { /* no ethdev: the port I/O layer's tap */
		c->tap = &rt->tap[queue]; /* one per TX queue */
		c->tap->arg = c;
		c->tap->fn = cap_tx;
		return c;
	}
	c->cb = rte_eth_add_tx_callback(port_id, queue, cap_tx, c);
	if (c->cb == NULL) {
		errno = rte_errno; /* ENOTSUP: DPDK built without callbacks */
		pcap_dump_close(c->d);
		free(c->path);
		free(c);
		return NULL;
	}
	return c;
}

struct app_capture *
app_capture_start(const struct aifab_env *env, const char *dir, char *err,
		  size_t errlen)
{
	struct app_capture *cap = calloc(1, sizeof(*cap));
	char path[PATH_MAX];
	int ts_off, flag;
	unsigned int p, q, n = 0;

	for (p = 0; p < env->n_ports; p++)
		n += env->ports[p].nb_txq;
	if (cap != NULL) {
		cap->q = calloc(RTE_MAX(n, 1u), sizeof(*cap->q));
		cap->ser = calloc(RTE_MAX(env->n_ports, 1u),
				  sizeof(*cap->ser));
	}
	if (cap == NULL || cap->q == NULL || cap->ser == NULL) {
		app_capture_stop(cap);
		goto nomem;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "--capture %s: %s", dir, strerror(errno));
		app_capture_stop(cap);
		return NULL;
	}
	ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	flag = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	for (p = 0; p < env->n_ports; p++)
		for (q = 0; q < env->ports[p].nb_txq; q++) {
			if (env->ports[p].nb_txq == 1)
				snprintf(path, sizeof(path), "%s/tx_%s.pcap", dir,
					 env->ports[p].name);
			else
				snprintf(path, sizeof(path), "%s/tx_%s_q%u.pcap",
					 dir, env->ports[p].name, q);
			cap->q[cap->n] = cap_open(path, &env->ports[p],
						  (uint16_t)q, &cap->ser[p],
						  ts_off, flag >= 0 ?
						  RTE_BIT64(flag) : 0);
			if (cap->q[cap->n] == NULL) {
				snprintf(err, errlen, "--capture: cannot capture "
					 "to %s: %s", path, errno == ENOTSUP ?
					 "this DPDK has no TX callbacks "
					 "(RTE_ETHDEV_RXTX_CALLBACKS)" :
					 strerror(errno));
				app_capture_stop(cap);
				return NULL;
			}
			cap->n++;
		}
	for (p = 0; p < env->n_ports; p++)
		cap->ser[p].mbps = RTE_MAX(env->ports[p].speed_mbps, 1u);
	return cap;
nomem:
	snprintf(err, errlen, "--capture: out of memory");
	return NULL;
}

void
app_capture_set_vclock(struct app_capture *cap, const struct app_vclock *vc)
{
	unsigned int i;

	for (i = 0; cap != NULL && i < cap->n; i++)
		cap->q[i]->vc = vc; /* before any TX burst: workers not running */
}

/*
 * A file whose writes failed (pcap_dump() says nothing: a full disk) is
 * found here, at its last flush: each one named on stderr, and the run's
 * exit status says so (main.c). Its frames after the failure are lost.
 */
int
app_capture_stop(struct app_capture *cap)
{
	unsigned int i, bad = 0;
	int rc = 0, e;

	if (cap == NULL)
		return 0;
	for (i = 0; i < cap->n; i++) {
		struct cap_q *c = cap->q[i];

		if (c->tap != NULL)
			c->tap->fn = NULL;
		else
			rte_eth_remove_tx_callback(c->port_id, c->queue, c->cb);
		errno = 0;
		if (pcap_dump_flush(c->d) != 0 || c->err != 0 ||
		    ferror(pcap_dump_file(c->d))) {
			e = c->err != 0 ? c->err : errno != 0 ? errno : EIO;
			fprintf(stderr, "dpdk-aifab: --capture: %s: %s (the "
				"file lacks frames)\n", c->path, strerror(e));
			if (bad++ == 0)
				rc = -e;
		}
		pcap_dump_close(c->d);
		free(c->path);
		/*
		 * The callback struct belongs to ethdev now; it is only safe
		 * to free after no TX burst can be running: the workers have
		 * stopped when this is called.
		 */
		free(c);
	}
	free(cap->q);
	free(cap->ser);
	free(cap);
	return rc;
}

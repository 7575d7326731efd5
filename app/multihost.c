/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One collective over several servers (docs/lab.md, "Several servers"):
 * each host runs dpdk-aifab with --host NAME and emulates its share of the
 * ranks (pipelines/generator_start.c). This file is the app's side: the
 * wall clock (CLOCK_REALTIME, which PTP disciplines) against the TSC, the
 * --start-at instant armed in the generator and re-armed as the two
 * drift, the start timeout, the lines saying what was missing, and the
 * report's "multihost" object that tools/merge_reports.py joins.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "aifab_json.h"
#include "app.h"
#include "generator.h"

#define MH_REARM_MS 50          /* --start-at: TSC re-read this often */

enum mh_mode { MH_NOW, MH_AT, MH_FRAME };

struct app_mh {
	const struct app_args *a;
	const struct aifab_profile *prof;
	int64_t wall0;              /* CLOCK_REALTIME ns at tsc0 */
	uint64_t tsc0, hz;
	void *gen;
	enum mh_mode mode;
	bool multi;                 /* some ranks on other hosts */
	uint64_t launched;          /* TSC when the generator was created */
	uint64_t next_arm;
	bool said_start, checked;
	uint32_t n_ranks;
	uint64_t (*rb)[AIFAB_GEN_RB_MAX]; /* per rank, at the last look */
};

int64_t
app_mh_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wall clock and TSC, read together (the pair with the least gap). */
static void
clock_pair(int64_t *wall, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX, t0, t1;
	int64_t w;
	int i;

	for (i = 0; i < 3; i++) {
		t0 = rte_rdtsc();
		w = app_mh_wall_ns();
		t1 = rte_rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*wall = w;
			*tsc = t0 + (t1 - t0) / 2;
		}
	}
}

/* Fractional seconds ".123" at @p s into ns; the rest in @p end. */
static int64_t
frac_ns(const char *s, const char **end)
{
	int64_t v = 0, scale = 100000000;

	if (*s != '.' && *s != ',') {
		*end = s;
		return 0;
	}
	for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
		v += (*s - '0') * scale;
	*end = s;
	return v;
}

int
app_mh_parse_time(const char *s, int64_t now_ns, int64_t *out)
{
	struct tm tm;
	const char *p;
	char *end;
	int64_t ns, off = 0;
	bool utc = false;
	time_t t;
	int hh, mm;

	if (s[0] == '+') {
		double d = strtod(s + 1, &end);

		if (s[1] == '\0' || *end != '\0' || !(d >= 0 && d <= 86400))
			goto bad;
		*out = now_ns + (int64_t)(d * 1e9);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p == NULL)
		goto bad;
	ns = frac_ns(p, &p);
	if (*p == 'Z' && p[1] == '\0') {
		utc = true;
	} else if ((*p == '+' || *p == '-') &&
		   sscanf(p + 1, "%2d:%2d", &hh, &mm) == 2 && strlen(p) == 6) {
		utc = true;
		off = (int64_t)(hh * 3600 + mm * 60) * (*p == '+' ? 1 : -1);
	} else if (*p != '\0') {
		goto bad;
	}
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		goto bad;
	*out = ((int64_t)t - off) * 1000000000 + ns;
	return 0;
bad:
	fprintf(stderr, "dpdk-aifab: --start-at '%s': expected ISO 8601 "
		"(2025-06-01T12:00:00[.5][Z|+hh:mm], no zone = local time) or "
		"+SECONDS (0..86400) from now\n", s);
	return -1;
}

struct app_mh *
app_mh_new(const struct app_args *a, const struct aifab_profile *prof)
{
	struct app_mh *mh = calloc(1, sizeof(*mh));

	if (mh == NULL)
		return NULL;
	mh->a = a;
	mh->prof = prof;
	mh->hz = rte_get_tsc_hz();
	clock_pair(&mh->wall0, &mh->tsc0);
	if (a->has_start_at)
		mh->mode = MH_AT;
	else if (!a->leader && prof->host[0] != '\0')
		mh->mode = MH_FRAME;
	return mh;
}

void
app_mh_free(struct app_mh *mh)
{
	if (mh != NULL)
		free(mh->rb);
	free(mh);
}

/* The TSC at wall clock @p wall (at least 1: 0 means "now"). */
static uint64_t
tsc_at(const struct app_mh *mh, int64_t wall)
{
	double d = (double)(wall - mh->wall0) * (double)mh->hz / 1e9;
	double x;
	uint64_t t;

	if (d <= -(double)mh->tsc0)
		return 1;
	/* Rounded up: the first tick at or after @p wall, so a start armed
	 * at it is never reported before the instant (wall_at() of it). */
	x = (double)mh->tsc0 + d;
	t = (uint64_t)x;
	if ((double)t < x)
		t++;
	return RTE_MAX(t, (uint64_t)1);
}

/* The wall clock at TSC @p tsc. */
static int64_t
wall_at(const struct app_mh *mh, uint64_t tsc)
{
	double ns = (double)(int64_t)(tsc - mh->tsc0) * 1e9 / (double)mh->hz;

	/* to the nearest ns: truncating made a start at tsc_at(T) read as
	 * T - 1 ns (skew_ns -1 in test_multihost) */
	return mh->wall0 + (int64_t)(ns >= 0 ? ns + 0.5 : ns - 0.5);
}

static int
hex_byte(const char *s)
{
	unsigned int v;

	return sscanf(s, "%2x", &v) == 1 ? (int)v : 0;
}

void
app_mh_gen_params(const struct app_mh *mh, struct aifab_gen_params *gp)
{
	unsigned int i;

	gp->host = mh->prof->host;
	gp->leader = mh->a->leader;
	for (i = 0; i < 32; i++)
		gp->digest[i] = (uint8_t)hex_byte(mh->prof->digest + 2 * i);
	gp->wall0_ns = mh->wall0;
	gp->wall0_tsc = mh->tsc0;
	gp->start_tsc = mh->mode == MH_AT ? tsc_at(mh, mh->a->start_at_ns) :
		mh->mode == MH_FRAME ? AIFAB_GEN_START_FRAME : 0;
}

/* "2025-06-01T12:00:00.123456789Z" */
static void
iso(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%09" PRId64 "Z", s, ns % 1000000000);
}

void
app_mh_started(struct app_mh *mh, void *gen, uint64_t now)
{
	uint32_t r;
	char t[48];

	if (mh == NULL)
		return;
	mh->gen = gen;
	mh->launched = now;
	mh->next_arm = now;
	if (gen == NULL)
		return;
	mh->n_ranks = mh->prof->gen.ranks;
	for (r = 0; r < mh->n_ranks; r++)
		mh->multi |= !aifab_gen_rank_owned(gen, r);
	mh->rb = calloc(mh->n_ranks, sizeof(*mh->rb));
	if (mh->mode == MH_FRAME && !mh->multi) {
		mh->mode = MH_NOW;      /* every rank here: nobody to wait for */
		aifab_gen_arm(gen, 0);
	}
	printf("profile digest (SHA-256): %s\n", mh->prof->digest);
	if (!mh->multi)
		return;
	printf("multihost: host '%s', %s", mh->prof->host,
	       mh->a->leader ? "leader, " : "");
	if (mh->mode == MH_AT) {
		iso(mh->a->start_at_ns, t, sizeof(t));
		printf("iteration 0 at %s (in %.3f s)\n", t,
		       (double)(mh->a->start_at_ns - app_mh_wall_ns()) / 1e9);
	} else if (mh->mode == MH_FRAME) {
		printf("waiting for the leader's start frame (up to %g s)\n",
		       mh->a->start_timeout_s);
	} else {
		printf("starting now\n");
	}
}

/* The ranks of the host of rank @p r, e.g. "4-7" or "1 3 5", and how many
 * data packets came from them, into @p buf / @p pkts. */
static void
host_ranks(const struct app_mh *mh, const char *host, char *buf, size_t len,
	   uint64_t *pkts, uint64_t *qps)
{
	uint32_t r, first = UINT32_MAX;
	size_t o = 0;

	buf[0] = '\0';
	*pkts = 0;
	*qps = 0;
	for (r = 0; r <= mh->n_ranks; r++) {
		bool in = r < mh->n_ranks &&
			strcmp(aifab_gen_rank_host(mh->gen, r), host) == 0;

		if (in) {
			*pkts += mh->rb[r][AIFAB_GEN_RB_RX_FROM];
			*qps += mh->rb[r][AIFAB_GEN_RB_QPS_TO_US];
			if (first == UINT32_MAX)
				first = r;
			continue;
		}
		if (first == UINT32_MAX || o >= len)
			continue;
		o += (size_t)snprintf(buf + o, len - o, first + 1 == r ?
				      "%s%u" : "%s%u-%u", o ? " " : "", first,
				      r - 1);
		first = UINT32_MAX;
	}
}

/* "host 'b' (ranks 4-7)" for every other host whose ranks send to ours
 * and from which nothing arrived; false if none. */
static bool
missing_hosts(struct app_mh *mh, char *buf, size_t len)
{
	char seen[64][AIFAB_GEN_HOST_LEN], ranks[128];
	unsigned int n_seen = 0, i;
	uint64_t pkts, qps;
	size_t o = 0;
	uint32_t r;

	buf[0] = '\0';
	aifab_gen_rank_bytes(mh->gen, mh->rb);
	for (r = 0; r < mh->n_ranks; r++) {
		const char *h = aifab_gen_rank_host(mh->gen, r);

		if (aifab_gen_rank_owned(mh->gen, r))
			continue;
		for (i = 0; i < n_seen && strcmp(seen[i], h) != 0; i++)
			;
		if (i < n_seen || n_seen == RTE_DIM(seen))
			continue;
		snprintf(seen[n_seen++], sizeof(seen[0]), "%s", h);
		host_ranks(mh, h, ranks, sizeof(ranks), &pkts, &qps);
		if (qps > 0 && pkts == 0 && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%shost '%s' "
					      "(ranks %s)", o ? ", " : "", h,
					      ranks);
	}
	return o > 0;
}

/* Not started yet: re-arm --start-at; the start frame's timeout. */
static bool
tick_waiting(struct app_mh *mh, uint64_t now, enum app_end *end)
{
	if (mh->mode == MH_AT && now >= mh->next_arm) {
		clock_pair(&mh->wall0, &mh->tsc0);
		aifab_gen_arm(mh->gen, tsc_at(mh, mh->a->start_at_ns));
		mh->next_arm = now + mh->hz / 1000 * MH_REARM_MS;
	}
	if (mh->mode != MH_FRAME ||
	    (double)(now - mh->launched) < mh->a->start_timeout_s *
	    (double)mh->hz)
		return false;
	printf("multihost: no start frame from the leader within %g s "
	       "(--start-timeout): is a host running with --leader, with the "
	       "same rank_table, on the same fabric? Not started\n",
	       mh->a->start_timeout_s);
	*end = APP_END_START_TIMEOUT;
	return true;
}

bool
app_mh_tick(struct app_mh *mh, uint64_t now, enum app_end *end)
{
	struct aifab_gen_start st;
	char what[512];

	if (mh == NULL || mh->gen == NULL || !mh->multi)
		return false;
	aifab_gen_start_info(mh->gen, &st);
	if (st.state == AIFAB_GEN_REFUSED) {
		printf("multihost: refused the start frame of host '%s' (%02x:"
		       "%02x:%02x:%02x:%02x:%02x): its profile digest %.16s... "
		       "differs from ours %.16s... (another profile, --set or "
		       "rank_table); not started\n", st.leader_host,
		       st.leader_mac.addr_bytes[0], st.leader_mac.addr_bytes[1],
		       st.leader_mac.addr_bytes[2], st.leader_mac.addr_bytes[3],
		       st.leader_mac.addr_bytes[4], st.leader_mac.addr_bytes[5],
		       st.leader_digest, mh->prof->digest);
		*end = APP_END_REFUSED;
		return true;
	}
	if (st.state == AIFAB_GEN_WAITING)
		return tick_waiting(mh, now, end);
	if (!mh->said_start) {
		mh->said_start = true;
		printf("multihost: started%s%s%s\n", st.by_frame ?
		       " by the start frame of host '" : "",
		       st.by_frame ? st.leader_host : "", st.by_frame ? "'" : "");
	}
	/* The generator stamps start_tsc from its own lcore's TSC read,
	 * which may come after this loop's `now` (it started in between):
	 * then the start is not a timeout ago (now - start_tsc would wrap
	 * and stop the run at its start with nothing received yet). */
	if (mh->checked || now < st.start_tsc ||
	    (double)(now - st.start_tsc) <
	    mh->a->start_timeout_s * (double)mh->hz)
		return false;
	mh->checked = true;
	if (!missing_hosts(mh, what, sizeof(what)))
		return false;
	printf("multihost: nothing received from %s within %g s of the start "
	       "(--start-timeout): not running, not started, another "
	       "profile, or not cabled; stopping\n", what,
	       mh->a->start_timeout_s);
	*end = APP_END_START_TIMEOUT;
	return true;
}

void
app_mh_finish(struct app_mh *mh, enum app_end end, FILE *f)
{
	struct aifab_gen_summary s;
	char what[512];

	if (mh == NULL || mh->gen == NULL || !mh->multi ||
	    end != APP_END_DURATION)
		return;
	aifab_gen_summary(mh->gen, &s);
	fprintf(f, "multihost: ended by --duration with %u of %u timed "
		"iterations completed by this host's %u ranks", s.iterations,
		mh->prof->gen.iterations, s.n_own);
	if (missing_hosts(mh, what, sizeof(what)))
		fprintf(f, "; nothing received from %s", what);
	fprintf(f, "\n");
}

/* "start": how this host began iteration 0 and the skew it saw. */
static void
json_start(struct aifab_json *j, const struct app_mh *mh, int64_t start)
{
	static const char *const state[] = {
		[AIFAB_GEN_WAITING] = "not_started",
		[AIFAB_GEN_STARTED] = "started",
		[AIFAB_GEN_REFUSED] = "refused",
	};
	struct aifab_gen_start st;
	bool on = false;

	aifab_gen_start_info(mh->gen, &st);
	on = st.state == AIFAB_GEN_STARTED;
	aifab_json_obj(j, "start");
	aifab_json_str(j, "state", state[st.state]);
	aifab_json_str(j, "mode", mh->mode == MH_AT ? "at" :
		       mh->mode == MH_FRAME ? "frame" :
		       mh->a->leader ? "leader" : "now");
	if (mh->mode == MH_AT)
		aifab_json_i64(j, "requested_ns", mh->a->start_at_ns);
	else
		aifab_json_null(j, "requested_ns");
	if (on)
		aifab_json_i64(j, "at_ns", start);
	else
		aifab_json_null(j, "at_ns");
	/* at: how late after the instant; frame: after the leader sent it
	 * (one-way delay plus the clocks' offset) */
	if (on && mh->mode == MH_AT)
		aifab_json_i64(j, "skew_ns", start - mh->a->start_at_ns);
	else if (on && st.by_frame)
		aifab_json_i64(j, "skew_ns", start - st.leader_wall_ns);
	else if (on)
		aifab_json_i64(j, "skew_ns", 0);
	else
		aifab_json_null(j, "skew_ns");
	aifab_json_str(j, "leader_host", st.frames_rx ? st.leader_host : NULL);
	aifab_json_str(j, "leader_digest", st.frames_rx ? st.leader_digest :
		       NULL);
	aifab_json_u64(j, "frames_tx", st.frames_tx);
	aifab_json_u64(j, "frames_rx", st.frames_rx);
	aifab_json_end(j);
}

/* Per rank emulated here: what it sent, what was delivered to it. */
static void
json_ranks(struct aifab_json *j, struct app_mh *mh)
{
	uint32_t r;

	aifab_gen_rank_bytes(mh->gen, mh->rb);
	aifab_json_arr(j, "owned_ranks");
	for (r = 0; r < mh->n_ranks; r++)
		if (aifab_gen_rank_owned(mh->gen, r))
			aifab_json_u64(j, NULL, r);
	aifab_json_end(j);
	aifab_json_arr(j, "per_rank");
	for (r = 0; r < mh->n_ranks; r++) {
		if (!aifab_gen_rank_owned(mh->gen, r))
			continue;
		aifab_json_obj(j, NULL);
		aifab_json_u64(j, "rank", r);
		aifab_json_u64(j, "sent_bytes", mh->rb[r][AIFAB_GEN_RB_SENT]);
		aifab_json_u64(j, "delivered_bytes",
			       mh->rb[r][AIFAB_GEN_RB_DELIVERED]);
		aifab_json_u64(j, "retx_bytes", mh->rb[r][AIFAB_GEN_RB_RETX]);
		aifab_json_end(j);
	}
	aifab_json_end(j);
}

/* Wall clock of generator clock @p t (virtual clock: ns from the start). */
static int64_t
gen_wall(const struct app_mh *mh, uint64_t t)
{
	if (mh->prof->gen.virtual_tick_ns)
		return mh->wall0 + (int64_t)t;
	return wall_at(mh, t);
}

static void
json_mh(struct aifab_json *j, struct app_mh *mh)
{
	struct aifab_gen_summary s;
	struct aifab_gen_start st;
	uint32_t i;

	aifab_gen_summary(mh->gen, &s);
	aifab_gen_start_info(mh->gen, &st);
	aifab_json_obj(j, NULL);
	aifab_json_str(j, "host", mh->prof->host);
	aifab_json_bool(j, "leader", mh->a->leader);
	aifab_json_str(j, "digest", mh->prof->digest);
	aifab_json_u64(j, "seed", mh->prof->seed);
	aifab_json_u64(j, "ranks", mh->n_ranks);
	aifab_json_str(j, "clock", mh->prof->gen.virtual_tick_ns ?
		       "virtual" : "CLOCK_REALTIME");
	json_start(j, mh, wall_at(mh, st.start_tsc));
	if (s.run_t0 != 0 || s.run_t1 != 0) {
		aifab_json_i64(j, "start_ns", gen_wall(mh, s.run_t0));
		aifab_json_i64(j, "end_ns", gen_wall(mh, s.run_t1));
	} else {
		aifab_json_null(j, "start_ns");
		aifab_json_null(j, "end_ns");
	}
	aifab_json_u64(j, "warmup", mh->prof->gen.warmup);
	aifab_json_arr(j, "iterations");
	for (i = 0; i < s.n_iter; i++) {
		aifab_json_obj(j, NULL);
		aifab_json_i64(j, "start_ns", gen_wall(mh, s.iter_t0[i]));
		aifab_json_i64(j, "end_ns", gen_wall(mh, s.iter_t1[i]));
		aifab_json_dbl(j, "time_us", s.iter_us[i], 3);
		aifab_json_end(j);
	}
	aifab_json_end(j);
	json_ranks(j, mh);
	aifab_json_end(j);
}

char *
app_mh_json(struct app_mh *mh)
{
	struct aifab_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (mh == NULL || mh->gen == NULL || mh->rb == NULL)
		return NULL;
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	aifab_json_begin(&j, f, 0);
	json_mh(&j, mh);
	if (aifab_json_finish(&j) != 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

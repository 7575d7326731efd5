/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-aifab: EAL and port set-up, pipelines placed on lcores, the control
 * loop on the main lcore (end conditions, progress), signals, the report.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_pdump.h>

#include "aifab_collective.h"
#include "aifab_eal.h"
#include "aifab_stats.h"
#include "app.h"
#include "generator.h"
#include "lab.h"

/* (pipeline, worker) pairs sharing one lcore: every pipeline, and every
 * generator worker on the main lcore (virtual clock) */
#define APP_MAX_SLOTS (APP_MAX_PIPES + AIFAB_MAX_WORKERS)

/*
 * What one lcore runs: (pipeline, worker index) pairs, polled in turn.
 * Load (polls that handled packets are busy, the others idle) goes into
 * lib/stats blocks this lcore alone writes: the pipeline's block of each
 * slot (if the pipeline has a set) and the lcore's block of the app's
 * "lcores" set.
 */
struct lcore_plan {
	unsigned int n;
	const struct aifab_pipeline_ops *ops[APP_MAX_SLOTS];
	void *st[APP_MAX_SLOTS];
	unsigned int w[APP_MAX_SLOTS];
	struct aifab_stats_block *blk[APP_MAX_SLOTS];
	int owner[APP_MAX_SLOTS]; /* whose ports each polls (APP_VC_OWNER_*) */
	struct aifab_stats_block *lblk;
	const volatile int *quit;
} __rte_cache_aligned;

/* A running pipeline. */
struct app_pipe {
	const struct aifab_pipeline_ops *ops;
	void *st;
	const uint16_t *map;        /* its port i is env port map[i]; NULL: i */
	unsigned int n_map;
};

/*
 * A switch instance of a profile with more than AIFAB_SW_MAX_PORTS ports
 * sees only its own ports (its per-port state is sized for a switch, not
 * for the fabric): its env, port array, link state and profile view.
 */
struct app_sw_ports {
	struct aifab_port_rt rt[AIFAB_SW_MAX_PORTS];
	uint16_t map[AIFAB_SW_MAX_PORTS];   /* -> app env port */
	uint8_t link_down[AIFAB_SW_MAX_PORTS];
	unsigned int n;
};

struct app {
	struct app_args args;
	struct aifab_profile prof;
	struct aifab_env env;
	unsigned int n_pipes;
	struct app_pipe pipe[APP_MAX_SLOTS];
	/* Each switch instance's profile view (its routes, neighbours, ECMP),
	 * alive until the pipelines are freed. */
	struct aifab_profile *sw_prof[AIFAB_MAX_SWITCHES];
	struct app_sw_ports *sw_ports[AIFAB_MAX_SWITCHES]; /* or NULL */
	void *gen;                  /* the generator's state, if it runs */
	void *lab;                  /* the lab recipe's state, if it runs */
	const struct app_pipe *src; /* the traffic source (generator/replay) */
	bool out_failed;            /* an output file could not be written
				       whole: exit status 1 */
	struct lcore_plan plan[RTE_MAX_LCORE];
	char run_dir[PATH_MAX];     /* EAL's runtime files, removed at exit */
	struct app_capture *cap;    /* --capture */
	struct app_mh *mh;          /* several servers (multihost.c) */
	struct app_stats *stats;    /* live counters and their exporters */
	bool pdump;                 /* rte_pdump_init() done */
	volatile int quit;          /* tells worker lcores to stop */
	/* [port] the NIC's link is down (env.link_down), for the switches */
	uint8_t link_down[AIFAB_MAX_PORTS];
	enum app_clock clock;       /* [general] clock */
	struct app_vclock *vc;      /* the whole-process virtual clock */
};

#define APP_LINK_POLL_MS 100 /* NIC link status read this often */
#define APP_VCLOCK_SAMPLES 200 /* default stats samples on the virtual clock */

static volatile sig_atomic_t got_signal;
/* Until EAL init returns: it may block (a vdev probe opening a FIFO, a
 * device that does not answer) where nothing reads got_signal. */
static volatile sig_atomic_t in_eal_init;

/*
 * SIGINT, SIGTERM and SIGHUP: the run ends at its next step or poll, its
 * counters flushed and its report written. The handlers are set before
 * anything else: a signal during the profile load or EAL init is kept
 * (the run then ends at its first step), neither lost (a shell starts a
 * background job with SIGINT ignored) nor ending the process the
 * default way, without its report and with EAL's runtime directory
 * left behind. A second signal while EAL init has not returned ends it
 * the default way: that init may never return.
 */
static void
on_signal(int sig)
{
	if (got_signal != 0 && in_eal_init) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	got_signal = sig;
}

/*
 * One poll of every pipeline of the lcore, from TSC @p start (the end of
 * the previous poll: one TSC read per pipeline, not one more per poll,
 * ~40 cycles of a 64 B burst's ~4000); returns its end.
 */
static uint64_t
plan_poll(struct lcore_plan *pl, uint64_t start)
{
	uint64_t now = start, t;
	unsigned int i, k, n = 0;

	for (i = 0; i < pl->n; i++) {
		k = pl->ops[i]->poll(pl->st[i], pl->w[i], now);
		t = rte_rdtsc();
		if (pl->blk[i] != NULL)
			aifab_stats_account(pl->blk[i], t - now, k);
		now = t;
		n += k;
	}
	aifab_stats_account(pl->lblk, now - start, n);
	return now;
}

static void
plan_drain_at(const struct lcore_plan *pl, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < pl->n; i++)
		pl->ops[i]->drain(pl->st[i], pl->w[i], now);
}

static void
plan_drain(const struct lcore_plan *pl)
{
	plan_drain_at(pl, rte_rdtsc());
}

static int
lcore_main(void *arg)
{
	struct lcore_plan *pl = arg;
	uint64_t now = rte_rdtsc();

	while (!__atomic_load_n(pl->quit, __ATOMIC_RELAXED))
		now = plan_poll(pl, now);
	plan_drain(pl);
	return 0;
}

static void
plan_add(struct app *app, unsigned int lcore, const struct aifab_pipeline_ops *ops,
	 void *st, unsigned int w, int owner)
{
	struct lcore_plan *pl = &app->plan[lcore];

	pl->ops[pl->n] = ops;
	pl->st[pl->n] = st;
	pl->w[pl->n] = w;
	pl->owner[pl->n] = owner;
	pl->n++;
	pl->quit = &app->quit;
}

static void
pipe_add(struct app *app, const struct aifab_pipeline_ops *ops, void *st)
{
	app->pipe[app->n_pipes].ops = ops;
	app->pipe[app->n_pipes].st = st;
	app->pipe[app->n_pipes].map = NULL;
	app->pipe[app->n_pipes].n_map = 0;
	app->n_pipes++;
}

/* Switch instance @p k only runs when some port is left to it. */
static bool
switch_wanted(const struct aifab_profile *p, const struct app_portset *gen,
	      unsigned int k)
{
	unsigned int i;

	if (!p->switch_enabled)
		return false;
	for (i = 0; i < p->n_ports; i++)
		if (!app_portset_has(gen, i) && p->ports[i].sw == k)
			return true;
	return false;
}

/*
 * The NIC link status of every switch port, published for the switch
 * workers (env.link_down), which take an ECMP member whose port is down
 * out of its groups. rte_eth_link_get_nowait() does not block; a port
 * that cannot tell (-ENOTSUP) counts as up.
 */
static void
app_link_poll(struct app *app)
{
	struct rte_eth_link l;
	unsigned int p, k;

	for (p = 0; p < app->env.n_ports; p++) {
		uint8_t down;

		if (app->env.ports[p].gen_owned ||
		    aifab_port_is_ring(&app->env.ports[p]))
			continue;
		memset(&l, 0, sizeof(l));
		if (rte_eth_link_get_nowait(app->env.ports[p].port_id, &l) != 0)
			continue;
		down = l.link_status == RTE_ETH_LINK_DOWN;
		if (down != app->link_down[p])
			printf("port %s: link %s\n", app->env.ports[p].name,
			       down ? "down" : "up");
		__atomic_store_n(&app->link_down[p], down, __ATOMIC_RELAXED);
	}
	/* The switches that see only their own ports have their copy. */
	for (k = 0; k < AIFAB_MAX_SWITCHES; k++) {
		struct app_sw_ports *sp = app->sw_ports[k];

		for (p = 0; sp != NULL && p < sp->n; p++)
			__atomic_store_n(&sp->link_down[p],
					 __atomic_load_n(&app->link_down[sp->map[p]],
							 __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
	}
}

/*
 * Switch instance @p k's own ports as its env (a profile of more ports
 * than one switch may have): its view of the profile keeps only them.
 */
static int
app_switch_own_ports(struct app *app, unsigned int k,
		     const struct app_portset *gen, struct aifab_env *env,
		     char *err, size_t errlen)
{
	const struct aifab_profile *prof = &app->prof;
	bool is_gen[AIFAB_MAX_PORTS];
	struct app_sw_ports *sp = calloc(1, sizeof(*sp));
	unsigned int i;
	int n;

	if (sp == NULL) {
		snprintf(err, errlen, "out of memory for switch %s",
			 prof->switches[k].name);
		return -1;
	}
	app->sw_ports[k] = sp;
	for (i = 0; i < prof->n_ports; i++)
		is_gen[i] = app_portset_has(gen, i);
	n = aifab_profile_switch_view_own(prof, k, is_gen, app->sw_prof[k],
					  sp->map);
	if (n < 0) {
		snprintf(err, errlen, "%s: switch '%s' owns more than %u ports; "
			 "allowed: at most %u ports per switch instance",
			 prof->path, prof->switches[k].name, AIFAB_SW_MAX_PORTS,
			 AIFAB_SW_MAX_PORTS);
		return -1;
	}
	sp->n = (unsigned int)n;
	for (i = 0; i < sp->n; i++) {
		sp->rt[i] = app->env.ports[sp->map[i]];
		sp->link_down[i] = app->link_down[sp->map[i]];
	}
	env->ports = sp->rt;
	env->n_ports = (uint16_t)sp->n;
	env->link_down = sp->link_down;
	return 0;
}

/* One switch pipeline per instance, all on the switch lcores. */
static int
app_start_switches(struct app *app, const unsigned int *ids, unsigned int n,
		   const struct app_portset *gen, char *err, size_t errlen)
{
	const struct aifab_profile *prof = &app->prof;
	bool own = app->env.n_ports > AIFAB_SW_MAX_PORTS;
	struct aifab_env env;
	unsigned int k, i;
	void *sw;

	for (k = 0; k < prof->n_switches; k++) {
		const char *name = prof->switches[k].name;

		if (!switch_wanted(prof, gen, k))
			continue;
		app->sw_prof[k] = calloc(1, sizeof(*app->sw_prof[k]));
		if (app->sw_prof[k] == NULL ||
		    aifab_profile_switch_view(prof, k, app->sw_prof[k]) != 0) {
			snprintf(err, errlen, "out of memory for switch %s",
				 name);
			return -1;
		}
		env = app->env;
		if (own && app_switch_own_ports(app, k, gen, &env, err,
						errlen) != 0)
			return -1;
		env.prof = app->sw_prof[k];
		env.sw_index = (uint8_t)k;
		snprintf(env.sw_name, sizeof(env.sw_name), "%s", name);
		env.worker_lcores = ids; /* stats labels, during init */
		sw = aifab_switch_ops.init(&env, n, err, errlen);
		if (sw == NULL)
			return -1;
		pipe_add(app, &aifab_switch_ops, sw);
		if (own) {
			app->pipe[app->n_pipes - 1].map = app->sw_ports[k]->map;
			app->pipe[app->n_pipes - 1].n_map = app->sw_ports[k]->n;
		}
		for (i = 0; i < n; i++)
			plan_add(app, ids[i], &aifab_switch_ops, sw, i,
				 (int)k); /* its ports, for the virtual clock */
		printf("switch%s%s: %u worker%s on lcore%s", name[0] ? " " : "",
		       name, n, n > 1 ? "s" : "", n > 1 ? "s" : "");
		for (i = 0; i < n; i++)
			printf(" %u", ids[i]);
		printf("\n");
	}
	return 0;
}

static int
app_start(struct app *app, char *err, size_t errlen)
{
	const struct aifab_profile *prof = &app->prof;
	unsigned int ids[RTE_MAX_LCORE], i, gen_lc = 0;
	unsigned int gen_ids[AIFAB_MAX_WORKERS] = { 0 };
	struct app_portset gen_mask;
	uint64_t ts_flag;
	int n = 1, ts_off, n_gen = 1;
	bool sw_on = false;

	if (app_gen_port_mask(prof, &gen_mask, err, errlen) != 0)
		return -1;
	for (i = 0; i < prof->n_switches; i++)
		sw_on |= switch_wanted(prof, &gen_mask, i);
	if (sw_on) {
		n = app_switch_lcores(prof, app_ports_max_workers(prof,
				      &app->args), ids, err, errlen);
		if (n < 0)
			return -1;
	}
	if (prof->gen.enabled || app_lab_on(prof)) {
		n_gen = app_gen_lcores(prof, gen_ids, err, errlen);
		if (n_gen < 0)
			return -1;
	}
	if (app->clock == APP_CLOCK_WHOLE) { /* one thread, a fixed order */
		n = 1;
		ids[0] = rte_get_main_lcore();
		for (i = 0; i < (unsigned int)n_gen; i++)
			gen_ids[i] = rte_get_main_lcore();
	}
	gen_lc = gen_ids[0];
	if (!sw_on && !prof->gen.enabled && !app_lab_on(prof)) {
		snprintf(err, errlen, "%s: [switch] enabled = 'false' and no "
			 "[generator]: nothing to run; allowed: enable one",
			 prof->path);
		return -1;
	}
	if (app_ports_setup(prof, &app->args, (unsigned int)n, &gen_mask,
			    &app->env, err, errlen) != 0)
		return -1;
	app->env.link_down = app->link_down;
	if (app->clock == APP_CLOCK_WHOLE) {
		app->env.tsc_hz = APP_VCLOCK_HZ; /* every `now` is model ns */
		app->env.stats_sync = APP_VCLOCK_HZ / 1000000; /* 1 us */
		app->vc = app_vclock_new(&app->env, prof, err, errlen);
		if (app->vc == NULL)
			return -1;
	}
	app_link_poll(app); /* the state the workers start from */
	/* Departure stamps for captures: the RX timestamp field, registered
	 * here when no port driver did. */
	if (rte_mbuf_dyn_rx_timestamp_register(&ts_off, &ts_flag) != 0) {
		snprintf(err, errlen, "cannot register the mbuf timestamp field");
		return -1;
	}
	app->env.stamps_unread = app->args.capture_dir == NULL;
	if (sw_on && app_start_switches(app, ids, (unsigned int)n, &gen_mask,
					err, errlen) != 0)
		return -1;
	if (app_lab_on(prof)) {
		void *st;

		app->env.worker_lcores = &gen_lc;
		st = app_lab_create(prof, &app->env, err, errlen);
		app->env.worker_lcores = NULL;
		if (st == NULL)
			return -1;
		app->lab = st;
		pipe_add(app, &aifab_lab_ops, st);
		app->src = &app->pipe[app->n_pipes - 1];
		plan_add(app, gen_lc, &aifab_lab_ops, st, 0, APP_VC_OWNER_GEN);
		printf("lab: recipe %s on lcore %u\n",
		       prof->lab.recipe, gen_lc);
	}
	if (prof->gen.enabled) {
		const struct aifab_pipeline_ops *ops;
		void *st, *gen;

		/* The collective generator, or trace replay. */
		app->env.worker_lcores = gen_ids;
		st = app_traffic_create(prof, &app->env, &ops, &gen, app->mh,
					err, errlen);
		app->env.worker_lcores = NULL;
		if (st == NULL)
			return -1;
		app->gen = gen;
		pipe_add(app, ops, st);
		app->src = &app->pipe[app->n_pipes - 1];
		/* Worker w on the w-th lcore listed (in that order on one
		 * lcore, the virtual clock's included). */
		for (i = 0; i < (unsigned int)n_gen; i++)
			plan_add(app, gen_ids[i], ops, st, i,
				 APP_VC_OWNER_GEN);
		if (gen != NULL && n_gen == 1)
			printf("generator: %u ranks on lcore %u\n",
			       prof->gen.ranks, gen_lc);
		else if (gen != NULL)
			printf("generator: %u ranks on %d lcores (%u..%u)\n",
			       prof->gen.ranks, n_gen, gen_ids[0],
			       gen_ids[n_gen - 1]);
		else
			printf("generator: trace replay on lcore %u\n", gen_lc);
		app_mh_started(app->mh, gen, rte_rdtsc());
	}
	if (app->args.capture_dir != NULL) {
		app->cap = app_capture_start(&app->env, app->args.capture_dir,
					     err, errlen);
		if (app->cap == NULL)
			return -1;
		app_capture_set_vclock(app->cap, app->vc);
	}
	return 0;
}

/* Counters and exporters for what runs, then the workers. */
static int
app_launch(struct app *app, char *err, size_t errlen)
{
	unsigned int lcores[RTE_MAX_LCORE], n = 0, i, k;
	int rc;

	app->stats = app_stats_new(&app->args, &app->env);
	if (app->stats == NULL) {
		snprintf(err, errlen, "out of memory for statistics");
		return -1;
	}
	for (i = 0; i < app->n_pipes; i++)
		if (app_stats_add_pipe(app->stats, app->pipe[i].ops,
				       app->pipe[i].st, app->pipe[i].map,
				       app->pipe[i].n_map) != 0)
			return -1;
	app_stats_set_gen(app->stats, app->gen);
	app_stats_set_lab(app->stats, app->lab);
	if (app->vc != NULL)
		app_stats_model_time(app->stats);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (app->plan[i].n > 0)
			lcores[n++] = i;
	if (app_stats_start(app->stats, lcores, n, err, errlen) != 0)
		return -1;
	rc = app_telemetry_start(app->stats);
	if (rc != 0)
		printf("warning: telemetry commands not registered: %s\n",
		       strerror(-rc));
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct lcore_plan *pl = &app->plan[i];

		if (pl->n == 0)
			continue;
		pl->lblk = app_stats_lcore_block(app->stats, i);
		for (k = 0; k < pl->n; k++) {
			struct aifab_stats_set *set = pl->ops[k]->stats != NULL ?
				pl->ops[k]->stats(pl->st[k]) : NULL;

			pl->blk[k] = set != NULL ?
				aifab_stats_block(set, pl->w[k]) : NULL;
		}
	}
	RTE_LCORE_FOREACH_WORKER(i)
		if (app->plan[i].n > 0)
			rte_eal_remote_launch(lcore_main, &app->plan[i], i);
	return 0;
}

static bool
app_done(const struct app *app)
{
	const struct app_pipe *src = app->n_pipes > 0 ? app->src : NULL;
	unsigned int i;

	/* With a traffic source, the others only have to be drained. */
	if (src != NULL && !src->ops->done(src->st))
		return false;
	for (i = 0; i < app->n_pipes; i++) {
		const struct app_pipe *pp = &app->pipe[i];

		if (pp == src || pp->ops->done(pp->st))
			continue;
		if (src == NULL || pp->ops->idle == NULL ||
		    !pp->ops->idle(pp->st))
			return false;
	}
	return app->n_pipes > 0;
}

/*
 * Stats interval on the virtual clock (ns of model time): --stats-interval
 * if given, else about APP_VCLOCK_SAMPLES over the generator's iterations
 * at their ideal time (payload at the slowest generator port's rate;
 * 1 ms of model time without a generator).
 */
static uint64_t
app_vclock_interval(const struct app *app)
{
	const struct aifab_gen_profile *g = &app->prof.gen;
	uint32_t mbps = 0;
	double total_ns;
	unsigned int p;

	if (app->args.stats_interval_given)
		return RTE_MAX((uint64_t)(app->args.stats_interval_s * 1e9),
			       (uint64_t)1);
	for (p = 0; p < app->env.n_ports; p++)
		if (app->env.ports[p].gen_owned &&
		    (mbps == 0 || app->env.ports[p].speed_mbps < mbps))
			mbps = app->env.ports[p].speed_mbps;
	if (app->gen == NULL || mbps == 0)
		return 1000000;
	total_ns = (double)g->size_bytes * 8e3 / mbps * (g->warmup + g->iterations) *
		aifab_coll_busbw_factor(aifab_coll_type_op(
			(enum aifab_coll_type)g->collective), g->ranks);
	return RTE_MAX((uint64_t)(total_ns / APP_VCLOCK_SAMPLES),
		       (uint64_t)1000);
}

/*
 * The whole-process virtual clock: the main lcore runs every pipeline
 * (app/vclock.c) until the input is consumed, --duration of model time
 * passes, nothing is left to happen, or a signal.
 */
static enum app_end
app_loop_virtual(struct app *app, double *elapsed)
{
	struct lcore_plan *mine = &app->plan[rte_get_main_lcore()];
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), next_tick, tick;
	uint64_t dur_ns = (uint64_t)(app->args.duration_s * 1e9);
	enum app_end end = APP_END_CONSUMED;
	unsigned int i;

	for (i = 0; i < mine->n; i++)
		app_vclock_add(app->vc, mine->ops[i], mine->st[i], mine->w[i],
			       mine->blk[i], mine->owner[i]);
	app_vclock_set_lcore_block(app->vc, mine->lblk);
	tick = app_vclock_interval(app);
	next_tick = tick;
	while (!app_done(app)) {
		uint64_t now;

		if (!app_vclock_step(app->vc)) {
			printf("virtual clock: nothing left to happen at %.6f ms "
			       "of model time\n",
			       (double)app_vclock_now(app->vc) / 1e6);
			break;
		}
		if (got_signal || app_stats_stdout_closed(app->stats)) {
			end = APP_END_SIGNAL;
			break;
		}
		if (dur_ns > 0 && app_vclock_now(app->vc) >= dur_ns) {
			end = APP_END_DURATION;
			break;
		}
		now = app_vclock_now(app->vc);
		if (now >= next_tick) {
			app_stats_tick(app->stats, now);
			next_tick = now + tick;
		}
	}
	app_vclock_stop(app->vc);
	plan_drain_at(mine, app_vclock_now(app->vc));
	*elapsed = (double)(rte_rdtsc() - start) / (double)hz;
	if (app_stats_finish(app->stats, app_vclock_now(app->vc) + 1) != 0)
		app->out_failed = true;
	return end;
}

/* Run until the input is consumed, the duration passes or a signal. */
static enum app_end
app_loop(struct app *app, double *elapsed)
{
	struct lcore_plan *mine = &app->plan[rte_get_main_lcore()];
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), next_tick, tick;
	uint64_t link_every = hz / 1000 * APP_LINK_POLL_MS;
	uint64_t next_link = start + link_every;
	enum app_end end;

	if (app->vc != NULL)
		return app_loop_virtual(app, elapsed);
	tick = (uint64_t)(app->args.stats_interval_s * (double)hz);
	next_tick = start + tick;
	for (;;) {
		uint64_t now;

		if (mine->n > 0) {
			now = plan_poll(mine, rte_rdtsc());
		} else {
			usleep(1000);
			now = rte_rdtsc();
		}
		if (got_signal || app_stats_stdout_closed(app->stats)) {
			end = APP_END_SIGNAL;
			break;
		}
		if (app->args.duration_s > 0 &&
		    (double)(now - start) >= app->args.duration_s * (double)hz) {
			end = APP_END_DURATION;
			break;
		}
		if (app_mh_tick(app->mh, now, &end))
			break;
		if (app_done(app)) {
			end = APP_END_CONSUMED;
			break;
		}
		if (now >= next_link) {
			app_link_poll(app);
			next_link = now + link_every;
		}
		if (now >= next_tick) {
			app_stats_tick(app->stats, now);
			next_tick += tick;
			if (next_tick < now) /* a slow interval: skip, not burst */
				next_tick = now + tick;
		}
	}
	__atomic_store_n(&app->quit, 1, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();
	if (mine->n > 0)
		plan_drain(mine);
	*elapsed = (double)(rte_rdtsc() - start) / (double)hz;
	/* Final counters: workers stopped and drained. */
	if (app_stats_finish(app->stats, rte_rdtsc()) != 0)
		app->out_failed = true;
	return end;
}

static void
app_pipes_fini(struct app *app)
{
	unsigned int i;

	for (i = 0; i < app->n_pipes; i++)
		app->pipe[i].ops->fini(app->pipe[i].st);
	app->n_pipes = 0;
	for (i = 0; i < AIFAB_MAX_SWITCHES; i++) {
		aifab_profile_free(app->sw_prof[i]);
		free(app->sw_prof[i]);
		app->sw_prof[i] = NULL;
		free(app->sw_ports[i]);
		app->sw_ports[i] = NULL;
	}
	app->gen = NULL;
	app->lab = NULL;
	app->src = NULL;
}

static int
app_finish(struct app *app, enum app_end end, double elapsed)
{
	struct aifab_port_counters c[AIFAB_MAX_PORTS];
	struct app_report *r = app_report_new(&app->env);
	unsigned int in_use, i;
	int rc = 0;

	if (r == NULL) {
		fprintf(stderr, "dpdk-aifab: out of memory for the report\n");
		return -1;
	}
	app_port_counters(app->stats, c);
	app_report_set_counters(r, c);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		uint64_t v[5];

		if (app->plan[i].n == 0)
			continue;
		app_stats_lcore_load(app->stats, i, v);
		app_report_lcore(r, i, v[0], v[1], v[2], v[3], v[4]);
	}
	if (app->vc != NULL) {
		uint64_t steps, hops, polls, cpu_ns;

		app_vclock_counts(app->vc, &steps, &hops, &polls, &cpu_ns);
		app_report_vclock(r, app_vclock_now(app->vc), steps, hops);
		/* The machine's figure (bench/vclock.sh), not in the report:
		 * reports of one profile and seed are the same everywhere
		 * (and whichever polls the loop skips). */
		printf("virtual clock: %" PRIu64 " steps, %" PRIu64
		       " frame-hops, %" PRIu64 " polls, loop CPU %.6f s\n",
		       steps, hops, polls, (double)cpu_ns / 1e9);
	}
	if (app->gen != NULL) {
		struct aifab_gen_summary gs;

		aifab_gen_summary(app->gen, &gs);
		app_report_generator(r, &gs);
		app_report_multihost(r, app_mh_json(app->mh));
	}
	for (i = 0; i < app->n_pipes; i++) {
		struct app_mapped_sink ms;

		app_mapped_sink_init(&ms, app_report_sink(r), app->pipe[i].map,
				     app->pipe[i].n_map);
		app->pipe[i].ops->report(app->pipe[i].st, &ms.sink);
	}
	if (app->gen != NULL) {
		printf("\n");
		aifab_gen_print_table(app->gen, stdout);
		app_mh_finish(app->mh, end, stdout);
	}
	if (app->lab != NULL) {
		aifab_lab_print(app->lab, stdout);
		app_report_lab(r, app->lab);
	}
	app_telemetry_stop(app->stats); /* it reads the pipelines */
	if (app_capture_stop(app->cap) != 0)
		app->out_failed = true;
	app->cap = NULL;
	app_vclock_free(app->vc); /* what is still on a wire */
	app->vc = NULL;
	/* Ports first: closing them returns what RX rings and in-memory
	 * cables hold (the generator's mbufs among them) while every pool
	 * still exists; then each pipeline frees what it holds and its own
	 * pools, keeping any pool whose mbufs did not all come back. */
	app_ports_close(&app->env);
	app_pipes_fini(app);
	in_use = app_mempools_in_use();
	printf("\nrun ended: %s after %.3f s; mbufs in use at exit: %u\n",
	       app_end_name(end), elapsed, in_use);
	app_report_print(r, stdout);
	if (app->prof.gen.enabled && app->prof.switch_enabled)
		app_report_explain(r, stdout);
	if (app->args.report_json != NULL) {
		if (app_report_write_json(r, app->args.report_json, &app->prof,
					  elapsed, end, in_use) != 0) {
			fprintf(stderr, "dpdk-aifab: --report-json %s: %s\n",
				app->args.report_json, strerror(errno));
			rc = -1;
		} else {
			printf("report: %s\n", app->args.report_json);
		}
	}
	app_report_free(r);
	app_pools_free();
	app_stats_free(app->stats);
	app->stats = NULL;
	return app->out_failed ? -1 : rc;
}

int
main(int argc, char **argv)
{
	static struct app app;
	char err[APP_ERR_LEN] = "";
	enum app_end end;
	double elapsed;
	int rc;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* Its terminal gone (an ssh session dropped), a run ends as at
	 * SIGTERM, its report written; unless started under nohup (SIGHUP
	 * ignored), which asks it to go on. */
	if (signal(SIGHUP, SIG_IGN) != SIG_IGN)
		signal(SIGHUP, on_signal);
	/* A closed reader (stdout piped to `head`) is a write error, not
	 * the end of the process without its report: a console that lost
	 * its reader stops the run (app_stats_tick()). */
	signal(SIGPIPE, SIG_IGN);
	rc = app_args_parse(argc, argv, &app.args);
	if (rc != 0)
		return rc > 0 ? 0 : 1;
	/* Profile errors come before EAL: they must not cost a start-up. */
	if (aifab_profile_load(&app.prof, app.args.profile, app.args.sets,
			       app.args.n_sets, err, sizeof(err)) != 0 ||
	    app_lab_check(&app.prof, app.args.sets, app.args.n_sets, err,
			  sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-aifab: %s\n", err);
		return 1;
	}
	app.clock = app_clock_choose(&app.prof);
	if (app.clock == APP_CLOCK_WHOLE &&
	    (app.args.has_start_at || app.args.leader)) {
		fprintf(stderr, "dpdk-aifab: %s: [general] clock = 'virtual': "
			"one process runs the whole fabric; allowed: no "
			"--start-at or --leader (several hosts run in real "
			"time)\n", app.prof.path);
		return 1;
	}
	if (app.args.stats_interval_s < 0.05 && app.clock != APP_CLOCK_WHOLE) {
		fprintf(stderr, "dpdk-aifab: --stats-interval %g s: below 0.05 s "
			"only on the whole-process virtual clock; allowed: 0.05 "
			"to 3600 s, or [general] clock = virtual on in-memory "
			"wires\n", app.args.stats_interval_s);
		return 1;
	}
	in_eal_init = 1;
	rc = rte_eal_init(app.args.eal_argc, app.args.eal_argv);
	in_eal_init = 0;
	if (rc < 0) {
		fprintf(stderr, "dpdk-aifab: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	rc = 0;
	snprintf(app.run_dir, sizeof(app.run_dir), "%s",
		 rte_eal_get_runtime_dir());
	/* dpdk-dumpcap (a secondary process) may capture our ports. */
	if (rte_pdump_init() == 0)
		app.pdump = true;
	else
		printf("warning: packet capture (rte_pdump) unavailable: %s\n",
		       rte_strerror(rte_errno));
	printf("dpdk-aifab: profile %s (%s), %u lcores\n", app.prof.name,
	       app.prof.path, rte_lcore_count());
	printf("clock: %s\n", app_clock_describe(app.clock));
	app.mh = app_mh_new(&app.args, &app.prof);
	if (app.mh == NULL) {
		fprintf(stderr, "dpdk-aifab: out of memory\n");
		if (app.pdump)
			rte_pdump_uninit();
		rte_eal_cleanup();
		aifab_eal_remove_runtime_dir(app.run_dir);
		return 1;
	}
	if (app_start(&app, err, sizeof(err)) != 0 ||
	    app_launch(&app, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-aifab: %s\n", err);
		__atomic_store_n(&app.quit, 1, __ATOMIC_RELAXED);
		rte_eal_mp_wait_lcore();
		app_telemetry_stop(app.stats);
		app_capture_stop(app.cap);
		app_vclock_free(app.vc);
		app_ports_close(&app.env);
		app_pipes_fini(&app);
		app_stats_free(app.stats);
		app_pools_free();
		app_mh_free(app.mh);
		if (app.pdump)
			rte_pdump_uninit();
		rte_eal_cleanup();
		aifab_eal_remove_runtime_dir(app.run_dir);
		return 1;
	}
	end = app_loop(&app, &elapsed);
	rc = app_finish(&app, end, elapsed);
	app_mh_free(app.mh);
	/* several servers: the collective could not run here */
	if (end == APP_END_START_TIMEOUT || end == APP_END_REFUSED)
		rc = -1;
	if (app.pdump)
		rte_pdump_uninit();
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(app.run_dir);
	app_args_free(&app.args);
	return rc == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-aifab application shell: shared declarations of app/ files. */
#ifndef AIFAB_APP_H
#define AIFAB_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_config.h>

#include "aifab_pipeline.h"
#include "aifab_profile.h"

/** A set of profile ports, one bit each (e.g. the generator's). */
struct app_portset {
	uint64_t b[AIFAB_MAX_PORTS / 64];
};

static inline bool
app_portset_has(const struct app_portset *s, unsigned int i)
{
	return (s->b[i >> 6] >> (i & 63)) & 1;
}

static inline void
app_portset_add(struct app_portset *s, unsigned int i)
{
	s->b[i >> 6] |= UINT64_C(1) << (i & 63);
}

/**
 * A report sink that hands a pipeline's port indices on as the app's:
 * a switch instance of a big fabric sees only its own ports, indexed
 * from 0 (struct aifab_env); port i is the app's @p map[i].
 */
struct app_mapped_sink {
	struct aifab_report_sink sink;   /**< give this to ops->report */
	const struct aifab_report_sink *to;
	const uint16_t *map;
	unsigned int n_map;
};
/** Fill @p ms; with @p map NULL, @p ms->sink is @p to itself. */
void app_mapped_sink_init(struct app_mapped_sink *ms,
			  const struct aifab_report_sink *to,
			  const uint16_t *map, unsigned int n_map);

#define APP_MAX_SETS 256
#define APP_DEMO_REPORT "dpdk-aifab-report.json" /* demo, no --report-json */
#define APP_MAX_EAL_ARGS 256
#define APP_ERR_LEN AIFAB_ERR_LEN

/** Command line, split into EAL and app parts. */
struct app_args {
	int eal_argc;
	char *eal_argv[APP_MAX_EAL_ARGS];  /**< handed to EAL, which reorders it */
	char *eal_owned[APP_MAX_EAL_ARGS]; /**< the same strings, for freeing */
	bool eal_given;             /**< the user passed EAL options */
	const char *profile;        /**< NULL: the embedded default */
	char profile_path[PATH_MAX]; /**< --profile FILE|NAME, found */
	const char *sets[APP_MAX_SETS];
	char lab_set[64];             /* --lab NAME as a --set */
	char clock_set[64];           /* --clock KIND as a --set */
	unsigned int n_sets;
	double duration_s;          /**< 0: until input is consumed or a signal */
	const char *report_json;
	const char *capture_dir;    /**< --capture: TX pcaps with our clock */
	bool quiet;
	const char *prometheus;     /**< --prometheus: text exposition file */
	const char *stats_jsonl;    /**< --stats-jsonl: one object per interval */
	const char *report_html;    /**< --report-html: charts, one page */
	double stats_interval_s;    /**< console/file interval (default 1) */
	bool stats_interval_given;  /**< --stats-interval was given */
	/** ethdev names whose RX is a pcap file: the run can end by itself */
	unsigned int n_finite;
	char finite[RTE_MAX_ETHPORTS][64];
	/* several servers, one collective (app/multihost.c) */
	char host_set[96];          /**< --host NAME as a --set */
	bool has_start_at;          /**< --start-at given */
	int64_t start_at_ns;        /**< its instant, CLOCK_REALTIME ns */
	bool leader;                /**< --leader */
	double start_timeout_s;     /**< --start-timeout (default 30) */
};

/** Parse argv. @return 0 to run, 1 to exit 0 (help/version), -1 on error. */
int app_args_parse(int argc, char **argv, struct app_args *a);
void app_args_free(struct app_args *a);
void app_usage(FILE *f, const char *prog);

/* profiles.c: shipped profiles by name (--profile NAME, --list-profiles). */
/**
 * @p arg as given to --profile: an existing file or a path as it is, else
 * a shipped profile's file. @return 0 with @p path, or -1 with @p err
 * naming every directory searched.
 */
int app_profile_find(const char *arg, char *path, size_t len, char *err,
		     size_t errlen);
/** Print every shipped profile's name and first comment line. */
int app_profiles_list(FILE *f);

/**
 * Bind profile ports: in-memory cables ([port.X] wire) to ring pairs (no
 * ethdev), the others to ethdevs (at most RTE_MAX_ETHPORTS); create
 * pools, configure and start the ethdevs: @p n_workers queue pairs on
 * switch ports, one on ports in @p gen. env->ports is allocated here and
 * lives until app_pools_free().
 */
int app_ports_setup(const struct aifab_profile *prof,
		    const struct app_args *args, unsigned int n_workers,
		    const struct app_portset *gen, struct aifab_env *env,
		    char *err, size_t errlen);

/** Port @p i's in-memory cable for the virtual clock: the ring it
 * transmits into, the ring its peer receives from, and the peer (both
 * NULL when @p i is not wired). */
struct rte_ring;
void app_ports_wire(unsigned int i, struct rte_ring **tx,
		    struct rte_ring **peer_rx, unsigned int *peer);

/* vclock.c: [general] clock, and the one virtual clock. */
#define APP_VCLOCK_HZ 1000000000ull /* `now` in nanoseconds */
enum app_clock {
	APP_CLOCK_REALTIME,         /**< the TSC */
	APP_CLOCK_PCAP,             /**< the switch's pcap timestamps */
	APP_CLOCK_WHOLE,            /**< one discrete-event loop, in memory */
};
/** Which clock @p p runs: clock = virtual on a profile with pcap (or
 * NIC) ports is the switch's pcap time (sets virtual_time). */
enum app_clock app_clock_choose(struct aifab_profile *p);
/** After app_clock_choose(): the whole-process virtual clock runs (a
 * question of the profile alone: ports.c asks it below app/vclock.c). */
static inline bool
app_clock_whole(const struct aifab_profile *p)
{
	return p->clock == AIFAB_CLOCK_VIRTUAL && !p->virtual_time;
}
/** One line for the console banner. */
const char *app_clock_describe(enum app_clock c);
struct app_vclock;
struct aifab_stats_block;
/** A port's transmitter on the virtual clock: busy one frame after
 * another at its speed. */
struct app_serial {
	uint32_t mbps;
	uint32_t frac;              /**< and this many 1/mbps of a ns */
	uint64_t free_ns;           /**< busy until */
	/* The last frame length + 1 (0: none) and its wire time in whole
	 * ns and 1/mbps: frames of a run are mostly one size, and a 64-bit
	 * division per frame and hop is not free. Zero-initialise. */
	uint32_t len1, r;
	uint64_t q;
};
/** A frame of @p len bytes handed over at @p t: when its serialization
 * starts (max(t, free); exact, the fraction of a ns carried; an idle
 * transmitter starts on a whole ns). free_ns is then its end. */
uint64_t app_serial_start(struct app_serial *s, uint64_t t, uint32_t len);
/** The loop and the wires of every in-memory cable (after ports). */
struct app_vclock *app_vclock_new(const struct aifab_env *env,
				  const struct aifab_profile *prof,
				  char *err, size_t errlen);
/** Owners of ports for app_vclock_add(): a switch instance (its index in
 * the profile's switches), the generator side (the generator, a lab
 * recipe, trace replay: the generator's ports), or not known. */
#define APP_VC_OWNER_GEN (-2)
#define APP_VC_OWNER_ANY (-1)
/** Poll worker @p w of @p ops/@p st, in the order of the calls. @p owner:
 * whose ports it receives from and transmits on (APP_VC_OWNER_*, or a
 * switch instance), so the loop polls it when a frame reaches one of
 * them (APP_VC_OWNER_ANY: any frame wakes it). */
void app_vclock_add(struct app_vclock *vc,
		    const struct aifab_pipeline_ops *ops, void *st,
		    unsigned int w, struct aifab_stats_block *blk,
		    int owner);
void app_vclock_set_lcore_block(struct app_vclock *vc,
				struct aifab_stats_block *b);
/** Jump to the next event and run it. false: nothing will ever happen. */
bool app_vclock_step(struct app_vclock *vc);
uint64_t app_vclock_now(const struct app_vclock *vc);
/** The loop is over: its CPU time stops (app_vclock_counts()). */
void app_vclock_stop(struct app_vclock *vc);
/** Steps run, frames the wires delivered (frame-hops), workers' polls
 * and the CPU time of the loop's thread from the first step to
 * app_vclock_stop(), ns (a figure of the machine, not of the model: a
 * loaded machine stretches wall time, much less this). */
void app_vclock_counts(const struct app_vclock *vc, uint64_t *steps,
		       uint64_t *hops, uint64_t *polls, uint64_t *cpu_ns);
/** Frees what is still on the wires (before the ports close). */
void app_vclock_free(struct app_vclock *vc);

/* pipes.c: which pipelines, where. */
int app_gen_port_mask(const struct aifab_profile *p,
		      struct app_portset *mask, char *err, size_t errlen);
int app_switch_lcores(const struct aifab_profile *p, unsigned int cap,
		      unsigned int *ids, char *err, size_t errlen);
/** The generator's lcores ([generator] lcores; default: the last worker
 * lcore) into @p ids (AIFAB_MAX_WORKERS): how many, or -1 with @p err. */
int app_gen_lcores(const struct aifab_profile *p, unsigned int *ids,
		   char *err, size_t errlen);
/** Generator workers: one per [generator] lcores entry (at least 1); the
 * generator's ports get that many TX (and RX) queues. */
unsigned int app_gen_workers(const struct aifab_profile *p);
struct app_mh;
/** The collective generator; @p mh (NULL: none) adds host and start. */
void *app_gen_create(const struct aifab_profile *prof,
		     const struct aifab_env *env, const struct app_mh *mh,
		     char *err, size_t errlen);
/**
 * The [generator] pipeline: trace replay when [generator] trace is set,
 * else the collective generator (app_gen_create()). Returns its state and
 * sets @p ops to its ops table; @p gen to the same state when it is the
 * collective generator (for aifab_gen_summary()), else NULL.
 */
void *app_traffic_create(const struct aifab_profile *prof,
			 const struct aifab_env *env,
			 const struct aifab_pipeline_ops **ops, void **gen,
			 const struct app_mh *mh, char *err, size_t errlen);
/** Whether the profile runs a lab recipe ([lab] recipe is not "none"). */
bool app_lab_on(const struct aifab_profile *prof);
/**
 * [lab] recipe names a recipe of the lab's table (or "none"); else -1 with
 * @p err as the profile loader words it ("<file or --set>: [lab] recipe =
 * 'x': unknown value; allowed: none, ecmp, ...").
 */
int app_lab_check(const struct aifab_profile *prof, const char *const *sets,
		  unsigned int n_sets, char *err, size_t errlen);
/** The [lab] recipe's pipeline (pipelines/lab/lab.h); NULL with @p err. */
void *app_lab_create(const struct aifab_profile *prof,
		     const struct aifab_env *env, char *err, size_t errlen);
/** Stop and close every port of @p env (flushes pcap writers). */
void app_ports_close(struct aifab_env *env);
/** Mbufs still taken from the app's pools. */
unsigned int app_pools_in_use(void);
/**
 * Mbufs still taken from every mempool of the process: the app's and the
 * pipelines' (at exit, after fini, a pipeline pool exists only when some
 * of its mbufs did not come back). mempool_in_use_at_exit.
 */
unsigned int app_mempools_in_use(void);
void app_pools_free(void);
/** How many workers every port can give a TX queue to (>= 1). */
unsigned int app_ports_max_workers(const struct aifab_profile *prof,
				   const struct app_args *args);

/** Why a run ended. */
enum app_end {
	APP_END_CONSUMED,
	APP_END_DURATION,
	APP_END_SIGNAL,
	APP_END_START_TIMEOUT,      /**< several servers: see multihost.c */
	APP_END_REFUSED,            /**< a leader's profile differs */
};

/* multihost.c: one collective over several servers (struct app_mh). */
#define APP_MH_START_TIMEOUT_S 30.0
/** --start-at TIME: ISO 8601 (local time, or Z / +hh:mm) or +SECONDS
 * from @p now_ns. @return 0, or -1 with a line on stderr. */
int app_mh_parse_time(const char *s, int64_t now_ns, int64_t *out);
/** CLOCK_REALTIME in ns. */
int64_t app_mh_wall_ns(void);
struct aifab_gen_params;
/** The start of a run: wall clock and TSC sampled together, options. */
struct app_mh *app_mh_new(const struct app_args *a,
			  const struct aifab_profile *prof);
void app_mh_free(struct app_mh *mh);
/** Host, start and digest into the generator's params. */
void app_mh_gen_params(const struct app_mh *mh,
		       struct aifab_gen_params *gp);
/** The generator runs (or NULL): lines about the start to come. */
void app_mh_started(struct app_mh *mh, void *gen, uint64_t now);
/** Main loop, every turn: re-arms --start-at, watches the start and the
 * other hosts; true with @p end set when the run must stop. */
bool app_mh_tick(struct app_mh *mh, uint64_t now, enum app_end *end);
/** After the run: a line on what was missing; the report's
 * "multihost" object as JSON text (malloc'd; NULL if no generator). */
void app_mh_finish(struct app_mh *mh, enum app_end end, FILE *f);
char *app_mh_json(struct app_mh *mh);

struct app_report;
struct app_report *app_report_new(const struct aifab_env *env);
const struct aifab_report_sink *app_report_sink(struct app_report *r);
void app_report_set_counters(struct app_report *r,
			     const struct aifab_port_counters *c);
struct aifab_gen_summary;
/** A few lines on what this run's PFC, ECN, ECMP and loss counters say. */
void app_report_explain(const struct app_report *r, FILE *f);
/** The "multihost" object (JSON text, taken over; app_mh_json()). */
void app_report_multihost(struct app_report *r, char *json);
/** Keep the lab recipe's results (rendered now: the pipeline goes first). */
void app_report_lab(struct app_report *r, const void *lab);
/** The generator's results (nccl-tests figures) for the JSON report. */
void app_report_generator(struct app_report *r,
			  const struct aifab_gen_summary *s);
/** One lcore's load: polls that handled packets (busy) and the others. */
void app_report_lcore(struct app_report *r, unsigned int lcore,
		      uint64_t busy_cycles, uint64_t idle_cycles,
		      uint64_t busy_polls, uint64_t idle_polls,
		      uint64_t packets);
/** The whole-process virtual clock's end time (ns), steps, frame-hops. */
void app_report_vclock(struct app_report *r, uint64_t now_ns, uint64_t steps,
		       uint64_t hops);
/** Write the JSON report. @return 0, or -1 with errno. */
int app_report_write_json(const struct app_report *r, const char *path,
			  const struct aifab_profile *prof, double elapsed_s,
			  enum app_end end, unsigned int mbufs_in_use);
/** Print the end-of-run table. */
void app_report_print(const struct app_report *r, FILE *f);
void app_report_free(struct app_report *r);

const char *app_end_name(enum app_end e);

struct app_capture;
/** Start capturing every port's TX into @p dir (before workers run). */
struct app_capture *app_capture_start(const struct aifab_env *env,
				      const char *dir, char *err,
				      size_t errlen);
/** Stop and close the captures (after workers stopped). NULL is fine.
 * @return 0, or -errno when a file could not be written whole (a full
 * disk): said on stderr, its frames after the failure lost. */
int app_capture_stop(struct app_capture *cap);
/** The whole-process virtual clock runs: stamp each frame with the
 * instant its serialization starts on its port (as the wire does). */
void app_capture_set_vclock(struct app_capture *cap,
			    const struct app_vclock *vc);

/* export.c: live statistics (console, files, telemetry, HTML report). */
#define APP_MAX_PIPES (AIFAB_MAX_SWITCHES + 2)
struct app_stats;
struct aifab_stats_block;
struct app_stats *app_stats_new(const struct app_args *a,
				const struct aifab_env *env);
/** Export a running pipeline (its ops->stats set, if any); @p map
 * (NULL: none) its ports' app indices (struct app_pipe). */
int app_stats_add_pipe(struct app_stats *s,
		       const struct aifab_pipeline_ops *ops, void *st,
		       const uint16_t *map, unsigned int n_map);
/** The generator, for its figures while it runs. */
void app_stats_set_gen(struct app_stats *s, const void *gen);
/** The lab recipe whose verdict the HTML report shows (NULL: none). */
void app_stats_set_lab(struct app_stats *s, const void *lab);
/** After the pipes: the lcores set (@p lcores ascending), first
 * snapshot, files opened. */
int app_stats_start(struct app_stats *s, const unsigned int *lcores,
		    unsigned int n, char *err, size_t errlen);
/** Before app_stats_start(): intervals count model time (the whole-
 * process virtual clock; `now` in ns from 0). */
void app_stats_model_time(struct app_stats *s);
/** Lcore @p lcore's block of the lcores set (its owner writes it). */
struct aifab_stats_block *app_stats_lcore_block(struct app_stats *s,
						unsigned int lcore);
/** One interval: read, write files, show the console. Main lcore. */
void app_stats_tick(struct app_stats *s, uint64_t now);
/** True once a console write found its reader gone (EPIPE): the run
 * stops as at a signal. */
bool app_stats_stdout_closed(const struct app_stats *s);
/** After the workers stopped: final snapshot, files, HTML report.
 * @return 0, or -errno when an output (--report-html, --stats-jsonl, the
 * last --prometheus rewrite) could not be written: said on stderr. */
int app_stats_finish(struct app_stats *s, uint64_t now);
/** Final load of @p lcore: busy/idle cycles, busy/idle polls, packets. */
void app_stats_lcore_load(const struct app_stats *s, unsigned int lcore,
			  uint64_t v[5]);
/** After app_telemetry_stop(). */
void app_stats_free(struct app_stats *s);

/* counters.c: sums of counters (below export.c and telemetry.c). */
struct aifab_stats_set;
struct aifab_stats_snap;
/** Counter @p pat ("name", or "prefix*" for every name it starts) summed
 * over @p port's instances (every instance if @p port < 0). */
uint64_t app_stats_sum(const struct aifab_stats_set *set,
		       const struct aifab_stats_snap *snap, const char *pat,
		       int port);
/** Every pipeline's rx/tx per port, summed (AIFAB_MAX_PORTS entries). */
void app_port_counters(const struct app_stats *s,
		       struct aifab_port_counters *out);

/* telemetry.c: /aifab/ rte_telemetry commands over a started app_stats. */
/** Answer the commands (registered once per process) from @p s.
 * @return 0, or a negative errno (the run goes on without them). */
int app_telemetry_start(struct app_stats *s);
/** Stop answering (before pipelines are freed); waits for a request in
 * flight. NULL or not started is fine. */
void app_telemetry_stop(struct app_stats *s);

#endif /* AIFAB_APP_H */

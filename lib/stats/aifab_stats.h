/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab stats: lcore-pinned counters and their exporters.
 *
 * A pipeline declares its counters once, as an X-macro list; the list gives
 * an enum of ids and a descriptor table (name, kind, scope, unit, help):
 *
 * @code
 * #define SW_STATS(X, p) \
 *	X(p, rx_pkts,    COUNTER, PORT,    "packets", "Packets received") \
 *	X(p, ecn_marked, COUNTER, PORT_TC, "packets", "Packets marked CE") \
 *	X(p, queue_bytes, GAUGE,  PORT_TC, "bytes",   "Egress queue depth")
 * AIFAB_STATS_ENUM(sw_stat, SW_STATS);   // sw_stat_rx_pkts, ..., sw_stat_N
 * AIFAB_STATS_DESCS(sw_stat, SW_STATS);  // sw_stat_descs[sw_stat_N]
 * @endcode
 *
 * A *set* (one per pipeline) holds one counter *block* per lcore running
 * the pipeline. A block is written only by its owner lcore with plain
 * stores (no atomics); blocks are cache-line aligned and separated by a
 * guard cache line, so no two owners share a line or an adjacent-line
 * prefetch pair. Any other thread may *read* a set at any time: it sums the
 * blocks into a *snapshot* (one uint64 per counter instance + the TSC the
 * caller says it was taken at). Every counter also gets five built-in
 * per-lcore counters (busy/idle cycles and polls, packets), fed by
 * aifab_stats_account() once per poll.
 *
 * Scope says how many instances a counter has: GLOBAL 1; PORT one per port;
 * PORT_TC and PORT_PRIO n_tcs per port (port-major); LCORE one per block
 * (kept apart in snapshots, not summed). Gauges are summed like counters,
 * so each gauge instance should be written by one block only.
 *
 * Exporters are pure functions of (set, snapshot): Prometheus text format,
 * JSON lines, rte_telemetry dicts, a console table and a self-contained
 * HTML report over a history of snapshots. None reads a clock.
 *
 * Conventional counter names used by the console and the report's default
 * charts (absent ones are skipped): rx_pkts, rx_bytes, tx_pkts, tx_bytes
 * (PORT), drop_* (any scope with a port), ecn_marked, pfc_tx, pfc_rx,
 * pfc_paused_cycles (PORT or PORT_PRIO), queue_bytes (gauge, PORT_TC).
 * Names are [a-z][a-z0-9_]*, without "aifab_" and without "_total" (the
 * Prometheus exporter adds both); use base units (bytes, cycles, packets).
 *
 * Threads: create/free/telemetry registration are control-plane calls;
 * aifab_stats_inc() & co. only on the block's owner; aifab_stats_read()
 * from any thread.
 */
#ifndef AIFAB_STATS_H
#define AIFAB_STATS_H

#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a counter is. */
enum aifab_stats_kind {
	AIFAB_STATS_COUNTER, /**< only grows; exported as a rate or _total */
	AIFAB_STATS_GAUGE,   /**< a level (queue depth); exported as is */
};

/** How many instances a counter has; see the file comment. */
enum aifab_stats_scope {
	AIFAB_STATS_GLOBAL,
	AIFAB_STATS_PORT,
	AIFAB_STATS_PORT_TC,
	AIFAB_STATS_PORT_PRIO,
	AIFAB_STATS_LCORE,
};

/** One counter's descriptor. */
struct aifab_stats_desc {
	const char *name;  /**< [a-z][a-z0-9_]*, at most 63 chars */
	enum aifab_stats_kind kind;
	enum aifab_stats_scope scope;
	const char *unit;  /**< "packets", "bytes", "cycles" ... */
	const char *help;  /**< one line of help text */
};

/** @internal X-macro helpers. */
#define AIFAB_STATS_X_ENUM_(p, name, kind, scope, unit, help) p##_##name,
#define AIFAB_STATS_X_DESC_(p, name, kind, scope, unit, help) \
	{ #name, AIFAB_STATS_##kind, AIFAB_STATS_##scope, unit, help },

/** Declare `enum pfx { pfx_<name>..., pfx_N }` from an X-macro list. */
#define AIFAB_STATS_ENUM(pfx, LIST) \
	enum pfx { LIST(AIFAB_STATS_X_ENUM_, pfx) pfx##_N }

/** Define `static const struct aifab_stats_desc pfx_descs[pfx_N]`. */
#define AIFAB_STATS_DESCS(pfx, LIST) \
	static const struct aifab_stats_desc pfx##_descs[] __rte_unused = { \
		LIST(AIFAB_STATS_X_DESC_, pfx) }

/** Built-in per-lcore counters, at the start of every block. */
#define AIFAB_STATS_BUILTINS(X, p) \
	X(p, lcore_busy_cycles, COUNTER, LCORE, "cycles", \
	  "TSC cycles spent in polls that handled packets") \
	X(p, lcore_idle_cycles, COUNTER, LCORE, "cycles", \
	  "TSC cycles spent in polls that found nothing") \
	X(p, lcore_busy_polls, COUNTER, LCORE, "polls", \
	  "Polls that handled at least one packet") \
	X(p, lcore_idle_polls, COUNTER, LCORE, "polls", \
	  "Polls that found nothing") \
	X(p, lcore_poll_pkts, COUNTER, LCORE, "packets", \
	  "Packets handled by polls (divide by busy polls: packets per poll)")
AIFAB_STATS_ENUM(aifab_stats_bi, AIFAB_STATS_BUILTINS);

/** Most ports a set may have. */
#define AIFAB_STATS_MAX_PORTS 4096
/** Most blocks (lcores) a set may have. */
#define AIFAB_STATS_MAX_BLOCKS 128

/** Parameters of aifab_stats_create(). Everything is copied. */
struct aifab_stats_params {
	const char *name;    /**< set name: [a-z0-9_]*, may be "" */
	const struct aifab_stats_desc *descs; /**< the pipeline's list */
	unsigned int n_descs;
	unsigned int n_ports;  /**< 1..AIFAB_STATS_MAX_PORTS */
	const char *const *port_names; /**< n_ports labels; NULL: "0", "1".. */
	unsigned int n_tcs;    /**< per port of PORT_TC/PRIO: 1..8; 0: 8 */
	unsigned int n_blocks; /**< lcores: 1..AIFAB_STATS_MAX_BLOCKS */
	const unsigned int *block_lcore; /**< lcore id label per block; NULL:
					   0, 1 .. */
	uint64_t tsc_hz;       /**< TSC frequency (rates, time axes) */
};

/**
 * One lcore's counters: header, then the values. Written only by its
 * owner; the fields are for the inline helpers below.
 */
struct aifab_stats_block {
	const uint32_t *off;  /**< value index of each counter (shared, r/o) */
	uint32_t n_tcs;
	uint32_t n_values;
	uint64_t v[];         /**< built-ins first, then the pipeline's */
} __rte_cache_aligned;

struct aifab_stats_set;

/** A snapshot: every instance's value, summed over blocks, at @p tsc. */
struct aifab_stats_snap {
	uint64_t tsc;   /**< time the reader says it read, in TSC cycles */
	uint32_t n;     /**< number of values */
	uint64_t v[];
};

/* ---- hot path (owner lcore only) ---- */

/** Add @p n to a GLOBAL or LCORE counter. */
static inline void
aifab_stats_add(struct aifab_stats_block *b, unsigned int id, uint64_t n)
{
	b->v[b->off[id]] += n;
}

/** Add 1 to a GLOBAL or LCORE counter. */
static inline void
aifab_stats_inc(struct aifab_stats_block *b, unsigned int id)
{
	b->v[b->off[id]]++;
}

/** Add @p n to a PORT counter. */
static inline void
aifab_stats_add_port(struct aifab_stats_block *b, unsigned int id,
		     uint16_t port, uint64_t n)
{
	b->v[b->off[id] + port] += n;
}

/** Add @p n to a PORT_TC or PORT_PRIO counter. */
static inline void
aifab_stats_add_tc(struct aifab_stats_block *b, unsigned int id,
		   uint16_t port, uint8_t tc, uint64_t n)
{
	b->v[b->off[id] + (uint32_t)port * b->n_tcs + tc] += n;
}

/**
 * Set a gauge instance (@p inst: 0 for GLOBAL/LCORE, port for PORT,
 * port * n_tcs + tc for PORT_TC/PRIO).
 */
static inline void
aifab_stats_gauge(struct aifab_stats_block *b, unsigned int id,
		  uint32_t inst, uint64_t val)
{
	b->v[b->off[id] + inst] = val;
}

/**
 * Account one poll: @p cycles it took, @p pkts it handled (0: idle poll).
 * Call once per poll of the pipeline, with the TSC delta the loop measured.
 */
static inline void
aifab_stats_account(struct aifab_stats_block *b, uint64_t cycles,
		    uint32_t pkts)
{
	if (pkts != 0) {
		b->v[aifab_stats_bi_lcore_busy_cycles] += cycles;
		b->v[aifab_stats_bi_lcore_busy_polls]++;
		b->v[aifab_stats_bi_lcore_poll_pkts] += pkts;
	} else {
		b->v[aifab_stats_bi_lcore_idle_cycles] += cycles;
		b->v[aifab_stats_bi_lcore_idle_polls]++;
	}
}

/* ---- sets and snapshots (control plane / readers) ---- */

/**
 * Create a set: validate the descriptors and allocate zeroed blocks.
 * Memory: n_blocks x (values x 8 bytes rounded up to a cache line, + one
 * guard line) + the layout tables.
 * @return the set, or NULL with rte_errno: EINVAL (bad name, scope, kind,
 *   duplicate counter name, counts out of range), ENOMEM.
 */
struct aifab_stats_set *aifab_stats_create(const struct aifab_stats_params *p);

/** Free a set (NULL is fine). Unregister it from telemetry first. */
void aifab_stats_free(struct aifab_stats_set *set);

/** Block @p idx (0..n_blocks-1), for its owner lcore; NULL if out of range. */
struct aifab_stats_block *aifab_stats_block(struct aifab_stats_set *set,
					    unsigned int idx);

/**
 * Number of counters: the pipeline's ids 0..n_descs-1 come first, then
 * the AIFAB_STATS_BUILTINS (id n_descs + aifab_stats_bi_*).
 */
unsigned int aifab_stats_n_counters(const struct aifab_stats_set *set);

/** Descriptor of counter @p id (NULL if out of range). */
const struct aifab_stats_desc *
aifab_stats_desc(const struct aifab_stats_set *set, unsigned int id);

/** Id of the counter named @p name, or -1. */
int aifab_stats_find(const struct aifab_stats_set *set, const char *name);

/** Number of instances of counter @p id in a snapshot. */
unsigned int aifab_stats_n_instances(const struct aifab_stats_set *set,
				     unsigned int id);

/** Value of instance @p inst of counter @p id in @p snap. */
uint64_t aifab_stats_value(const struct aifab_stats_set *set,
			   const struct aifab_stats_snap *snap,
			   unsigned int id, unsigned int inst);

/**
 * Port index of an instance (PORT, PORT_TC, PORT_PRIO scopes), or -1.
 * TC/priority of an instance is inst % n_tcs for PORT_TC/PORT_PRIO.
 */
int aifab_stats_instance_port(const struct aifab_stats_set *set,
			      unsigned int id, unsigned int inst);

/** Set name, port @p i's name, n_ports, n_tcs, n_blocks, tsc_hz. */
const char *aifab_stats_name(const struct aifab_stats_set *set);
const char *aifab_stats_port_name(const struct aifab_stats_set *set,
				  unsigned int i);
unsigned int aifab_stats_n_ports(const struct aifab_stats_set *set);
unsigned int aifab_stats_n_tcs(const struct aifab_stats_set *set);
unsigned int aifab_stats_n_blocks(const struct aifab_stats_set *set);
uint64_t aifab_stats_tsc_hz(const struct aifab_stats_set *set);

/**
 * Allocate a zeroed snapshot sized for @p set.
 * @return it, or NULL with rte_errno ENOMEM.
 */
struct aifab_stats_snap *
aifab_stats_snap_alloc(const struct aifab_stats_set *set);

/** Free a snapshot (NULL is fine). */
void aifab_stats_snap_free(struct aifab_stats_snap *snap);

/** Copy @p src into @p dst (same set). */
void aifab_stats_snap_copy(struct aifab_stats_snap *dst,
			   const struct aifab_stats_snap *src);

/**
 * Sum the blocks into @p snap, stamping it with @p tsc. Safe while the
 * owners write: each value is read once with a relaxed 64-bit load, so
 * successive reads never go backwards.
 */
void aifab_stats_read(const struct aifab_stats_set *set,
		      struct aifab_stats_snap *snap, uint64_t tsc);

/* ---- history of snapshots (for the report) ---- */

struct aifab_stats_hist;

/**
 * A bounded history: keeps at most @p capacity (even, >= 4) snapshots
 * spread over the whole run. When full it drops every other one and from
 * then keeps every 2nd push (then 4th ...). The latest push is always kept.
 * @return it, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct aifab_stats_hist *
aifab_stats_hist_create(const struct aifab_stats_set *set,
			unsigned int capacity);

/** Free a history (NULL is fine). */
void aifab_stats_hist_free(struct aifab_stats_hist *h);

/** Copy @p snap (newer than the previous push) into the history. */
void aifab_stats_hist_push(struct aifab_stats_hist *h,
			   const struct aifab_stats_snap *snap);

/** Number of snapshots held, oldest first. */
unsigned int aifab_stats_hist_count(const struct aifab_stats_hist *h);

/** Snapshot @p i (0: oldest), or NULL. */
const struct aifab_stats_snap *
aifab_stats_hist_get(const struct aifab_stats_hist *h, unsigned int i);

/** The set a history belongs to. */
const struct aifab_stats_set *
aifab_stats_hist_set(const struct aifab_stats_hist *h);

/* ---- exporters ---- */

/** A set with one of its snapshots, for exporters taking several sets. */
struct aifab_stats_view {
	const struct aifab_stats_set *set;
	const struct aifab_stats_snap *snap;
};

/**
 * Write Prometheus text exposition format (0.0.4): per counter a HELP and a
 * TYPE line, then one sample per instance. Metric name:
 * aifab_[<set>_]<name>, plus _total for counters; labels port, tc,
 * priority, lcore. Also aifab_tsc_hz (gauge, once). No timestamps (the
 * node_exporter textfile collector rejects them). Sets must not produce
 * the same metric name twice.
 * @return 0, or -EIO on a write error.
 */
int aifab_stats_prom_write(FILE *f, const struct aifab_stats_view *v,
			   unsigned int n);

/**
 * aifab_stats_prom_write() into @p path atomically: write "<path>.tmp",
 * fsync, rename over @p path.
 * @return 0, or -errno (the temp file is removed).
 */
int aifab_stats_prom_write_file(const char *path,
				const struct aifab_stats_view *v,
				unsigned int n);

/**
 * Write one JSON object and a newline for an interval:
 * {"time":@p time_s,"tsc":..,"set":"sw","counters":{...}} where GLOBAL
 * counters are numbers, PORT counters {"<port>":n,...}, PORT_TC/PRIO
 * {"<port>":[n per tc],...}, LCORE {"<lcore>":n,...}.
 * @param time_s  the caller's timestamp (e.g. seconds since the epoch).
 * @return 0, or -EIO.
 */
int aifab_stats_jsonl_write(FILE *f, const struct aifab_stats_set *set,
			    const struct aifab_stats_snap *snap,
			    double time_s);

struct aifab_json;

/**
 * The object of aifab_stats_jsonl_write() as a value of the lib/json
 * document @p j, under @p key (NULL inside an array or at the top level),
 * to embed a set in another JSON object. Errors are @p j's.
 */
void aifab_stats_json_set(struct aifab_json *j, const char *key,
			  const struct aifab_stats_set *set,
			  const struct aifab_stats_snap *snap, double time_s);

/**
 * Only its "counters" object, likewise under @p key in @p j.
 */
void aifab_stats_json_counters(struct aifab_json *j, const char *key,
			       const struct aifab_stats_set *set,
			       const struct aifab_stats_snap *snap);

struct rte_tel_data;

/**
 * Add @p n u64 values to telemetry dict @p d as the array @p name.
 * @return 0, -E2BIG (more than RTE_TEL_MAX_ARRAY_ENTRIES), -ENOMEM, or
 *         rte_telemetry's error.
 */
int aifab_stats_tel_u64s(struct rte_tel_data *d, const char *name,
			 const uint64_t *v, unsigned int n);

/**
 * Fill a telemetry reply for @p set: with no @p params a dict of "tsc",
 * "ports" (string array), "lcores" (int array) and per counter a u64
 * (GLOBAL) or a u64 array (other scopes; PORT_TC/PRIO port-major). With
 * @p params naming a counter, a dict of its instances: "value" (GLOBAL),
 * "<port>" -> u64 (PORT) or u64 array per TC (PORT_TC/PRIO),
 * "lcore_<id>" -> u64 (LCORE); port names with characters telemetry
 * rejects in keys get '_' there. DPDK 22.11 replies are at most 16 KB:
 * larger ones lose entries, so big sets are better read per counter.
 * @return 0, -ENOENT (unknown counter), -E2BIG (over telemetry's limits),
 *   -ENOMEM.
 */
int aifab_stats_telemetry_fill(const struct aifab_stats_set *set,
			       const struct aifab_stats_snap *snap,
			       const char *params, struct rte_tel_data *d);

/**
 * Register telemetry command "/aifab/<set name>" (set name must be non
 * empty, command < 56 chars). Each request sums the set's blocks in the
 * telemetry thread. DPDK 22.11 callbacks get no user pointer, so the lib
 * keeps one static table of (command, set) behind a mutex: the only
 * global. Commands stay registered with DPDK for the process's life;
 * after unregister they answer null.
 * @param now_fn stamps each reply's "tsc" (e.g. a wrapper of rte_rdtsc());
 *               NULL: 0. The lib itself reads no clock.
 * @return 0, or -EINVAL, -ENOSPC (table full), -EEXIST, or the error of
 *   rte_telemetry_register_cmd().
 */
int aifab_stats_telemetry_register(const struct aifab_stats_set *set,
				   uint64_t (*now_fn)(void));

/** Stop serving @p set (waits for a request in flight). */
void aifab_stats_telemetry_unregister(const struct aifab_stats_set *set);

/** Console column formats. */
enum aifab_stats_col_fmt {
	AIFAB_STATS_COL_MPPS,   /**< delta / dt / 1e6 */
	AIFAB_STATS_COL_GBPS,   /**< bytes: delta * 8 / dt / 1e9 */
	AIFAB_STATS_COL_DELTA,  /**< delta over the interval */
	AIFAB_STATS_COL_TOTAL,  /**< value in the newer snapshot */
	AIFAB_STATS_COL_MS,     /**< cycles: delta in milliseconds */
};

/** A console column: a counter (or "prefix*": sum of those) per port. */
struct aifab_stats_col {
	const char *title;   /**< up to 10 chars */
	const char *counter;
	enum aifab_stats_col_fmt fmt;
};

/**
 * Print a table, one row per port (instances of PORT_TC/PRIO counters
 * summed per port), then one row per lcore (busy %, packets per poll).
 * Columns whose counter the set lacks print "-".
 * @param a, b    older and newer snapshot of @p set.
 * @param cols    columns, or NULL for the default: rx/tx Mpps and Gb/s,
 *                drops, ECN marks, PFC tx/rx, paused ms.
 * @return 0, or -EINVAL (b not newer than a), -EIO.
 */
int aifab_stats_console(FILE *f, const struct aifab_stats_set *set,
			const struct aifab_stats_snap *a,
			const struct aifab_stats_snap *b,
			const struct aifab_stats_col *cols, unsigned int n_cols);

/** aifab_stats_console() for the ports whose bit is set in @p ports. */
int aifab_stats_console_ports(FILE *f, const struct aifab_stats_set *set,
			      const struct aifab_stats_snap *a,
			      const struct aifab_stats_snap *b,
			      const struct aifab_stats_col *cols,
			      unsigned int n_cols, uint64_t ports);

/** How a chart groups instances into series. */
enum aifab_stats_split {
	AIFAB_STATS_SPLIT_INSTANCE, /**< one series per instance */
	AIFAB_STATS_SPLIT_PORT,     /**< one per port (TCs summed) */
	AIFAB_STATS_SPLIT_NONE,     /**< one: everything summed */
};

/**
 * A report chart: counter (or "prefix*") series over time: for counters
 * the rate (delta / dt per second), for gauges the value, times @p scale.
 * All-zero series are left out.
 */
struct aifab_stats_chart {
	const char *title;
	const char *counter;
	double scale;        /**< e.g. 8e-9: bytes/s -> Gb/s; 0 means 1 */
	const char *unit;    /**< y axis label */
	enum aifab_stats_split split;
};

/**
 * Write a self-contained HTML page (inline SVG, no scripts, no external
 * resources): one <svg> per chart whose counter exists, each series a
 * <polyline>, then a table of final values of every counter.
 * @param charts  NULL for the default charts (throughput, queue depth,
 *                PFC, ECN, drops); charts of absent counters are skipped.
 * @return 0, -EINVAL (fewer than 2 snapshots), -ENOMEM, -EIO.
 */
int aifab_stats_html_write(FILE *f, const char *title,
			   const struct aifab_stats_hist *h,
			   const struct aifab_stats_chart *charts,
			   unsigned int n_charts);


/**
 * Smallest of 1, 2, 2.5, 5 x 10^k not below @p m (1 for m <= 0 or NaN):
 * the top of a chart's y axis.
 */
double aifab_stats_nice_ceil(double m);

/**
 * Whether a file can be made at @p path: its directory ("." when it has
 * none) exists, is a directory and may be written.
 * @param dir     receives that directory ("" if it does not fit)
 * @return 0, or -1 with errno (ENAMETOOLONG, ENOTDIR, the stat() or
 *         access() of the directory).
 */
int aifab_stats_dir_ok(const char *path, char *dir, size_t dirlen);

/**
 * Replace a file whole, so a reader (a scraper, a browser) never sees half
 * of it: open "<path>.tmp" for writing; write it; then
 * aifab_stats_file_commit(). A symbolic link to a file: its file is
 * replaced, the link kept. A path that names an open file of the process
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is written through a copy of
 * that descriptor (stdout and stderr flushed first), one that is not a
 * regular file (/dev/null, a FIFO) in place (@p tmp gets "" for both): a
 * rename would replace the node itself.
 * @param tmp     receives the temporary file's name
 * @return the stream, or NULL with errno set (ENAMETOOLONG: @p tmplen too
 *         small for "<path>.tmp").
 */
FILE *aifab_stats_file_open(const char *path, char *tmp, size_t tmplen);

/**
 * Whether aifab_stats_file_open() could write @p path now, by the same
 * rules, without touching it: a run checks its outputs before it starts,
 * not when its report is due. An open file of the process must be open
 * for writing, a FIFO or device writable; a file replaced whole needs a
 * directory we may write (the link's file's, for a link).
 * @param dir     receives the directory at fault, "" when it is @p path
 *                itself
 * @return 0, or -1 with errno (EISDIR: @p path is a directory; EBADF: a
 *         descriptor open read-only; else the directory's or node's).
 */
int aifab_stats_file_check(const char *path, char *dir, size_t dirlen);

/**
 * Finish a file opened by aifab_stats_file_open(): flush and fsync it,
 * close it and rename the temporary @p tmp over its file; the temporary
 * is removed instead when @p rc (the writer's result) or any of these
 * steps failed. A file written in place (@p tmp "") is flushed and closed.
 * @return @p rc if it was an error, else 0 or -errno of the first failure;
 *         a write that failed (the stream's error; @p rc 0 or -EIO) gives
 *         the errno it left (ENOSPC on a full disk), -EIO if none.
 */
int aifab_stats_file_commit(FILE *f, const char *tmp, int rc);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_STATS_H */

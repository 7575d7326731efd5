/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command line: `dpdk-aifab [EAL options] -- [app options]`. Without "--"
 * every argument is an app option. EAL defaults are supplied where the user
 * left them out, so a bare `dpdk-aifab` runs on a machine with no hugepages
 * and no NICs.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "aifab_stats.h"
#include "aifab_version.h"
#include "app.h"

enum {
	OPT_PROFILE = 256,
	OPT_SET,
	OPT_DURATION,
	OPT_REPORT_JSON,
	OPT_CAPTURE,
	OPT_QUIET,
	OPT_PROMETHEUS,
	OPT_STATS_JSONL,
	OPT_REPORT_HTML,
	OPT_STATS_INTERVAL,
	OPT_PROFILE_DOC,
	OPT_LIST_PROFILES,
	OPT_LAB,
	OPT_CLOCK,
	OPT_HELP,
	OPT_VERSION,
	/* several servers (app/multihost.c) */
	OPT_HOST,
	OPT_START_AT,
	OPT_LEADER,
	OPT_START_TIMEOUT,
};

static const struct option app_opts[] = {
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "set", required_argument, NULL, OPT_SET },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "report-json", required_argument, NULL, OPT_REPORT_JSON },
	{ "capture", required_argument, NULL, OPT_CAPTURE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
	{ "stats-jsonl", required_argument, NULL, OPT_STATS_JSONL },
	{ "report-html", required_argument, NULL, OPT_REPORT_HTML },
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	{ "profile-doc", no_argument, NULL, OPT_PROFILE_DOC },
	{ "list-profiles", no_argument, NULL, OPT_LIST_PROFILES },
	{ "lab", required_argument, NULL, OPT_LAB },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "start-at", required_argument, NULL, OPT_START_AT },
	{ "leader", no_argument, NULL, OPT_LEADER },
	{ "start-timeout", required_argument, NULL, OPT_START_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

void
app_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [EAL options] -- [options]\n"
"       %s [options]            (EAL defaults: see below)\n"
"\n"
"A software RoCEv2 AI-fabric leaf switch on DPDK.\n"
"\n"
"Options:\n"
"  --profile FILE|NAME    INI profile: a file, or a shipped profile by name\n"
"                         (demo, scenarios/loss ...; see --list-profiles);\n"
"                         default: the embedded demo profile\n"
"  --set SECTION.KEY=VAL  override one profile key; repeatable, applied in order\n"
"                         (e.g. --set port.p0.speed_gbps=25)\n"
"  --duration SECONDS     stop after this long (default: when every pcap input\n"
"                         is consumed, else at SIGINT/SIGTERM)\n"
"  --lab RECIPE           run a lab recipe against a switch under test\n"
"                         (= --set lab.recipe=RECIPE; see docs/lab.md)\n"
"  --clock KIND           realtime (the TSC: the default, and what NIC ports\n"
"                         need) or virtual (one discrete-event clock for\n"
"                         every pipeline: the demo's and scenarios' default)\n"
"                         (= --set general.clock=KIND; docs/virtual-time.md)\n"
"  --report-json FILE     write the final report as JSON (the embedded demo\n"
"                         writes " APP_DEMO_REPORT " unless told)\n"
"  --capture DIR          write every port's TX to DIR/tx_<port>.pcap, stamped\n"
"                         with the pipeline's clock (virtual time when on)\n"
"  --report-html FILE     write the report as one HTML page: charts (inline\n"
"                         SVG) of throughput, queue depth, PFC, ECN, drops and\n"
"                         the generator's collective time and busbw\n"
"  --prometheus FILE      rewrite FILE (atomically) every interval with every\n"
"                         counter in Prometheus text format\n"
"  --stats-jsonl FILE     write every counter as one JSON object per interval\n"
"  --stats-interval SECS  console and file interval (default 1); on the\n"
"                         virtual clock model time, e.g. 20us or 1ms\n"
"                         (default: about 200 samples of the collective)\n"
"  --quiet                no live console (a table on a terminal, else one\n"
"                         line per interval)\n"
"  --profile-doc          print the reference of every profile key (Markdown)\n"
"  --list-profiles        list the shipped profiles by name, with the first\n"
"                         comment line of each\n"
"  --host NAME            one collective over several servers (docs/lab.md):\n"
"                         this host emulates the rank_table's host=NAME ranks\n"
"                         (= --set general.host=NAME)\n"
"  --start-at TIME        begin iteration 0 at TIME (ISO 8601, e.g.\n"
"                         2025-06-01T12:00:00Z, or +SECONDS from now; the\n"
"                         system clock, disciplined by PTP); ports idle until\n"
"                         then\n"
"  --leader               send a start frame to every other host's ranks when\n"
"                         starting; hosts without --leader or --start-at wait\n"
"                         for it\n"
"  --start-timeout SECS   give up when no start frame came, or some host sent\n"
"                         nothing, this long after start-up / the start\n"
"                         (default 30)\n"
"  --help                 this text\n"
"  --version              print the version\n"
"\n"
"EAL defaults, each added only when the user gave none of its kind:\n"
"  --file-prefix aifab-<pid>     always, unless --file-prefix is given\n"
"  --no-huge -m 1024             when less than 1024 MB of hugepages are\n"
"                                free (or no hugetlbfs is mounted) and no\n"
"                                memory option (-m, --socket-mem,\n"
"                                --no-huge) is given\n"
"  --no-pci                      when no EAL options are given at all\n"
"\n"
"Ports are the ethdevs EAL finds (NICs or vdevs), bound to the profile's\n"
"[port.*] sections by `device` or in order. net_pcap vdevs with rx_pcap=\n"
"end the run by themselves once every input is consumed, e.g.:\n"
"  %s --vdev net_pcap0,rx_pcap=in0.pcap,tx_pcap=out0.pcap ... -- \\\n"
"      --profile pcap-leaf --report-json report.json\n"
"\n"
"While it runs: `dpdk-telemetry.py -f <file-prefix>` answers /aifab/ports,\n"
"/aifab/tc, /aifab/pfc, /aifab/ecmp, /aifab/generator, /aifab/lcores and\n"
"/aifab/sw (and DPDK's /ethdev/...); `dpdk-dumpcap --file-prefix <prefix>\n"
"-i <ethdev>` captures a port (needs hugepages: not with --no-huge).\n",
		prog, prog, prog);
}

static int
eal_push(struct app_args *a, const char *s)
{
	if (a->eal_argc >= APP_MAX_EAL_ARGS - 1) {
		fprintf(stderr, "dpdk-aifab: too many EAL arguments\n");
		return -1;
	}
	a->eal_owned[a->eal_argc] = strdup(s);
	if (a->eal_owned[a->eal_argc] == NULL)
		return -1;
	a->eal_argv[a->eal_argc] = a->eal_owned[a->eal_argc];
	a->eal_argc++;
	return 0;
}

/* True if an EAL argument of this option (--x or --x=...) was given. */
static bool
eal_has(const struct app_args *a, const char *opt)
{
	size_t n = strlen(opt);
	int i;

	for (i = 1; i < a->eal_argc; i++)
		if (strncmp(a->eal_argv[i], opt, n) == 0 &&
		    (a->eal_argv[i][n] == '\0' || a->eal_argv[i][n] == '='))
			return true;
	return false;
}

/* A hugetlbfs mount: without one EAL cannot use free hugepages. */
static bool
hugetlbfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	return found;
}

/* Memory the run takes from the heap when hugepages are not enough. */
#define APP_MEM_MB 1024

/*
 * Enough free hugepage memory for a run (HugePages_Free x Hugepagesize,
 * the default size, at least APP_MEM_MB) and a hugetlbfs mount: a few
 * free pages left by another process are not (EAL would start, then fail
 * to allocate the pools).
 */
static bool
hugepages_free(void)
{
	char line[256];
	long freep = -1, kb = -1, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "HugePages_Free: %ld", &v) == 1)
			freep = v;
		else if (sscanf(line, "Hugepagesize: %ld kB", &v) == 1)
			kb = v;
	}
	fclose(f);
	return freep > 0 && kb > 0 &&
	       (unsigned long long)freep * (unsigned long long)kb >=
	       APP_MEM_MB * 1024ull && hugetlbfs_mounted();
}

/* Remember net_pcap vdevs that read a file: their RX ends. */
static void
note_vdev(struct app_args *a, const char *spec)
{
	const char *comma = strchr(spec, ',');
	size_t n = comma ? (size_t)(comma - spec) : strlen(spec);

	if (strncmp(spec, "net_pcap", 8) != 0 || strstr(spec, "rx_pcap=") == NULL)
		return;
	if (a->n_finite >= RTE_DIM(a->finite) || n >= sizeof(a->finite[0]))
		return;
	memcpy(a->finite[a->n_finite], spec, n);
	a->finite[a->n_finite][n] = '\0';
	a->n_finite++;
}

static int
eal_defaults(struct app_args *a)
{
	char buf[64];
	int i;

	for (i = 1; i < a->eal_argc; i++) {
		if (strcmp(a->eal_argv[i], "--vdev") == 0 && i + 1 < a->eal_argc)
			note_vdev(a, a->eal_argv[i + 1]);
		else if (strncmp(a->eal_argv[i], "--vdev=", 7) == 0)
			note_vdev(a, a->eal_argv[i] + 7);
	}
	if (!eal_has(a, "--file-prefix")) {
		snprintf(buf, sizeof(buf), "--file-prefix=aifab-%ld",
			 (long)getpid());
		if (eal_push(a, buf) != 0)
			return -1;
	}
	if (!eal_has(a, "--no-huge") && !eal_has(a, "-m") &&
	    !eal_has(a, "--socket-mem") && !hugepages_free()) {
		snprintf(buf, sizeof(buf), "%u", APP_MEM_MB);
		if (eal_push(a, "--no-huge") != 0 || eal_push(a, "-m") != 0 ||
		    eal_push(a, buf) != 0)
			return -1;
	}
	if (!a->eal_given && eal_push(a, "--no-pci") != 0)
		return -1;
	if (!eal_has(a, "--log-level") &&
	    eal_push(a, "--log-level=lib.eal:notice") != 0)
		return -1;
	return 0;
}

/* --stats-interval: seconds, or a number with a unit (s, ms, us), from
 * 1 us to 3600 s; main.c keeps the real-time clock at 0.05 s and above. */
static int
parse_interval(const char *arg, double *out)
{
	static const struct { const char *unit; double s; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 },
	};
	char *end;
	double v = strtod(arg, &end);
	unsigned int i;

	if (*arg == '\0' || end == arg)
		return -1;
	for (i = 0; i < RTE_DIM(units); i++)
		if (strcmp(end, units[i].unit) == 0) {
			*out = v * units[i].s;
			return *out >= 1e-6 * 0.999 && *out <= 3600 ? 0 : -1;
		}
	return -1;
}

/* An option that is a --set of @p key, kept in @p buf, in order. */
static int
push_set(struct app_args *a, char *buf, size_t len, const char *key,
	 const char *val)
{
	if (a->n_sets >= APP_MAX_SETS) {
		fprintf(stderr, "dpdk-aifab: more than %d --set\n",
			APP_MAX_SETS);
		return -1;
	}
	if ((size_t)snprintf(buf, len, "%s=%s", key, val) >= len) {
		fprintf(stderr, "dpdk-aifab: %s '%s': longer than %zu "
			"characters\n", key, val, len - strlen(key) - 2);
		return -1;
	}
	a->sets[a->n_sets++] = buf;
	return 0;
}

/* ---- several servers: --host, --start-at, --leader, --start-timeout ---- */

static int
parse_multihost(int c, const char *arg, struct app_args *a)
{
	char *end;

	switch (c) {
	case OPT_HOST:  /* the same as --set general.host=NAME, in order */
		return push_set(a, a->host_set, sizeof(a->host_set),
				"general.host", arg);
	case OPT_START_AT:
		a->has_start_at = true;
		return app_mh_parse_time(arg, app_mh_wall_ns(), &a->start_at_ns);
	case OPT_LEADER:
		a->leader = true;
		return 0;
	default:
		a->start_timeout_s = strtod(arg, &end);
		if (*arg == '\0' || *end != '\0' ||
		    !(a->start_timeout_s >= 0.1 &&
		      a->start_timeout_s <= 86400)) {
			fprintf(stderr, "dpdk-aifab: --start-timeout '%s': "
				"expected seconds from 0.1 to 86400\n", arg);
			return -1;
		}
		return 0;
	}
}

/* An output written where it is (--stats-jsonl: fopen "w", line by
 * line), or a directory (--capture: an existing one we may write, or one
 * mkdir() can make). 0, else -1 with errno and @p dir the directory at
 * fault ("" when it is @p path). */
static int
out_here_ok(const char *path, bool is_dir, char *dir, size_t dirlen)
{
	struct stat st;

	dir[0] = '\0';
	if (stat(path, &st) != 0)
		return errno == ENOENT || errno == ENOTDIR ?
			aifab_stats_dir_ok(path, dir, dirlen) : -1;
	if (is_dir && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if (!is_dir && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return access(path, is_dir ? W_OK | X_OK : W_OK);
}

/* Every output's place, before EAL starts (a report due at the end of an
 * hour's run is no place to learn of a typo): one line naming the option,
 * the path and why, each judged by the rule of what writes it. */
static int
outputs_check(const struct app_args *a)
{
	/* written by aifab_stats_file_open(), by fopen(), into a directory */
	enum { OUT_REPLACED, OUT_IN_PLACE, OUT_DIR };
	const struct {
		const char *opt, *path;
		int how;
	} out[] = {
		{ "--report-json", a->report_json, OUT_REPLACED },
		{ "--report-html", a->report_html, OUT_REPLACED },
		{ "--stats-jsonl", a->stats_jsonl, OUT_IN_PLACE },
		{ "--prometheus", a->prometheus, OUT_REPLACED },
		{ "--capture", a->capture_dir, OUT_DIR },
	};
	char dir[PATH_MAX];
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(out); i++) {
		if (out[i].path == NULL)
			continue;
		rc = out[i].how == OUT_REPLACED ?
			aifab_stats_file_check(out[i].path, dir, sizeof(dir)) :
			out_here_ok(out[i].path, out[i].how == OUT_DIR, dir,
				    sizeof(dir));
		if (rc == 0)
			continue;
		if (dir[0] == '\0')
			fprintf(stderr, "dpdk-aifab: %s %s: %s\n", out[i].opt,
				out[i].path, strerror(errno));
		else
			fprintf(stderr, "dpdk-aifab: %s %s: its directory %s: "
				"%s\n", out[i].opt, out[i].path, dir,
				strerror(errno));
		return -1;
	}
	return 0;
}

static int
parse_app(int argc, char **argv, struct app_args *a, const char *prog)
{
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", app_opts, NULL)) != -1) {
		switch (c) {
		case OPT_PROFILE:
			a->profile = optarg;
			break;
		case OPT_SET:
			if (a->n_sets >= APP_MAX_SETS) {
				fprintf(stderr, "dpdk-aifab: more than %d --set\n",
					APP_MAX_SETS);
				return -1;
			}
			a->sets[a->n_sets++] = optarg;
			break;
		case OPT_LAB:
			/* the same as --set lab.recipe=NAME, in order */
			if (push_set(a, a->lab_set, sizeof(a->lab_set),
				     "lab.recipe", optarg) != 0)
				return -1;
			break;
		case OPT_CLOCK:
			/* the same as --set general.clock=KIND, in order */
			if (push_set(a, a->clock_set, sizeof(a->clock_set),
				     "general.clock", optarg) != 0)
				return -1;
			break;
		case OPT_DURATION:
			a->duration_s = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(a->duration_s > 0 && a->duration_s <= 31536000)) {
				fprintf(stderr, "dpdk-aifab: --duration '%s': "
					"expected seconds > 0 (up to a year)\n",
					optarg);
				return -1;
			}
			break;
		case OPT_REPORT_JSON:
			a->report_json = optarg;
			break;
		case OPT_CAPTURE:
			a->capture_dir = optarg;
			break;
		case OPT_QUIET:
			a->quiet = true;
			break;
		case OPT_PROMETHEUS:
			a->prometheus = optarg;
			break;
		case OPT_STATS_JSONL:
			a->stats_jsonl = optarg;
			break;
		case OPT_REPORT_HTML:
			a->report_html = optarg;
			break;
		case OPT_STATS_INTERVAL:
			if (parse_interval(optarg, &a->stats_interval_s) != 0) {
				fprintf(stderr, "dpdk-aifab: --stats-interval "
					"'%s': expected seconds from 0.05 to "
					"3600, or with a unit (s, ms, us) down "
					"to 1us on [general] clock = virtual\n",
					optarg);
				return -1;
			}
			a->stats_interval_given = true;
			break;
		case OPT_HOST:
		case OPT_START_AT:
		case OPT_LEADER:
		case OPT_START_TIMEOUT:
			if (parse_multihost(c, optarg, a) != 0)
				return -1;
			break;
		case OPT_PROFILE_DOC:
			aifab_profile_write_doc(stdout);
			return 1;
		case OPT_LIST_PROFILES:
			return app_profiles_list(stdout) == 0 ? 1 : -1;
		case OPT_HELP:
			app_usage(stdout, prog);
			return 1;
		case OPT_VERSION:
			printf("dpdk-aifab %s\n", AIFAB_VERSION);
			return 1;
		default:
			fprintf(stderr, "dpdk-aifab: unknown option '%s' "
				"(EAL options go before --; see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dpdk-aifab: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return -1;
	}
	/* The embedded demo writes its report where it runs, unasked. */
	if (a->profile == NULL && a->report_json == NULL)
		a->report_json = APP_DEMO_REPORT;
	if (outputs_check(a) != 0)
		return -1;
	/* A file, or a shipped profile by name (profiles.c). */
	if (a->profile != NULL) {
		char err[APP_ERR_LEN];

		if (app_profile_find(a->profile, a->profile_path,
				     sizeof(a->profile_path), err,
				     sizeof(err)) != 0) {
			fprintf(stderr, "dpdk-aifab: %s\n", err);
			return -1;
		}
		a->profile = a->profile_path;
	}
	return 0;
}

int
app_args_parse(int argc, char **argv, struct app_args *a)
{
	int sep = -1, i, rc;

	memset(a, 0, sizeof(*a));
	a->stats_interval_s = 1;
	a->start_timeout_s = APP_MH_START_TIMEOUT_S;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (eal_push(a, argv[0]) != 0)
		return -1;
	if (sep > 0) {
		a->eal_given = sep > 1;
		for (i = 1; i < sep; i++)
			if (eal_push(a, argv[i]) != 0)
				return -1;
	}
	/* App options: argv[0] followed by what comes after "--" (or all). */
	argv[sep > 0 ? sep : 0] = argv[0];
	rc = parse_app(sep > 0 ? argc - sep : argc, argv + (sep > 0 ? sep : 0), a,
		       argv[0]);
	if (rc != 0)
		return rc;
	return eal_defaults(a);
}

void
app_args_free(struct app_args *a)
{
	int i;

	for (i = 0; i < a->eal_argc; i++)
		free(a->eal_owned[i]);
	a->eal_argc = 0;
}

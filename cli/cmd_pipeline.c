/*
 * latlab pipeline: parse flags, place the threads, run the library's
 * pipeline, print. All measuring lives in src/pipe_*.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "latlab/flight.h"
#include "latlab/fmt.h"
#include "latlab/instr.h"
#include "latlab/json.h"
#include "latlab/pipe.h"
#include "latlab/topo.h"

#define CMD "pipeline"

static const char usage[] =
"latlab pipeline: an instrumented producer -> stages -> consumer pipeline\n"
"\n"
"usage: latlab pipeline [--events <n> | --duration <time>] [--rate <r>]\n"
"                       [--arrivals (fixed|poisson)] [--stages <k>]\n"
"                       [--work-ns <time>] [--capacity <n>]\n"
"                       [--wait (spin|yield|block)] [--cpus <list>]\n"
"                       [--no-pin] [--json] [--hlog <file>]\n"
"                       [--interval <time>] [--hgrm <dir>] [--no-counters]\n"
"                       [--freeze-above (<time>|auto) [--flight-post <n>]\n"
"                       [--flight-out <file>]] [<experiment>...]\n"
"\n"
"An open-loop producer sends events at their intended times through K\n"
"work stages to a consumer, each a pinned thread joined by SPSC rings.\n"
"Every event carries its stamps; a cold aggregator records one histogram\n"
"per delta: pace (late send), q1+wake, work1, q2+wake, ..., e2e.\n"
"\n"
"options:\n"
"  --events <n>         events to send (default 2000000)\n"
"  --duration <time>    or: send for this long at --rate (e.g. 3s)\n"
"  --rate <r>           offered events per second (default 200000)\n"
"  --arrivals <kind>    fixed gaps or poisson (exponential) gaps\n"
"                       (default fixed)\n"
"  --seed <n>           seed of the poisson schedule (default 1)\n"
"  --stages <k>         work stages, 1..8 (default 1)\n"
"  --work-ns <time>     calibrated busy work per stage (default 100ns)\n"
"  --work-dist <d>      stage 1's work time: det, exp, lognormal:<cv> or\n"
"                       bimodal:<p>:<slow time>, mean --work-ns (default det)\n"
"  --capacity <n>       slots per ring, a power of two (default 4096)\n"
"  --wait <kind>        empty/full ring: spin, yield or block (default spin\n"
"                       with a core per hot thread, else yield)\n"
"  --spins <n>          pauses before a yield or sleep (default 256, or 16\n"
"                       when hot threads share a CPU)\n"
"  --cpus <list>        CPUs for producer, stages, consumer in order; a\n"
"                       longer list is a pool to place within (default:\n"
"                       one physical core each, isolated first)\n"
"  --no-pin             let the scheduler place the threads\n"
"  --json               print one JSON object instead of the table\n"
"  --hlog <file>        interval histograms, one tag per delta (.hlog 1.3)\n"
"  --interval <time>    --hlog interval (default 1s)\n"
"  --hgrm <dir>         one percentile distribution per delta, in ns\n"
"  --no-stamps          only t0 and the final stamp (overhead baseline)\n"
"\n"
"counters and flight recorder:\n"
"  --no-counters        skip the per-hot-thread counters (task-clock,\n"
"                       switches, migrations, faults, allocations, IPC)\n"
"  --freeze-above <t>   keep the last 4096 samples and freeze on the first\n"
"                       e2e above <t>; 'auto' = p99.9 of this run's first\n"
"                       tenth (the recorder is disarmed during it)\n"
"  --flight-post <n>    samples kept after the trigger (default 64)\n"
"  --flight-out <file>  the frozen window as CSV (default: a table of the\n"
"                       trigger and what followed, on stderr)\n"
"\n"
"experiments:\n"
"  --alloc[=<bytes>]    malloc+free per event in stage 1 (default 256)\n"
"  --share-line         stage 1's and the consumer's counters share a\n"
"                       cache line (default: 128 bytes apart)\n"
"  --noise              a thread streaming over 64 MiB beside the pipeline\n"
"  --stall-at <seq>:<time>  stage 1 busy-waits <time> on event <seq>\n"
"\n"
"Exit status: 0 done, 1 runtime failure, 2 bad usage, 130/143 stopped by\n"
"SIGINT/SIGTERM (partial results are printed and files are complete).\n"
"\n"
"EXAMPLES\n"
"  latlab pipeline                        # the baseline: 2M events, ~10 s\n"
"  latlab pipeline --events 20000 --json  # a short run for scripts\n"
"  latlab pipeline --stages 3 --work-ns 1us --arrivals poisson\n"
"  latlab pipeline --hlog run.hlog        # then: latlab report run.hlog\n"
"  latlab pipeline --cpus 2,4,6 --wait block  # choose the cores\n"
"  latlab pipeline --alloc=1M             # allocator slow paths in work1\n"
"  latlab pipeline --stall-at 100000:1ms --freeze-above 500us\n"
"                                         # one slow work1, then a backlog\n";

enum {
	OPT_EVENTS = 256, OPT_DURATION, OPT_RATE, OPT_ARRIVALS, OPT_SEED,
	OPT_STAGES, OPT_WORK, OPT_CAPACITY, OPT_WAIT, OPT_CPUS, OPT_NO_PIN,
	OPT_JSON, OPT_HLOG, OPT_INTERVAL, OPT_HGRM, OPT_NO_STAMPS, OPT_ALLOC,
	OPT_SHARE_LINE, OPT_NOISE, OPT_STALL_AT, OPT_SPINS,
	OPT_NO_COUNTERS, OPT_FREEZE_ABOVE, OPT_FLIGHT_POST, OPT_FLIGHT_OUT,
	OPT_WORK_DIST,
};

static const struct option options[] = {
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "arrivals", required_argument, NULL, OPT_ARRIVALS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "stages", required_argument, NULL, OPT_STAGES },
	{ "work-ns", required_argument, NULL, OPT_WORK },
	{ "work-dist", required_argument, NULL, OPT_WORK_DIST },
	{ "capacity", required_argument, NULL, OPT_CAPACITY },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "spins", required_argument, NULL, OPT_SPINS },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "hlog", required_argument, NULL, OPT_HLOG },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "hgrm", required_argument, NULL, OPT_HGRM },
	{ "no-stamps", no_argument, NULL, OPT_NO_STAMPS },
	{ "alloc", optional_argument, NULL, OPT_ALLOC },
	{ "share-line", no_argument, NULL, OPT_SHARE_LINE },
	{ "noise", no_argument, NULL, OPT_NOISE },
	{ "stall-at", required_argument, NULL, OPT_STALL_AT },
	{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
	{ "freeze-above", required_argument, NULL, OPT_FREEZE_ABOVE },
	{ "flight-post", required_argument, NULL, OPT_FLIGHT_POST },
	{ "flight-out", required_argument, NULL, OPT_FLIGHT_OUT },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct lat_pipe_config cfg;
	bool events_set, wait_set, json, oversubscribed;
	double duration_ns;
	const char *cpus, *hlog_path, *hgrm_dir, *flight_out;
	struct lat_instr_opts instr;
	bool flight_post_set, interval_set, seed_set;
	int cpu_list[LAT_TOPO_MAX_HOT];
	int n_cpu_list;
};

static void parse_stall(struct args *a, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char seq[32];

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(seq))
		lat_cli_usage_error(CMD, "--stall-at needs <seq>:<time>, "
				    "e.g. 5000:2ms, not '%s'", arg);
	memcpy(seq, arg, (size_t)(colon - arg));
	seq[colon - arg] = '\0';
	a->cfg.stall_seq = lat_cli_u64(CMD, "--stall-at", seq, 0,
				       UINT64_MAX - 1);
	a->cfg.stall_ns = lat_cli_duration_ns(CMD, "--stall-at", colon + 1, 1,
					      1, 60e9);
}

static void parse_one(struct args *a, int c, char **argv)
{
	struct lat_pipe_config *cfg = &a->cfg;

	switch (c) {
	case OPT_EVENTS:
		cfg->events = lat_cli_u64(CMD, "--events", optarg, 1,
					  1000000000000ULL);
		a->events_set = true;
		break;
	case OPT_DURATION:
		a->duration_ns = lat_cli_duration_ns(CMD, "--duration", optarg,
						     1e9, 1e6, 30 * 86400e9);
		break;
	case OPT_RATE:
		cfg->rate = lat_cli_double(CMD, "--rate", optarg, 0, 1e9);
		if (!(cfg->rate > 0))
			lat_cli_usage_error(CMD, "--rate must be above 0, not "
					    "'%s'", optarg);
		break;
	case OPT_ARRIVALS:
		if (!strcmp(optarg, "fixed"))
			cfg->arrivals = LAT_PACE_FIXED;
		else if (!strcmp(optarg, "poisson"))
			cfg->arrivals = LAT_PACE_POISSON;
		else
			lat_cli_usage_error(CMD, "--arrivals must be fixed or "
					    "poisson, not '%s'", optarg);
		break;
	case OPT_SEED:
		cfg->seed = lat_cli_u64(CMD, "--seed", optarg, 0, UINT64_MAX);
		a->seed_set = true;
		break;
	case OPT_STAGES:
		cfg->stages = (int)lat_cli_u64(CMD, "--stages", optarg, 1,
					       LAT_PIPE_MAX_STAGES);
		break;
	case OPT_WORK:
		cfg->work_ns = lat_cli_duration_ns(CMD, "--work-ns", optarg,
						   1, 0, 1e9);
		break;
	case OPT_WORK_DIST:
		if (lat_work_dist_parse(&cfg->work_dist, optarg))
			lat_cli_usage_error(CMD, "--work-dist '%s': expected "
					    "det, exp, lognormal:<cv> or "
					    "bimodal:<p>:<slow time>", optarg);
		break;
	case OPT_CAPACITY:
		cfg->capacity = lat_cli_u64(CMD, "--capacity", optarg, 2,
					    1u << 24);
		if (cfg->capacity & (cfg->capacity - 1))
			lat_cli_usage_error(CMD, "--capacity must be a power "
					    "of two, not '%s'", optarg);
		break;
	case OPT_WAIT:
		if (lat_wait_kind_parse(optarg, &cfg->wait))
			lat_cli_usage_error(CMD, "--wait must be spin, yield "
					    "or block, not '%s'", optarg);
		a->wait_set = true;
		break;
	case OPT_SPINS:
		cfg->wait_spins = (uint32_t)lat_cli_u64(CMD, "--spins", optarg,
							1, 1u << 30);
		break;
	case OPT_CPUS:
		a->cpus = optarg;
		break;
	case OPT_NO_PIN:
		cfg->pin = false;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_HLOG:
		a->hlog_path = optarg;
		break;
	case OPT_INTERVAL:
		cfg->interval_s = lat_cli_duration_ns(CMD, "--interval", optarg,
						      1e9, 1e6, 3600e9) / 1e9;
		a->interval_set = true;
		break;
	case OPT_HGRM:
		a->hgrm_dir = optarg;
		break;
	case OPT_NO_STAMPS:
		cfg->stamps = false;
		break;
	case OPT_ALLOC:
		cfg->alloc_bytes = optarg ? lat_cli_u64(CMD, "--alloc", optarg,
							1, 1u << 30) : 256;
		break;
	case OPT_SHARE_LINE:
		cfg->share_line = true;
		break;
	case OPT_NOISE:
		cfg->noise = true;
		break;
	case OPT_STALL_AT:
		parse_stall(a, optarg);
		break;
	case OPT_NO_COUNTERS:
		a->instr.counters = false;
		break;
	case OPT_FREEZE_ABOVE:
		a->instr.flight = true;
		a->instr.freeze_auto = !strcmp(optarg, "auto");
		if (!a->instr.freeze_auto)
			a->instr.freeze_above = (lat_ns_t)lat_cli_duration_ns(
				CMD, "--freeze-above", optarg, 1, 1, 3600e9);
		break;
	case OPT_FLIGHT_POST:
		a->instr.flight_post = lat_cli_u64(
			CMD, "--flight-post", optarg, 0,
			LAT_FLIGHT_DEFAULT_CAPACITY - 1);
		a->flight_post_set = true;
		break;
	case OPT_FLIGHT_OUT:
		a->flight_out = optarg;
		break;
	default:
		lat_cli_bad_option(CMD, argv, c);
	}
}

static void parse(struct args *a, int argc, char **argv)
{
	int c;

	lat_pipe_config_init(&a->cfg);
	a->instr.counters = true;
	a->instr.flight_post = 64;
	while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1)
		parse_one(a, c, argv);
	lat_cli_no_operands(CMD, argc, argv);
	if ((a->flight_post_set || a->flight_out) && !a->instr.flight)
		lat_cli_usage_error(CMD, "--flight-post and --flight-out need "
				    "--freeze-above");
	/* options that would change nothing: the command is not what the
	 * user thinks it is */
	if (a->interval_set && !a->hlog_path)
		lat_cli_usage_error(CMD, "--interval needs --hlog");
	if (a->seed_set && a->cfg.arrivals != LAT_PACE_POISSON)
		lat_cli_usage_error(CMD, "--seed needs --arrivals poisson");
	if (a->instr.flight && !a->cfg.stamps)
		lat_cli_usage_error(CMD, "--freeze-above needs the per-stage "
				    "stamps that --no-stamps turns off");
	if (a->duration_ns > 0 && a->events_set)
		lat_cli_usage_error(CMD, "--events and --duration exclude each "
				    "other");
	if (a->duration_ns > 0) {
		double n = ceil(a->cfg.rate * a->duration_ns / 1e9);

		if (n < 1 || n > 1e12)
			lat_cli_usage_error(CMD, "--duration at --rate gives "
					    "%.0f events, outside 1..10^12",
					    n);
		a->cfg.events = (uint64_t)n;
	}
	if (a->instr.freeze_auto && a->cfg.events <= LAT_INSTR_WARMUP_MIN)
		lat_cli_usage_error(CMD, "--freeze-above auto measures its "
				    "threshold over the first %d events, so "
				    "%llu events can never arm it: give a time",
				    LAT_INSTR_WARMUP_MIN,
				    (unsigned long long)a->cfg.events);
	if (a->cfg.stall_ns > 0 && a->cfg.stall_seq >= a->cfg.events)
		lat_cli_usage_error(CMD, "--stall-at event %llu is beyond the "
				    "last event (%llu)",
				    (unsigned long long)a->cfg.stall_seq,
				    (unsigned long long)a->cfg.events - 1);
	if (a->cpus) {
		a->n_cpu_list = lat_topo_list_parse_seq(a->cpus, a->cpu_list,
							LAT_TOPO_MAX_HOT);
		if (a->n_cpu_list <= 0)
			lat_cli_usage_error(CMD, "--cpus needs a CPU list such "
					    "as 2,4,6 or 2-4, not '%s'",
					    a->cpus);
		if (!a->cfg.pin)
			lat_cli_usage_error(CMD, "--cpus and --no-pin exclude "
					    "each other");
	}
}

static struct lat_topo topo; /* 24 KiB: not on the stack */

static void place(struct args *a)
{
	struct lat_topo_place pl;
	int n = lat_pipe_n_hot(a->cfg.stages), rc, bad = -1;
	char mask[256];
	bool all[LAT_TOPO_MAX_CPUS];

	rc = lat_topo_load(&topo, NULL, NULL);
	if (rc)
		lat_cli_fail(CMD, "cannot read the CPU topology: %s",
			     lat_strerror(rc));
	if (a->cpus)
		rc = lat_topo_place_cpus(&topo, a->cpu_list, a->n_cpu_list, n,
					 &pl, &bad);
	else
		rc = lat_topo_place(&topo, n, &pl);
	if (!rc && a->n_cpu_list > n) {
		/* more CPUs than threads: a pool to place within */
		for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++)
			all[c] = false;
		for (int i = 0; i < a->n_cpu_list; i++)
			all[a->cpu_list[i]] = true;
		lat_topo_restrict(&topo, all);
		rc = lat_topo_place(&topo, n, &pl);
		pl.flags |= LAT_TOPO_CHOSEN;
	}
	if (rc == -ESRCH) {
		for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++)
			all[c] = c < topo.n_cpus && topo.cpu[c].online &&
				 topo.cpu[c].allowed;
		lat_cli_usage_error(CMD, "--cpus: cpu %d is not online and in "
				    "this process's affinity mask (usable: %s)",
				    bad, lat_topo_list_format(all, mask,
							      sizeof(mask)));
	}
	if (rc)
		lat_cli_fail(CMD, "cannot place %d threads: %s", n,
			     lat_strerror(rc));
	a->oversubscribed = lat_pipe_place(&a->cfg, &pl, a->wait_set);
	a->cfg.noise_cpu = a->cfg.noise ? lat_topo_free_cpu(&topo, &pl) : -1;
}

/* After every check that can refuse the run, so errors stay one line. */
static void warn_oversubscribed(const struct args *a)
{
	if (!a->oversubscribed)
		return;
	fprintf(stderr, "latlab pipeline: warning: %d hot threads on %d "
		"usable CPUs: numbers include scheduler effects; wait '%s'%s\n",
		lat_pipe_n_hot(a->cfg.stages), topo.n_usable,
		lat_wait_kind_name(a->cfg.wait),
		a->cfg.wait == LAT_WAIT_SPIN
			? " will hand off once per scheduler tick"
			: " (a spinning wait could hold the CPU its peer "
			  "needs)");
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		lat_cli_usage_error(CMD, "cannot create '%s': %s", path,
				    strerror(errno));
	return f;
}

/*
 * --hgrm's directory, made if missing; refused up front when it is a
 * file or not writable, not after a whole run whose results it loses.
 */
static void check_hgrm_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST)
		lat_cli_usage_error(CMD, "cannot create directory '%s': %s",
				    dir, strerror(errno));
	if (stat(dir, &st))
		lat_cli_usage_error(CMD, "cannot use '%s': %s", dir,
				    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		lat_cli_usage_error(CMD, "--hgrm '%s' is not a directory",
				    dir);
	if (access(dir, W_OK | X_OK))
		lat_cli_usage_error(CMD, "cannot write into '%s': %s", dir,
				    strerror(errno));
}

/* Two streams on one file would interleave into garbage. */
static bool same_file(FILE *x, FILE *y)
{
	struct stat a, b;

	return !fstat(fileno(x), &a) && !fstat(fileno(y), &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
	       S_ISREG(a.st_mode);
}

static void progress(struct lat_pipe *p, const struct lat_pipe_config *c,
		     bool show)
{
	uint64_t done;
	double t, rate;
	char r[LAT_FMT_LEN];

	lat_pipe_progress(p, &done, &t);
	if (!show || t < 0.5)
		return;
	rate = done / t;
	fprintf(stderr, "\r  %llu/%llu events, %s, %.1f s elapsed, ETA "
		"%.1f s   ", (unsigned long long)done,
		(unsigned long long)c->events, lat_fmt_rate(r, sizeof(r), rate),
		t, rate > 0 ? (double)(c->events - done) / rate : 0.0);
}

/* Run, relaying SIGINT/SIGTERM as a stop; the signal number or 0. */
static int run(struct lat_pipe *p, const struct lat_pipe_config *c)
{
	const struct timespec tick = { 0, 50000000 };
	bool show = isatty(STDERR_FILENO) && c->events / c->rate > 2;
	bool shown = false;
	int sig = 0;

	/* poll every 50 ms so a stop is relayed at once; redraw every 250 */
	for (unsigned n = 0; !lat_pipe_progress(p, NULL, NULL); n++) {
		if (!sig && (sig = lat_cli_stop_signal()))
			lat_pipe_stop(p);
		if (n % 5 == 4) {
			progress(p, c, show);
			shown |= show;
		}
		nanosleep(&tick, NULL);
	}
	if (shown)
		fprintf(stderr, "\r%79s\r", "");
	return sig ? sig : lat_cli_stop_signal();
}

static void print(const struct args *a, struct lat_instr *in,
		  const struct lat_pipe_result *r, int sig)
{
	struct lat_json j;

	if (!a->json) {
		lat_pipe_print_table(stdout, r);
		lat_instr_print_counters(stdout, in, r);
		return;
	}
	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_str(&j, "command", CMD);
	lat_pipe_write_json(&j, r);
	lat_instr_write_json(&j, in, r);
	if (a->hlog_path)
		lat_json_str(&j, "hlog", a->hlog_path);
	if (a->hgrm_dir)
		lat_json_str(&j, "hgrm_dir", a->hgrm_dir);
	lat_json_int(&j, "signal", sig);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		lat_cli_fail(CMD, "internal error: unbalanced JSON");
}

static void warn_work(const struct lat_work *w)
{
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[64];

	if (w->target_ns <= 0 || fabs(w->check_error) <= 0.2)
		return;
	fprintf(stderr, "latlab pipeline: warning: work calibrated to %s for "
		"%s asked (%+.0f%%): %s\n",
		lat_fmt_ns(a, sizeof(a), w->check_p50_ns),
		lat_fmt_ns(b, sizeof(b), w->target_ns), 100 * w->check_error,
		w->target_ns < w->overhead_ns
			? (snprintf(c, sizeof(c), "below the stamp pair's own "
				    "%.0f ns", w->overhead_ns), c)
			: "the CPU was busy during calibration");
}

/* The frozen window: CSV to --flight-out, else the trigger's neighbourhood
 * as a table on stderr (chatter, not results). */
static void dump_flight(const struct args *a, struct lat_instr *in,
			FILE *csv)
{
	struct lat_flight *f = &in->flight;
	struct lat_flight_rec trigger;
	char t[LAT_FMT_LEN];
	int rc;

	if (!a->instr.flight)
		return;
	fflush(stdout); /* the results, then the recorder's chatter */
	if (csv) {
		rc = lat_flight_dump_csv(f, csv);
		if (fclose(csv) && !rc)
			rc = -EIO;
		if (rc)
			lat_cli_fail(CMD, "writing '%s': %s", a->flight_out,
				     lat_strerror(rc));
	}
	if (f->state == LAT_FLIGHT_RECORDING) {
		lat_fmt_ns(t, sizeof(t), (double)f->threshold_ns);
		fprintf(stderr, "flight recorder: never triggered (no e2e "
			"above %s%s)%s%s\n", f->threshold_ns ? t : "the "
			"threshold: the warm-up did not finish",
			a->instr.freeze_auto && f->threshold_ns ? ", auto" : "",
			csv ? "; last window written to " : "",
			csv ? a->flight_out : "");
		return;
	}
	if (!csv) {
		lat_flight_dump_table(f, stderr, 16);
		return;
	}
	lat_flight_get(f, (size_t)lat_flight_trigger_index(f), &trigger);
	fprintf(stderr, "flight recorder: %s on seq %llu; window written to "
		"%s\n", lat_flight_state_name(f->state),
		(unsigned long long)trigger.seq, a->flight_out);
}

static int cmd_pipeline(int argc, char **argv)
{
	static struct lat_instr in; /* perf state per hot thread: large */
	FILE *flight = NULL;
	struct args a = { .events_set = false };
	struct lat_pipe_result r;
	struct lat_pipe *p;
	FILE *hlog = NULL;
	const char *why;
	int rc, sig;

	parse(&a, argc, argv);
	if (lat_work_dist_check(&a.cfg.work_dist, a.cfg.work_ns, &why))
		lat_cli_usage_error(CMD, "--work-dist %s: %s",
				    a.cfg.work_dist.name, why);
	place(&a);
	/* the directory first: a refusal must not leave an empty hlog */
	if (a.hgrm_dir)
		check_hgrm_dir(a.hgrm_dir);
	if (a.hlog_path)
		a.cfg.hlog = hlog = open_out(a.hlog_path);
	if (a.flight_out)
		flight = open_out(a.flight_out);
	if (hlog && flight && same_file(hlog, flight))
		lat_cli_usage_error(CMD, "--hlog and --flight-out are the same "
				    "file '%s'", a.flight_out);
	rc = lat_instr_init(&in, &a.instr, &a.cfg);
	if (rc)
		lat_cli_fail(CMD, "cannot set up counters and flight recorder: "
			     "%s", lat_strerror(rc));
	warn_oversubscribed(&a);
	lat_cli_catch_stop_signals();
	rc = lat_pipe_start(&a.cfg, &p);
	if (rc)
		lat_cli_fail(CMD, "cannot start the pipeline: %s",
			     lat_strerror(rc));
	sig = run(p, &a.cfg);
	rc = lat_pipe_wait(p, &r);
	lat_pipe_free(p);
	warn_work(&r.work);
	print(&a, &in, &r, sig);
	dump_flight(&a, &in, flight);
	if (hlog && fclose(hlog) && !rc)
		rc = -EIO;
	if (rc)
		lat_cli_fail(CMD, "%s: %s", a.hlog_path ? a.hlog_path : "run",
			     lat_strerror(rc));
	if (a.hgrm_dir && (rc = lat_pipe_write_hgrm(a.hgrm_dir, &r)))
		lat_cli_fail(CMD, "writing %s: %s", a.hgrm_dir,
			     lat_strerror(rc));
	if (!r.exact)
		lat_cli_fail(CMD, "accounting is not exact: this is a bug");
	lat_pipe_result_destroy(&r);
	lat_instr_destroy(&in);
	return sig ? 128 + sig : LAT_EXIT_OK;
}

const struct lat_cmd lat_cmd_pipeline = {
	.name = "pipeline",
	.summary = "instrumented producer -> stages -> consumer pipeline",
	.usage = usage,
	.run = cmd_pipeline,
};

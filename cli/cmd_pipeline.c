/*
 * latlab pipeline: parse flags, place the threads, run the library's
 * pipeline, print. All measuring, ranges and judgements live in src/pipe/;
 * this file maps the library's field names back to flags.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pipeline_sched.h"
#include "profile.h"
#include "out_file.h"
#include "latlab/cgroup.h"
#include "latlab/flight.h"
#include "latlab/fmt.h"
#include "latlab/instr.h"
#include "latlab/json.h"
#include "latlab/pipe.h"
#include "latlab/topo.h"
#include "latlab/work.h"

#define CMD "pipeline"

static const char usage[] =
"latlab pipeline: an instrumented producer -> stages -> consumer pipeline\n"
"\n"
"usage: latlab pipeline [--events <n> | --duration <time>] [--rate <r>]\n"
"                       [--arrivals (fixed|poisson)] [--stages <k>]\n"
"                       [--work-ns <time>] [--capacity <n>]\n"
"                       [--wait (spin|yield|block)] [--cpus <list>]\n"
"                       [--no-pin] [--json] [--hlog <file>]\n"
"                       [--interval <time>] [--hgrm <dir>] [--svg <file>]\n"
"                       [--no-counters]\n"
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
"  --svg <file>         latency by percentile, one line per delta and\n"
"                       e2e (x: percentile, log 1/(1-p); y: log)\n"
"  --no-stamps          only t0 and the final stamp (overhead baseline)\n"
"  --profile <dir>      on- and off-CPU flame graphs of the run, one root\n"
"                       frame per thread (see latlab profile): <dir>/\n"
"                       oncpu.svg, offcpu.svg and their .folded stacks\n"
"  --sched              trace the scheduler around the run (eBPF; see\n"
"                       latlab sched) and say why the events above p99.9\n"
"                       were slow: time by cause, the tasks named\n"
"\n"
"counters and flight recorder:\n"
"  --no-counters        skip the per-hot-thread counters (task-clock,\n"
"                       switches, migrations, faults, allocations, IPC)\n"
"  --perf-counters      count task-clock, switches, migrations and faults\n"
"                       with perf events (default: from /proc, free during\n"
"                       the run; perf's task-clock leaves the context\n"
"                       switches out, but each switch costs ~1.5 us more)\n"
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
"  --cpu-quota <pct>    run in a child cgroup allowed <pct> of one CPU per\n"
"                       period (CFS bandwidth: cpu.max or\n"
"                       cpu.cfs_quota_us; needs root); reports periods,\n"
"                       throttled periods and time, and the fingerprint:\n"
"                       freezes of up to period - quota, once a period\n"
"  --cpu-period <time>  its period, 1ms..1s (default 100ms)\n"
"  --burst-threads <n>  n threads in the group each spinning a quarter of\n"
"                       every period: a pool bursting past the quota\n"
"\n"
"Every run ends with a USE audit: for each hot CPU, ring, the aggregator,\n"
"its sample ring and the process's memory, utilization, saturation\n"
"(run-queue delay, ring depth sampled about every ms, producer lateness)\n"
"and errors (drops, over-range values, clock backwards, throttling).\n"
"\n"
"Exit status: 0 done, 1 runtime failure, 2 bad usage, 130/143 stopped by\n"
"SIGINT/SIGTERM (partial results are printed and files are complete).\n"
"\n"
"EXAMPLES:\n"
"  latlab pipeline                        # the baseline: 2M events, ~10 s\n"
"  latlab pipeline --events 20000 --json  # a short run for scripts\n"
"  latlab pipeline --stages 3 --work-ns 1us --arrivals poisson\n"
"  latlab pipeline --hlog run.hlog        # then: latlab report run.hlog\n"
"  latlab pipeline --svg run.svg          # where the tail is born, drawn\n"
"  latlab pipeline --profile prof         # where each thread's time goes\n"
"  latlab pipeline --cpus 2,4,6 --wait block  # choose the cores\n"
"  latlab pipeline --alloc=1M             # allocator slow paths in work1\n"
"  latlab pipeline --stall-at 100000:1ms --freeze-above 500us\n"
"                                         # one slow work1, then a backlog\n"
"  latlab pipeline --cpu-quota 20 --events 100000  # CFS throttling\n";

enum {
	OPT_EVENTS = 256, OPT_DURATION, OPT_RATE, OPT_ARRIVALS, OPT_SEED,
	OPT_STAGES, OPT_WORK, OPT_CAPACITY, OPT_WAIT, OPT_CPUS, OPT_NO_PIN,
	OPT_JSON, OPT_HLOG, OPT_INTERVAL, OPT_HGRM, OPT_NO_STAMPS, OPT_ALLOC,
	OPT_SHARE_LINE, OPT_NOISE, OPT_STALL_AT, OPT_SPINS,
	OPT_NO_COUNTERS, OPT_PERF_COUNTERS, OPT_FREEZE_ABOVE, OPT_FLIGHT_POST, OPT_FLIGHT_OUT,
	OPT_SVG, OPT_SCHED,
	OPT_WORK_DIST,
	OPT_CPU_QUOTA, OPT_CPU_PERIOD, OPT_BURST_THREADS,
	OPT_PROFILE,
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
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "no-stamps", no_argument, NULL, OPT_NO_STAMPS },
	{ "sched", no_argument, NULL, OPT_SCHED },
	{ "alloc", optional_argument, NULL, OPT_ALLOC },
	{ "share-line", no_argument, NULL, OPT_SHARE_LINE },
	{ "noise", no_argument, NULL, OPT_NOISE },
	{ "stall-at", required_argument, NULL, OPT_STALL_AT },
	{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
	{ "perf-counters", no_argument, NULL, OPT_PERF_COUNTERS },
	{ "freeze-above", required_argument, NULL, OPT_FREEZE_ABOVE },
	{ "flight-post", required_argument, NULL, OPT_FLIGHT_POST },
	{ "flight-out", required_argument, NULL, OPT_FLIGHT_OUT },
	{ "cpu-quota", required_argument, NULL, OPT_CPU_QUOTA },
	{ "cpu-period", required_argument, NULL, OPT_CPU_PERIOD },
	{ "burst-threads", required_argument, NULL, OPT_BURST_THREADS },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct lat_pipe_config cfg;
	bool events_set, wait_set, json;
	double duration_ns;
	const char *cpus, *hlog_path, *hgrm_dir, *flight_out, *svg;
	const char *profile_dir;
	bool sched;
	struct lat_instr_opts instr;
	bool flight_post_set, interval_set, seed_set;
	bool quota_set, period_set, burst_set;
	int cpu_list[LAT_TOPO_MAX_HOT];
	int n_cpu_list;
	struct lat_pipe_placement placed;
};

static void parse_stall(struct args *a, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char seq[32];

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(seq))
		cli_usage_error(CMD, "--stall-at needs <seq>:<time>, "
				    "e.g. 5000:2ms, not '%s'", arg);
	memcpy(seq, arg, (size_t)(colon - arg));
	seq[colon - arg] = '\0';
	a->cfg.stall_seq = cli_u64(CMD, "--stall-at", seq, 0,
				       UINT64_MAX - 1);
	/* above 0: a zero stall would be no experiment at all */
	a->cfg.stall_ns = cli_duration_ns(CMD, "--stall-at", colon + 1, 1,
					      1, INFINITY);
}

static void parse_one(struct args *a, int c, char **argv)
{
	struct lat_pipe_config *cfg = &a->cfg;

	switch (c) {
	case OPT_EVENTS:
		cfg->events = cli_u64(CMD, "--events", optarg, 0,
					  UINT64_MAX);
		a->events_set = true;
		break;
	case OPT_DURATION:
		a->duration_ns = cli_duration_ns(CMD, "--duration", optarg,
						     1e9, 1, INFINITY);
		break;
	case OPT_RATE:
		cfg->rate = cli_double(CMD, "--rate", optarg, -INFINITY,
					   INFINITY);
		break;
	case OPT_ARRIVALS:
		if (!strcmp(optarg, "fixed"))
			cfg->arrivals = LAT_PACE_FIXED;
		else if (!strcmp(optarg, "poisson"))
			cfg->arrivals = LAT_PACE_POISSON;
		else
			cli_usage_error(CMD, "--arrivals must be fixed or "
					    "poisson, not '%s'", optarg);
		break;
	case OPT_SEED:
		cfg->seed = cli_u64(CMD, "--seed", optarg, 0, UINT64_MAX);
		a->seed_set = true;
		break;
	case OPT_STAGES:
		cfg->stages = (int)cli_u64(CMD, "--stages", optarg, 0,
					       INT32_MAX);
		break;
	case OPT_WORK:
		cfg->work_ns = cli_duration_ns(CMD, "--work-ns", optarg,
						   1, 0, INFINITY);
		break;
	case OPT_WORK_DIST:
		if (lat_work_dist_parse(&cfg->work_dist, optarg))
			cli_usage_error(CMD, "--work-dist '%s': expected "
					    "det, exp, lognormal:<cv> or "
					    "bimodal:<p>:<slow time>", optarg);
		break;
	case OPT_CAPACITY:
		cfg->capacity = cli_u64(CMD, "--capacity", optarg, 0,
					    SIZE_MAX);
		break;
	case OPT_WAIT:
		if (lat_wait_kind_parse(optarg, &cfg->wait))
			cli_usage_error(CMD, "--wait must be spin, yield "
					    "or block, not '%s'", optarg);
		a->wait_set = true;
		break;
	case OPT_SPINS:
		/* 0 would mean "the default": refuse it as a value */
		cfg->wait_spins = (uint32_t)cli_u64(CMD, "--spins", optarg,
							1, UINT32_MAX);
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
		cfg->interval_s = cli_duration_ns(CMD, "--interval", optarg,
						      1e9, 0, INFINITY) / 1e9;
		a->interval_set = true;
		break;
	case OPT_SVG:
		a->svg = optarg;
		break;
	case OPT_PROFILE:
		a->profile_dir = optarg;
		break;
	case OPT_SCHED:
		a->sched = true;
		break;
	case OPT_HGRM:
		a->hgrm_dir = optarg;
		break;
	case OPT_NO_STAMPS:
		cfg->stamps = false;
		break;
	case OPT_ALLOC:
		/* 0 would mean "off": refuse it as a value */
		cfg->alloc_bytes = optarg ? cli_u64(CMD, "--alloc", optarg,
							1, SIZE_MAX) : 256;
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
	case OPT_PERF_COUNTERS:
		a->instr.perf_flags = 0;
		break;
	case OPT_FREEZE_ABOVE:
		a->instr.flight = true;
		a->instr.freeze_auto = !strcmp(optarg, "auto");
		if (!a->instr.freeze_auto)
			a->instr.freeze_above = (lat_ns_t)cli_duration_ns(
				CMD, "--freeze-above", optarg, 1, 1, 3600e9);
		break;
	case OPT_FLIGHT_POST:
		a->instr.flight_post = cli_u64(
			CMD, "--flight-post", optarg, 0,
			LAT_FLIGHT_DEFAULT_CAPACITY - 1);
		a->flight_post_set = true;
		break;
	case OPT_FLIGHT_OUT:
		a->flight_out = optarg;
		break;
	case OPT_CPU_QUOTA:
		/* percent of one CPU; the range is the library's */
		cfg->cpu_quota = cli_double(CMD, "--cpu-quota", optarg, 0,
					    1e9) / 100;
		a->quota_set = true;
		break;
	case OPT_CPU_PERIOD:
		cfg->cpu_period_us = (uint64_t)(cli_duration_ns(
			CMD, "--cpu-period", optarg, 0, 0, 1e10) / 1e3);
		a->period_set = true;
		break;
	case OPT_BURST_THREADS:
		cfg->burst_threads = (int)cli_u64(CMD, "--burst-threads",
						  optarg, 0, 1000);
		a->burst_set = true;
		break;
	default:
		cli_bad_option(CMD, argv, c);
	}
}

/* The library's field names, as this command's flags. */
static const char *const flag_of[][2] = {
	{ "events", "--events" }, { "rate", "--rate" },
	{ "arrivals", "--arrivals" }, { "stages", "--stages" },
	{ "capacity", "--capacity" }, { "work_ns", "--work-ns" },
	{ "wait", "--wait" }, { "wait_spins", "--spins" },
	{ "alloc_bytes", "--alloc" }, { "stall_ns", "--stall-at" },
	{ "stall_seq", "--stall-at's event" }, { "interval_s", "--interval" },
	{ "cpu_quota", "--cpu-quota" }, { "cpu_period_us", "--cpu-period" },
	{ "burst_threads", "--burst-threads" },
};

/* The ranges are the library's (lat_pipe_config_check): one place. */
static void check_config(const struct args *a)
{
	struct lat_pipe_config c = a->cfg;
	const char *why, *rest, *flag;
	char field[32];

	c.pin = false; /* the CPUs are chosen after this, by place() */
	if (!lat_pipe_config_check(&c, &why))
		return;
	rest = lat_pipe_config_field(why, field, sizeof(field));
	flag = field;
	for (size_t i = 0; i < sizeof(flag_of) / sizeof(flag_of[0]); i++)
		if (!strcmp(field, flag_of[i][0]))
			flag = flag_of[i][1];
	if (!strcmp(field, "events") && a->duration_ns > 0)
		flag = "--duration at --rate";
	cli_usage_error(CMD, "%s %s", flag, rest);
}

/*
 * --cpu-quota runs the process in a cgroup of its own: say at once, in
 * one line, when that cannot work here (exit 2), not after calibrating.
 */
static void check_quota(const struct args *a)
{
	struct lat_cgroup where;
	int rc;

	if ((a->period_set || a->burst_set) && !a->quota_set)
		cli_usage_error(CMD, "--cpu-period and --burst-threads need "
				"--cpu-quota");
	if (!a->quota_set)
		return;
	if (!(a->cfg.cpu_quota > 0))
		cli_usage_error(CMD, "--cpu-quota must be above 0 and at most "
				"100 %% of one CPU");
	rc = lat_cgroup_quota_ready(NULL, &where);
	if (rc == -EACCES || rc == -EPERM || rc == -EROFS)
		cli_usage_error(CMD, "--cpu-quota needs root: this user cannot "
				"make a cgroup in %s (%s)", where.dir,
				lat_strerror(rc));
	if (rc == -ENOENT)
		cli_usage_error(CMD, "--cpu-quota: no cgroup cpu controller "
				"is mounted here (neither v1 cpu nor v2 cpu.max)");
	if (rc)
		cli_usage_error(CMD, "--cpu-quota: cannot find this process's "
				"cpu cgroup: %s", lat_strerror(rc));
}

static void parse(struct args *a, int argc, char **argv)
{
	int c;

	lat_pipe_config_init(&a->cfg);
	a->instr.counters = true;
	/* software counters from /proc: perf events would make every yield
	 * of the hot threads cost more (latlab/perfctr.h) */
	a->instr.perf_flags = LAT_PERF_SOFT_PROC;
	a->instr.flight_post = 64;
	while ((c = cli_getopt(argc, argv, ":", options)) != -1)
		parse_one(a, c, argv);
	cli_no_operands(CMD, argc, argv);
	if ((a->flight_post_set || a->flight_out) && !a->instr.flight)
		cli_usage_error(CMD, "--flight-post and --flight-out need "
				    "--freeze-above");
	/* options that would change nothing: the command is not what the
	 * user thinks it is */
	if (a->interval_set && !a->hlog_path)
		cli_usage_error(CMD, "--interval needs --hlog");
	if (a->seed_set && a->cfg.arrivals != LAT_PACE_POISSON)
		cli_usage_error(CMD, "--seed needs --arrivals poisson");
	if (a->instr.flight && !a->cfg.stamps)
		cli_usage_error(CMD, "--freeze-above needs the per-stage "
				    "stamps that --no-stamps turns off");
	if (a->duration_ns > 0 && a->events_set)
		cli_usage_error(CMD, "--events and --duration exclude each "
				    "other");
	if (a->duration_ns > 0) {
		int rc = lat_pipe_config_duration(&a->cfg, a->duration_ns);

		if (rc == -EDOM)
			cli_usage_error(CMD, "--duration is shorter than one "
					"event at --rate %g/s (one every %g s): "
					"give at least %g s", a->cfg.rate,
					1 / a->cfg.rate, 1 / a->cfg.rate);
		if (rc)
			cli_usage_error(CMD, "--duration at --rate gives "
					    "%.0f events, outside 1..10^12",
					    ceil(a->cfg.rate * a->duration_ns /
						 1e9));
	}
	check_config(a);
	check_quota(a);
	if (a->instr.freeze_auto && a->cfg.events <= LAT_INSTR_WARMUP_MIN)
		cli_usage_error(CMD, "--freeze-above auto measures its "
				    "threshold over the first %d events, so "
				    "%llu events can never arm it: give a time",
				    LAT_INSTR_WARMUP_MIN,
				    (unsigned long long)a->cfg.events);
	if (a->cpus) {
		a->n_cpu_list = lat_topo_list_parse_seq(a->cpus, a->cpu_list,
							LAT_TOPO_MAX_HOT);
		if (a->n_cpu_list <= 0)
			cli_usage_error(CMD, "--cpus needs a CPU list such "
					    "as 2,4,6 or 2-4, not '%s'",
					    a->cpus);
		if (!a->cfg.pin)
			cli_usage_error(CMD, "--cpus and --no-pin exclude "
					    "each other");
	}
}

static void place(struct args *a)
{
	int rc = lat_pipe_place_pool(&a->cfg, a->n_cpu_list ? a->cpu_list
				     : NULL, a->n_cpu_list, a->wait_set,
				     &a->placed);

	if (rc == -ESRCH)
		cli_usage_error(CMD, "--cpus: cpu %d is not online and in "
				    "this process's affinity mask (usable: %s)",
				    a->placed.bad_cpu, a->placed.usable);
	if (rc)
		cli_fail(CMD, "cannot place %d threads: %s",
			     lat_pipe_n_hot(a->cfg.stages), lat_strerror(rc));
}

/* After every check that can refuse the run, so errors stay one line. */
static void warn_oversubscribed(const struct args *a)
{
	if (!a->placed.oversubscribed)
		return;
	fputs("latlab pipeline: warning: ", stderr);
	lat_pipe_placement_warn(stderr, &a->cfg, &a->placed);
}

/*
 * --hgrm's directory, made if missing; refused up front when it is a
 * file or not writable, not after a whole run whose results it loses.
 */
static void check_hgrm_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST)
		cli_usage_error(CMD, "cannot create directory '%s': %s",
				    dir, strerror(errno));
	if (stat(dir, &st))
		cli_usage_error(CMD, "cannot use '%s': %s", dir,
				    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		cli_usage_error(CMD, "--hgrm '%s' is not a directory",
				    dir);
	if (access(dir, W_OK | X_OK))
		cli_usage_error(CMD, "cannot write into '%s': %s", dir,
				    strerror(errno));
}

struct watch {
	const struct lat_pipe_config *cfg;
	bool show, shown;
	bool said_running;      /* the one "running" line, long runs only */
	double drawn_s;
	int sig;
};

/* lat_pipe_stop_fn: relay SIGINT/SIGTERM as a stop, draw the progress. */
static bool watch(void *ctx, uint64_t done, double t)
{
	struct watch *w = ctx;

	w->sig = cli_stop_signal();
	if (w->sig)
		return true;
	/* set-up is over once events flow: say so for a long run (and a
	 * test can wait for this line before it sends a Ctrl-C) */
	if (done && !w->said_running &&
	    (double)w->cfg->events / w->cfg->rate > 2) {
		w->said_running = true;
		fprintf(stderr, "latlab pipeline: running, about %.0f s "
			"(Ctrl-C stops it with a partial result)\n",
			(double)w->cfg->events / w->cfg->rate);
	}
	if (!w->show || t < 0.5 || t - w->drawn_s < 0.25)
		return false;
	w->drawn_s = t;
	w->shown = true;
	lat_pipe_progress_print(stderr, done, w->cfg->events, t);
	return false;
}

static void print(const struct args *a, struct lat_instr *in,
		  const struct lat_pipe_result *r, int sig,
		  const struct lat_sched_attr *sched)
{
	struct lat_json j;

	if (!a->json) {
		lat_pipe_print_table(stdout, r);
		lat_instr_print_counters(stdout, in, r);
		if (sched)
			lat_sched_attr_print(stdout, sched, r);
		return;
	}
	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_str(&j, "command", CMD);
	lat_pipe_write_json(&j, r);
	lat_instr_write_json(&j, in, r);
	if (sched)
		lat_sched_attr_write_json(&j, sched, r);
	if (a->hlog_path)
		lat_json_str(&j, "hlog", a->hlog_path);
	if (a->hgrm_dir)
		lat_json_str(&j, "hgrm_dir", a->hgrm_dir);
	lat_json_int(&j, "signal", sig);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		cli_fail(CMD, "internal error: unbalanced JSON");
}

/* The library judges the calibration and words it; we prefix it. */
static void warn_work(const struct lat_work *w)
{
	if (lat_work_check(w) == LAT_WORK_OK)
		return;
	fputs("latlab pipeline: warning: ", stderr);
	lat_work_check_print(stderr, w);
}

/* The frozen window: CSV to --flight-out, else the trigger's neighbourhood
 * as a table on stderr (chatter, not results). */
static void dump_flight(const struct args *a, struct lat_instr *in,
			FILE *csv)
{
	if (!a->instr.flight)
		return;
	fflush(stdout); /* the results, then the recorder's chatter */
	if (csv) {
		cli_out_close(CMD, a->flight_out, csv,
			      lat_flight_dump_csv(&in->flight, csv));
	}
	lat_flight_print_outcome(stderr, &in->flight, a->instr.freeze_auto,
				 csv ? a->flight_out : NULL);
}

static int pipeline_main(int argc, char **argv)
{
	static struct lat_instr in; /* perf state per hot thread: large */
	struct lat_prof_self *prof = NULL;
	struct lat_sched_attr *sched = NULL;
	FILE *flight = NULL;
	struct args a = { .events_set = false };
	struct lat_pipe_result r;
	struct watch w = { .sig = 0 };
	FILE *hlog = NULL;
	char cal_ns[LAT_FMT_LEN];
	const char *why;
	int rc, sig;

	parse(&a, argc, argv);
	if (lat_work_dist_check(&a.cfg.work_dist, a.cfg.work_ns, &why))
		cli_usage_error(CMD, "--work-dist %s: %s",
				    a.cfg.work_dist.name, why);
	place(&a);
	/* the directory first: a refusal must not leave an empty hlog */
	if (a.hgrm_dir)
		check_hgrm_dir(a.hgrm_dir);
	if (a.profile_dir)
		cli_profile_dir_check(CMD, a.profile_dir);
	if (a.svg)
		cli_out_check(CMD, "--svg", a.svg, (const char *[]){
				      a.hlog_path, a.flight_out }, 2,
			      "another output of this run");
	if (a.hlog_path)
		cli_out_check(CMD, "--hlog", a.hlog_path, (const char *[]){
				      a.flight_out }, 1,
			      "another output of this run");
	if (a.flight_out)
		cli_out_check(CMD, "--flight-out", a.flight_out, NULL, 0, "");
	if (cli_parsed())
		return CLI_EXIT_OK;
	if (a.hlog_path)
		a.cfg.hlog = hlog = cli_out_open(CMD, a.hlog_path);
	if (a.flight_out)
		flight = cli_out_open(CMD, a.flight_out);
	rc = lat_instr_init(&in, &a.instr, &a.cfg);
	if (rc)
		cli_fail(CMD, "cannot set up counters and flight recorder: "
			     "%s", lat_strerror(rc));
	if (a.sched) /* after instr: it chains to instr's hooks */
		sched = cli_sched_begin(CMD, &a.cfg,
					a.instr.flight ? &in.flight : NULL);
	warn_oversubscribed(&a);
	cli_catch_stop_signals();
	w.cfg = &a.cfg;
	w.show = isatty(STDERR_FILENO) && a.cfg.events / a.cfg.rate > 2;
	if (a.profile_dir)
		prof = cli_profile_self_begin(CMD, a.profile_dir);
	/* a long calibration (--work-ns 100ms) says so before it starts */
	if (lat_work_calibrate_cost_ns(a.cfg.work_ns) > 2e9)
		fprintf(stderr, "latlab pipeline: calibrating %s of work per "
			"event, about %.0f s (Ctrl-C stops)\n",
			lat_fmt_ns(cal_ns, sizeof(cal_ns), a.cfg.work_ns),
			lat_work_calibrate_cost_ns(a.cfg.work_ns) / 1e9);
	rc = lat_pipe_run_until(&a.cfg, &r, watch, &w);
	if (rc == -EINTR && !r.n_deltas) {
		/* nothing ran: no partial result; the outputs stay as
		 * they were (their temporaries are removed) */
		sig = cli_stop_signal();
		fprintf(stderr, "latlab pipeline: interrupted by %s during "
			"start-up: no event was sent\n",
			sig == SIGTERM ? "SIGTERM" : "SIGINT");
		if (a.json)
			printf("{\"command\": \"pipeline\", \"interrupted\": "
			       "true, \"signal\": %d, \"started\": false}\n",
			       sig);
		cli_out_abandon_all();
		return 128 + sig;
	}
	if (prof) /* before the report: the profile is of the run alone */
		cli_profile_self_end(CMD, prof, a.profile_dir, "latlab pipeline");
	if (w.shown)
		fprintf(stderr, "\r%79s\r", "");
	if (rc && !r.n_deltas)
		cli_fail(CMD, "cannot start the pipeline: %s",
			     lat_strerror(rc));
	if (sched)
		cli_sched_end(CMD, sched, &r);
	sig = w.sig ? w.sig : cli_stop_signal();
	lat_instr_fill_result(&in, &r); /* USE counts hot time by task-clock */
	warn_work(&r.work);
	print(&a, &in, &r, sig, sched);
	dump_flight(&a, &in, flight);
	/* an interrupted run's hlog holds whole intervals: it is kept,
	 * marked partial by a comment line (readers skip comments) */
	if (hlog && sig && !rc)
		rc = lat_pipe_hlog_mark_partial(hlog, &r, a.cfg.events,
						sig == SIGTERM
						? "interrupted by SIGTERM"
						: "interrupted by SIGINT");
	if (hlog)
		rc = cli_out_commit(hlog, rc);
	if (rc)
		cli_fail(CMD, "%s: %s", a.hlog_path ? a.hlog_path : "run",
			     lat_strerror(rc));
	if (a.svg) {
		FILE *f = cli_out_open(CMD, a.svg);

		cli_out_close(CMD, a.svg, f, lat_pipe_write_svg(f, &r));
	}
	if (a.hgrm_dir && (rc = lat_pipe_write_hgrm(a.hgrm_dir, &r)))
		cli_fail(CMD, "writing %s: %s", a.hgrm_dir,
			     lat_strerror(rc));
	if (!r.exact)
		cli_fail(CMD, "accounting is not exact: this is a bug");
	lat_pipe_result_destroy(&r);
	lat_sched_attr_free(sched);
	lat_instr_destroy(&in);
	return sig ? 128 + sig : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_pipeline = {
	.name = "pipeline",
	.summary = "instrumented producer -> stages -> consumer pipeline",
	.usage = usage,
	.run = pipeline_main,
};

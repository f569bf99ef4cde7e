/*
 * latlab pipeline: parse flags, place the threads, run the library's
 * pipeline, print. All measuring, ranges and judgements live in src/pipe/;
 * this file maps the library's field names back to flags.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/cgroup.h"
#include "latlab/session.h"
#include "latlab/topo.h"
#include "latlab/work.h"

#define CMD "pipeline"

extern const struct cli_cmd cli_cmd_pipeline;

static struct lat_session S; /* the run: large (perf state per thread) */

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
;

static const char usage_tail[] =
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

struct args {
	struct lat_pipe_config cfg;
	struct lat_instr_opts instr;
	bool json, sched;
	double duration_ns;
	const char *hlog_path, *hgrm_dir, *flight_out, *svg, *profile_dir;
	struct cli_cpus cpus;
	struct lat_pipe_placement placed;
};

static void parse_work_dist(void *args, const char *v)
{
	struct args *a = args;

	if (lat_work_dist_parse(&a->cfg.work_dist, v))
		cli_usage_error(CMD, "--work-dist '%s': expected det, exp, "
				"lognormal:<cv> or bimodal:<p>:<slow time>", v);
}

static void parse_freeze(void *args, const char *v)
{
	struct args *a = args;

	a->instr.flight = true;
	a->instr.freeze_auto = !strcmp(v, "auto");
	if (!a->instr.freeze_auto)
		a->instr.freeze_above = (lat_ns_t)cli_duration_ns(
			CMD, "--freeze-above", v, 1, 1, 3600e9);
}

static void parse_stall(void *args, const char *v)
{
	struct args *a = args;
	const char *colon = strchr(v, ':');
	char seq[32];

	if (!colon || colon == v || (size_t)(colon - v) >= sizeof(seq))
		cli_usage_error(CMD, "--stall-at needs <seq>:<time>, "
				"e.g. 5000:2ms, not '%s'", v);
	memcpy(seq, v, (size_t)(colon - v));
	seq[colon - v] = '\0';
	a->cfg.stall_seq = cli_u64(CMD, "--stall-at", seq, 0, UINT64_MAX - 1);
	/* above 0: a zero stall would be no experiment at all */
	a->cfg.stall_ns = cli_duration_ns(CMD, "--stall-at", colon + 1, 1, 1,
					  INFINITY);
}

/* Syntax only: the ranges are the library's (check_config, below). */
#define CLI_ARGS struct args
static const struct cli_opt opts[] = {
	{ CLI_U64("events", cfg.events, 0, UINT64_MAX), .arg = "<n>",
	  .help = "events to send (default 2000000)" },
	{ CLI_DURATION("duration", duration_ns, 1e9, 1, INFINITY),
	  .arg = "<time>", .help = "or: send for this long at --rate (e.g. 3s)" },
	{ CLI_DOUBLE("rate", cfg.rate, -INFINITY, INFINITY), .arg = "<r>",
	  .help = "offered events per second (default 200000)" },
	{ CLI_WORDS("arrivals", cfg.arrivals, "fixed poisson"),
	  .arg = "<kind>", .help = "fixed gaps or poisson (exponential) gaps\n"
	  "(default fixed)" },
	{ CLI_U64("seed", cfg.seed, 0, UINT64_MAX), .arg = "<n>",
	  .help = "seed of the poisson schedule (default 1)" },
	{ CLI_U64("stages", cfg.stages, 0, INT32_MAX), .arg = "<k>",
	  .help = "work stages, 1..8 (default 1)" },
	{ CLI_DURATION("work-ns", cfg.work_ns, 1, 0, INFINITY),
	  .arg = "<time>", .help = "calibrated busy work per stage "
	  "(default 100ns)" },
	{ CLI_CALL("work-dist", parse_work_dist), .arg = "<d>",
	  .help = "stage 1's work time: det, exp, lognormal:<cv> or\n"
	  "bimodal:<p>:<slow time>, mean --work-ns (default det)" },
	{ CLI_U64("capacity", cfg.capacity, 0, SIZE_MAX), .arg = "<n>",
	  .help = "slots per ring, a power of two (default 4096)" },
	{ CLI_WORDS("wait", cfg.wait, "spin yield block"), .arg = "<kind>",
	  .help = "empty/full ring: spin, yield or block (default spin\n"
	  "with a core per hot thread, else yield)" },
	/* 0 would mean "the default": refused as a value */
	{ CLI_U64("spins", cfg.wait_spins, 1, UINT32_MAX), .arg = "<n>",
	  .help = "pauses before a yield or sleep (default 256, or 16\n"
	  "when hot threads share a CPU)" },
	{ CLI_CPUS("cpus", cpus, LAT_TOPO_MAX_HOT), .arg = "<list>",
	  .help = "CPUs for producer, stages, consumer in order; a\n"
	  "longer list is a pool to place within (default:\n"
	  "one physical core each, isolated first)" },
	{ CLI_SET("no-pin", cfg.pin, false),
	  .help = "let the scheduler place the threads" },
	{ CLI_FLAG("json", json),
	  .help = "print one JSON object instead of the table" },
	{ CLI_STRING("hlog", hlog_path), .arg = "<file>",
	  .help = "interval histograms, one tag per delta (.hlog 1.3)" },
	{ CLI_DURATION("interval", cfg.interval_s, 1e9, 0, INFINITY),
	  .div = 1e9, .arg = "<time>", .help = "--hlog interval (default 1s)" },
	{ CLI_STRING("hgrm", hgrm_dir), .arg = "<dir>",
	  .help = "one percentile distribution per delta, in ns" },
	{ CLI_STRING("svg", svg), .arg = "<file>",
	  .help = "latency by percentile, one line per delta and\n"
	  "e2e (x: percentile, log 1/(1-p); y: log)" },
	{ CLI_SET("no-stamps", cfg.stamps, false),
	  .help = "only t0 and the final stamp (overhead baseline)" },
	{ CLI_STRING("profile", profile_dir), .arg = "<dir>",
	  .help = "on- and off-CPU flame graphs of the run, one root\n"
	  "frame per thread (see latlab profile): <dir>/\n"
	  "oncpu.svg, offcpu.svg and their .folded stacks" },
	{ CLI_FLAG("sched", sched),
	  .help = "trace the scheduler around the run (eBPF; see\n"
	  "latlab sched) and say why the events above p99.9\n"
	  "were slow: time by cause, the tasks named" },
	{ CLI_SET("no-counters", instr.counters, false),
	  .section = "counters and flight recorder:",
	  .help = "skip the per-hot-thread counters (task-clock,\n"
	  "switches, migrations, faults, allocations, IPC)" },
	{ CLI_SET("perf-counters", instr.perf_flags, 0),
	  .help = "count task-clock, switches, migrations and faults\n"
	  "with perf events (default: from /proc, free during\n"
	  "the run; perf's task-clock leaves the context\n"
	  "switches out, but each switch costs ~1.5 us more)" },
	{ CLI_CALL("freeze-above", parse_freeze), .arg = "<t>",
	  .help = "keep the last 4096 samples and freeze on the first\n"
	  "e2e above <t>; 'auto' = p99.9 of this run's first\n"
	  "tenth (the recorder is disarmed during it)" },
	{ CLI_U64("flight-post", instr.flight_post, 0,
		  LAT_FLIGHT_DEFAULT_CAPACITY - 1), .arg = "<n>",
	  .help = "samples kept after the trigger (default 64)" },
	{ CLI_STRING("flight-out", flight_out), .arg = "<file>",
	  .help = "the frozen window as CSV (default: a table of the\n"
	  "trigger and what followed, on stderr)" },
	/* 0 would mean "off": refused as a value */
	{ CLI_U64("alloc", cfg.alloc_bytes, 1, SIZE_MAX), .optional = true,
	  .absent = 256, .arg = "[=<bytes>]", .section = "experiments:",
	  .help = "malloc+free per event in stage 1 (default 256)" },
	{ CLI_FLAG("share-line", cfg.share_line),
	  .help = "stage 1's and the consumer's counters share a\n"
	  "cache line (default: 128 bytes apart)" },
	{ CLI_FLAG("noise", cfg.noise),
	  .help = "a thread streaming over 64 MiB beside the pipeline" },
	{ CLI_CALL("stall-at", parse_stall), .arg = "<seq>:<time>",
	  .help = "stage 1 busy-waits <time> on event <seq>" },
	/* percent of one CPU; the range is the library's */
	{ CLI_DOUBLE("cpu-quota", cfg.cpu_quota, 0, 1e9), .div = 100,
	  .arg = "<pct>",
	  .help = "run in a child cgroup allowed <pct> of one CPU per\n"
	  "period (CFS bandwidth: cpu.max or\n"
	  "cpu.cfs_quota_us; needs root); reports periods,\n"
	  "throttled periods and time, and the fingerprint:\n"
	  "freezes of up to period - quota, once a period" },
	{ CLI_DURATION("cpu-period", cfg.cpu_period_us, 0, 0, 1e10),
	  .div = 1e3, .arg = "<time>",
	  .help = "its period, 1ms..1s (default 100ms)" },
	{ CLI_U64("burst-threads", cfg.burst_threads, 0, 1000), .arg = "<n>",
	  .help = "n threads in the group each spinning a quarter of\n"
	  "every period: a pool bursting past the quota" },
	{ 0 },
};

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

	if ((cli_given("cpu-period") || cli_given("burst-threads")) &&
	    !cli_given("cpu-quota"))
		cli_usage_error(CMD, "--cpu-period and --burst-threads need "
				"--cpu-quota");
	if (!cli_given("cpu-quota"))
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
	lat_session_init(&S); /* the library's defaults */
	a->cfg = S.cfg;
	a->instr = S.instr;
	cli_parse(&cli_cmd_pipeline, a, argc, argv);
	if ((cli_given("flight-post") || a->flight_out) && !a->instr.flight)
		cli_usage_error(CMD, "--flight-post and --flight-out need "
				    "--freeze-above");
	/* options that would change nothing: the command is not what the
	 * user thinks it is */
	if (cli_given("interval") && !a->hlog_path)
		cli_usage_error(CMD, "--interval needs --hlog");
	if (cli_given("seed") && a->cfg.arrivals != LAT_PACE_POISSON)
		cli_usage_error(CMD, "--seed needs --arrivals poisson");
	if (a->instr.flight && !a->cfg.stamps)
		cli_usage_error(CMD, "--freeze-above needs the per-stage "
				    "stamps that --no-stamps turns off");
	if (a->duration_ns > 0 && cli_given("events"))
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
	if (a->cpus.n && !a->cfg.pin)
		cli_usage_error(CMD, "--cpus and --no-pin exclude each other");
}

static void place(struct args *a)
{
	int rc = lat_pipe_place_pool(&a->cfg, a->cpus.n ? a->cpus.cpu : NULL,
				     a->cpus.n, cli_given("wait"), &a->placed);

	if (rc == -ESRCH)
		cli_usage_error(CMD, "--cpus: cpu %d is not online and in "
				    "this process's affinity mask (usable: %s)",
				    a->placed.bad_cpu, a->placed.usable);
	if (rc)
		cli_fail(CMD, "cannot place %d threads: %s",
			     lat_pipe_n_hot(a->cfg.stages), lat_strerror(rc));
}

/* The library words the failure; one is a clash of this command's flags. */
static _Noreturn void session_failed(int rc)
{
	char why[PATH_MAX + 128];

	if (S.failed == LAT_SESSION_SCHED_STAMPS)
		cli_usage_error(CMD, "--sched needs the per-stage stamps "
				    "(drop --no-stamps)");
	cli_fail(CMD, "%s", lat_session_error(&S, rc, why, sizeof(why)));
}

/* Each output opened before the run (every check passed), or NULL. */
static FILE *open_out(const char *path)
{
	return path ? cli_out_open(CMD, path) : NULL;
}

static int pipeline_main(int argc, char **argv)
{
	struct args a = { .json = false };
	const char *why;
	int rc, sig;

	parse(&a, argc, argv);
	if (lat_work_dist_check(&a.cfg.work_dist, a.cfg.work_ns, &why))
		cli_usage_error(CMD, "--work-dist %s: %s",
				    a.cfg.work_dist.name, why);
	place(&a);
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
	/* the directories last, as they are made when missing: a refusal of
	 * another output must not leave one behind (nor an empty hlog: the
	 * files are opened only after every check) */
	if (a.hgrm_dir)
		cli_out_dir_check(CMD, "--hgrm", a.hgrm_dir);
	if (a.profile_dir)
		cli_out_dir_check(CMD, "--profile", a.profile_dir);
	if (cli_parsed())
		return CLI_EXIT_OK;
	S.cfg = a.cfg;
	S.instr = a.instr;
	S.sched = a.sched;
	S.profile_dir = a.profile_dir;
	S.placed = &a.placed;
	S.stop = cli_pipe_stop;
	S.out = stdout;
	S.json = a.json;
	S.hlog = open_out(S.hlog_name = a.hlog_path);
	S.flight_csv = open_out(S.flight_csv_name = a.flight_out);
	S.svg = open_out(S.svg_name = a.svg);
	S.hgrm_dir = a.hgrm_dir;
	S.note = stderr;
	S.note_prefix = "latlab " CMD ": ";
	S.progress = isatty(STDERR_FILENO);
	cli_catch_stop_signals();
	rc = lat_session_begin(&S);
	if (!rc)
		rc = lat_session_run(&S);
	if (rc && rc != -EINTR)
		session_failed(rc);
	sig = cli_stop_signal();
	rc = lat_session_write(&S, sig);
	if (rc)
		session_failed(rc);
	if (!lat_session_started(&S)) { /* nothing ran: the outputs stay as
					 * they were, their temporaries go */
		cli_out_abandon_all();
		return 128 + sig;
	}
	if (S.hlog)
		cli_out_close(CMD, a.hlog_path, S.hlog, 0);
	if (S.flight_csv)
		cli_out_close(CMD, a.flight_out, S.flight_csv, 0);
	if (S.svg)
		cli_out_close(CMD, a.svg, S.svg, 0);
	lat_session_destroy(&S);
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_pipeline = {
	.name = "pipeline",
	.summary = "instrumented producer -> stages -> consumer pipeline",
	.usage = usage,
	.opts = opts,
	.help_col = 23,
	.usage_tail = usage_tail,
	.run = pipeline_main,
};

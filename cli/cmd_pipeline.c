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

/* The run is parsed straight into the library's session. */
struct args {
	struct lat_session s;
	double duration_ns;
	struct cli_cpus cpus;
	struct lat_pipe_placement placed;
};

static struct args A; /* the session: large (perf state per thread) */
#define S A.s

static void parse_work_dist(void *args, const char *v)
{
	struct args *a = args;

	if (lat_work_dist_parse(&a->s.cfg.work_dist, v))
		cli_usage_error(CMD, "--work-dist '%s': expected det, exp, "
				"lognormal:<cv> or bimodal:<p>:<slow time>", v);
}

static void parse_freeze(void *args, const char *v)
{
	struct args *a = args;

	a->s.instr.flight = true;
	a->s.instr.freeze_auto = !strcmp(v, "auto");
	if (!a->s.instr.freeze_auto)
		a->s.instr.freeze_above = (lat_ns_t)cli_duration_ns(
			CMD, "--freeze-above", v, 1, 1, 3600e9);
}

static void parse_stall(void *args, const char *v)
{
	struct args *a = args;

	if (lat_pipe_stall_parse(&a->s.cfg, v))
		cli_usage_error(CMD, "--stall-at needs <seq>:<time above 0>, "
				"e.g. 5000:2ms, not '%s'", v);
}

/* Syntax only: the ranges are the library's (check_config, below). */
#define CLI_ARGS struct args
static const struct cli_opt opts[] = {
	{ CLI_U64("events", s.cfg.events, 0, UINT64_MAX),
	  .excludes = "duration" },
	{ CLI_DURATION("duration", duration_ns, 1e9, 1, INFINITY) },
	{ CLI_DOUBLE("rate", s.cfg.rate, -INFINITY, INFINITY) },
	{ CLI_WORDS("arrivals", s.cfg.arrivals, "fixed poisson") },
	{ CLI_U64("seed", s.cfg.seed, 0, UINT64_MAX) },
	{ CLI_U64("stages", s.cfg.stages, 0, INT32_MAX) },
	{ CLI_DURATION("work-ns", s.cfg.work_ns, 1, 0, INFINITY) },
	{ CLI_CALL("work-dist", parse_work_dist) },
	{ CLI_U64("capacity", s.cfg.capacity, 0, SIZE_MAX) },
	{ CLI_WORDS("wait", s.cfg.wait, "spin yield block") },
	/* 0 would mean "the default": refused as a value */
	{ CLI_U64("spins", s.cfg.wait_spins, 1, UINT32_MAX) },
	{ CLI_CPUS("cpus", cpus, LAT_TOPO_MAX_HOT), .excludes = "no-pin" },
	{ CLI_SET("no-pin", s.cfg.pin, false) },
	{ CLI_FLAG("json", s.json) },
	{ CLI_STRING("hlog", s.hlog_name) },
	{ CLI_DURATION("interval", s.cfg.interval_s, 1e9, 0, INFINITY),
	  .div = 1e9, .needs = "hlog" },
	{ CLI_STRING("hgrm", s.hgrm_dir) },
	{ CLI_STRING("svg", s.svg_name) },
	{ CLI_SET("no-stamps", s.cfg.stamps, false) },
	{ CLI_STRING("profile", s.profile_dir) },
	{ CLI_FLAG("sched", s.sched) },
	{ CLI_SET("no-counters", s.instr.counters, false) },
	{ CLI_SET("perf-counters", s.instr.perf_flags, 0) },
	/* the flight recorder keeps the per-stage stamps */
	{ CLI_CALL("freeze-above", parse_freeze), .excludes = "no-stamps" },
	{ CLI_U64("flight-post", s.instr.flight_post, 0,
		  LAT_FLIGHT_DEFAULT_CAPACITY - 1), .needs = "freeze-above" },
	{ CLI_STRING("flight-out", s.flight_csv_name), .needs = "freeze-above" },
	/* 0 would mean "off": refused as a value */
	{ CLI_U64("alloc", s.cfg.alloc_bytes, 1, SIZE_MAX), .optional = true,
	  .absent = 256 },
	{ CLI_FLAG("share-line", s.cfg.share_line) },
	{ CLI_FLAG("noise", s.cfg.noise) },
	{ CLI_CALL("stall-at", parse_stall) },
	/* percent of one CPU; the range is the library's */
	{ CLI_DOUBLE("cpu-quota", s.cfg.cpu_quota, 0, 1e9), .div = 100 },
	{ CLI_DURATION("cpu-period", s.cfg.cpu_period_us, 0, 0, 1e10),
	  .div = 1e3, .needs = "cpu-quota" },
	{ CLI_U64("burst-threads", s.cfg.burst_threads, 0, 1000),
	  .needs = "cpu-quota" },
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
	struct lat_pipe_config c = a->s.cfg;
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
	char why[LAT_CGROUP_PATH_LEN + 128];
	int rc;

	if (!cli_given("cpu-quota"))
		return;
	if (!(a->s.cfg.cpu_quota > 0))
		cli_usage_error(CMD, "--cpu-quota must be above 0 and at most "
				"100 %% of one CPU");
	rc = lat_cgroup_quota_ready(NULL, &where);
	if (rc)
		cli_usage_error(CMD, "--cpu-quota: %s", lat_cgroup_quota_why(
					rc, &where, why, sizeof(why)));
}

static void parse(struct args *a, int argc, char **argv)
{
	memset(a, 0, sizeof(*a)); /* the fuzz target parses again and again */
	lat_session_init(&a->s); /* the library's defaults */
	cli_parse(&cli_cmd_pipeline, a, argc, argv);
	/* options that would change nothing (the table's .needs too): the
	 * command is not what the user thinks it is */
	if (cli_given("seed") && a->s.cfg.arrivals != LAT_PACE_POISSON)
		cli_usage_error(CMD, "--seed needs --arrivals poisson");
	if (a->duration_ns > 0) {
		int rc = lat_pipe_config_duration(&a->s.cfg, a->duration_ns);

		if (rc == -EDOM)
			cli_usage_error(CMD, "--duration is shorter than one "
					"event at --rate %g/s (one every %g s): "
					"give at least %g s", a->s.cfg.rate,
					1 / a->s.cfg.rate, 1 / a->s.cfg.rate);
		if (rc)
			cli_usage_error(CMD, "--duration at --rate gives "
					    "%.0f events, outside 1..10^12",
					    ceil(a->s.cfg.rate * a->duration_ns /
						 1e9));
	}
	check_config(a);
	check_quota(a);
	if (a->s.instr.freeze_auto && a->s.cfg.events <= LAT_INSTR_WARMUP_MIN)
		cli_usage_error(CMD, "--freeze-above auto measures its "
				    "threshold over the first %d events, so "
				    "%llu events can never arm it: give a time",
				    LAT_INSTR_WARMUP_MIN,
				    (unsigned long long)a->s.cfg.events);
}

static void place(struct args *a)
{
	int rc = lat_pipe_place_pool(&a->s.cfg, a->cpus.n ? a->cpus.cpu : NULL,
				     a->cpus.n, cli_given("wait"), &a->placed);

	if (rc == -ESRCH)
		cli_usage_error(CMD, "--cpus: cpu %d is not online and in "
				    "this process's affinity mask (usable: %s)",
				    a->placed.bad_cpu, a->placed.usable);
	if (rc)
		cli_fail(CMD, "cannot place %d threads: %s",
			     lat_pipe_n_hot(a->s.cfg.stages), lat_strerror(rc));
}

/* The library words the failure; one is a clash of this command's flags. */
static _Noreturn void session_failed(int rc)
{
	char why[PATH_MAX + 128];

	lat_session_error(&S, rc, why, sizeof(why));
	lat_session_destroy(&S); /* its temporary outputs go */
	if (S.failed == LAT_SESSION_SCHED_STAMPS)
		cli_usage_error(CMD, "--sched needs the per-stage stamps "
				    "(drop --no-stamps)");
	cli_fail(CMD, "%s", why);
}

static int pipeline_main(int argc, char **argv)
{
	const char *why;
	int rc;

	parse(&A, argc, argv);
	if (lat_work_dist_check(&S.cfg.work_dist, S.cfg.work_ns, &why))
		cli_usage_error(CMD, "--work-dist %s: %s", S.cfg.work_dist.name,
				why);
	place(&A);
	cli_outs_check(CMD, (const struct cli_out[]){ { "--svg", S.svg_name },
		{ "--hlog", S.hlog_name }, { "--flight-out", S.flight_csv_name }
		}, 3, NULL, 0, false);
	/* the directories last, as they are made when missing: a refusal of
	 * another output must not leave one behind (nor an empty hlog: the
	 * session creates the files only after every check) */
	if (S.hgrm_dir)
		cli_out_dir_check(CMD, "--hgrm", S.hgrm_dir);
	if (S.profile_dir)
		cli_out_dir_check(CMD, "--profile", S.profile_dir);
	if (cli_parsed())
		return CLI_EXIT_OK;
	S.placed = &A.placed;
	S.stop = lat_stop_pipe;
	S.out = stdout;
	S.note = stderr;
	S.note_prefix = "latlab " CMD ": ";
	S.progress = isatty(STDERR_FILENO);
	lat_stop_catch_signals();
	rc = lat_session_begin(&S);
	if (!rc)
		rc = lat_session_run(&S);
	if (rc && rc != -EINTR)
		session_failed(rc);
	rc = lat_session_write(&S, lat_stop_signal());
	if (rc)
		session_failed(rc);
	lat_session_destroy(&S);
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_pipeline = {
	.name = "pipeline",
	.opts = opts,
	.run = pipeline_main,
};

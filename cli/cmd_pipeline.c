/*
 * latlab pipeline: parse flags, place the threads, run the library's
 * pipeline, print. All measuring, ranges and judgements live in src/pipe/;
 * this file maps the library's field names back to flags.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

extern const struct cli_cmd cli_cmd_pipeline;

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
	{ CLI_U64("events", cfg.events, 0, UINT64_MAX),
	  .excludes = "duration" },
	{ CLI_DURATION("duration", duration_ns, 1e9, 1, INFINITY) },
	{ CLI_DOUBLE("rate", cfg.rate, -INFINITY, INFINITY) },
	{ CLI_WORDS("arrivals", cfg.arrivals, "fixed poisson") },
	{ CLI_U64("seed", cfg.seed, 0, UINT64_MAX) },
	{ CLI_U64("stages", cfg.stages, 0, INT32_MAX) },
	{ CLI_DURATION("work-ns", cfg.work_ns, 1, 0, INFINITY) },
	{ CLI_CALL("work-dist", parse_work_dist) },
	{ CLI_U64("capacity", cfg.capacity, 0, SIZE_MAX) },
	{ CLI_WORDS("wait", cfg.wait, "spin yield block") },
	/* 0 would mean "the default": refused as a value */
	{ CLI_U64("spins", cfg.wait_spins, 1, UINT32_MAX) },
	{ CLI_CPUS("cpus", cpus, LAT_TOPO_MAX_HOT), .excludes = "no-pin" },
	{ CLI_SET("no-pin", cfg.pin, false) },
	{ CLI_FLAG("json", json) },
	{ CLI_STRING("hlog", hlog_path) },
	{ CLI_DURATION("interval", cfg.interval_s, 1e9, 0, INFINITY),
	  .div = 1e9, .needs = "hlog" },
	{ CLI_STRING("hgrm", hgrm_dir) },
	{ CLI_STRING("svg", svg) },
	{ CLI_SET("no-stamps", cfg.stamps, false) },
	{ CLI_STRING("profile", profile_dir) },
	{ CLI_FLAG("sched", sched) },
	{ CLI_SET("no-counters", instr.counters, false) },
	{ CLI_SET("perf-counters", instr.perf_flags, 0) },
	/* the flight recorder keeps the per-stage stamps */
	{ CLI_CALL("freeze-above", parse_freeze), .excludes = "no-stamps" },
	{ CLI_U64("flight-post", instr.flight_post, 0,
		  LAT_FLIGHT_DEFAULT_CAPACITY - 1), .needs = "freeze-above" },
	{ CLI_STRING("flight-out", flight_out), .needs = "freeze-above" },
	/* 0 would mean "off": refused as a value */
	{ CLI_U64("alloc", cfg.alloc_bytes, 1, SIZE_MAX), .optional = true,
	  .absent = 256 },
	{ CLI_FLAG("share-line", cfg.share_line) },
	{ CLI_FLAG("noise", cfg.noise) },
	{ CLI_CALL("stall-at", parse_stall) },
	/* percent of one CPU; the range is the library's */
	{ CLI_DOUBLE("cpu-quota", cfg.cpu_quota, 0, 1e9), .div = 100 },
	{ CLI_DURATION("cpu-period", cfg.cpu_period_us, 0, 0, 1e10),
	  .div = 1e3, .needs = "cpu-quota" },
	{ CLI_U64("burst-threads", cfg.burst_threads, 0, 1000),
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
	lat_pipe_config_init(&a->cfg);
	a->instr.counters = true;
	/* software counters from /proc: perf events would make every yield
	 * of the hot threads cost more (latlab/perfctr.h) */
	a->instr.perf_flags = LAT_PERF_SOFT_PROC;
	a->instr.flight_post = 64;
	cli_parse(&cli_cmd_pipeline, a, argc, argv);
	/* options that would change nothing (the table's .needs too): the
	 * command is not what the user thinks it is */
	if (cli_given("seed") && a->cfg.arrivals != LAT_PACE_POISSON)
		cli_usage_error(CMD, "--seed needs --arrivals poisson");
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

/* After every check that can refuse the run, so errors stay one line. */
static void warn_oversubscribed(const struct args *a)
{
	if (!a->placed.oversubscribed)
		return;
	fputs("latlab pipeline: warning: ", stderr);
	lat_pipe_placement_warn(stderr, &a->cfg, &a->placed);
}

/* Set-up is over once events flow: say so for a long run (and a test
 * can wait for this line before it sends a Ctrl-C). */
static void say_running(void *ctx)
{
	const struct lat_pipe_config *c = ctx;

	if ((double)c->events / c->rate > 2)
		fprintf(stderr, "latlab pipeline: running, about %.0f s "
			"(Ctrl-C stops it with a partial result)\n",
			(double)c->events / c->rate);
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
	struct args a = { .json = false };
	struct lat_pipe_result r;
	struct lat_pipe_progress w = { .stop = cli_pipe_stop,
					 .on_flow = say_running };
	FILE *hlog = NULL;
	char cal_ns[LAT_FMT_LEN];
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
	w.stop_ctx = &a.cfg;
	w.planned = a.cfg.events;
	if (isatty(STDERR_FILENO) && a.cfg.events / a.cfg.rate > 2)
		w.out = stderr;
	if (a.profile_dir)
		prof = cli_profile_self_begin(CMD, a.profile_dir);
	/* a long calibration (--work-ns 100ms) says so before it starts */
	if (lat_work_calibrate_cost_ns(a.cfg.work_ns) > 2e9)
		fprintf(stderr, "latlab pipeline: calibrating %s of work per "
			"event, about %.0f s (Ctrl-C stops)\n",
			lat_fmt_ns(cal_ns, sizeof(cal_ns), a.cfg.work_ns),
			lat_work_calibrate_cost_ns(a.cfg.work_ns) / 1e9);
	rc = lat_pipe_run_until(&a.cfg, &r, lat_pipe_progress_watch, &w);
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
	lat_pipe_progress_end(&w);
	if (rc && !r.n_deltas)
		cli_fail(CMD, "cannot start the pipeline: %s",
			     lat_strerror(rc));
	if (sched)
		cli_sched_end(CMD, sched, &r);
	sig = cli_stop_signal();
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
	.opts = opts,
	.run = pipeline_main,
};

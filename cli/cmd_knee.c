/*
 * latlab knee: sweep the offered load of the real pipeline and find where
 * the bottleneck's wait bends, beside Kingman, Pollaczek-Khinchine and the
 * simulator fed with the measured service and arrival histograms.
 */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/knee.h"
#include "latlab/fmt.h"

#define CMD "knee"

extern const struct cli_cmd cli_cmd_knee;

/* The command's options; rep is what the library fills and prints. */
struct knee_opts {
	struct lat_knee_report rep;
	struct lat_work_dist dists[LAT_KNEE_MAX_DISTS];
	int n_dists;
	size_t points;      /* spread from 0.3 to 0.95 */
	double nice;        /* checked whole before it lands in rep.kp */
	bool json, force;
	const char *svg, *hlog_dir;
};

static void parse_rho_list(void *args, const char *arg)
{
	char why[256];

	if (lat_knee_config_parse_rhos(&((struct knee_opts *)args)->rep.kc,
				       arg, why, sizeof(why)))
		cli_usage_error(CMD, "--rho-list '%s': %s", arg, why);
}

static void parse_dists(void *args, const char *arg)
{
	struct knee_opts *o = args;
	char why[256];

	if (lat_knee_parse_dists(o->dists, &o->n_dists, arg, why, sizeof(why)))
		cli_usage_error(CMD, "--work-dist: %s", why);
}

#define CLI_ARGS struct knee_opts
static const struct cli_opt opts[] = {
	/* a knee is a bend between points: two at least */
	{ CLI_U64("points", points, 2, LAT_KNEE_MAX_POINTS),
	  .excludes = "rho-list" },
	{ CLI_CALL("rho-list", parse_rho_list) },
	/* at least 1us: 20 x a wake-up floor is microseconds on any machine
	 * (a hand-off between cores alone costs 50-250 ns), so a shorter
	 * service cannot be paced */
	{ CLI_DURATION("work-ns", rep.base.work_ns, 1, 1000,
		       LAT_KNEE_MAX_WORK_NS) },
	{ CLI_CALL("work-dist", parse_dists) },
	{ CLI_DURATION("point-time", rep.kc.point_s, 0, 1e7, 3600e9),
	  .div = 1e9 },
	{ CLI_WORDS("arrivals", rep.base.arrivals, "fixed poisson") },
	{ CLI_U64("seed", rep.base.seed, 0, UINT64_MAX) },
	{ CLI_U64("customers", rep.kc.sim.customers, 1000, 100000000) },
	{ CLI_DOUBLE("knee-slope", rep.kc.knee_slope, 1e-3, 1e6) },
	{ CLI_STRING("svg", svg) },
	{ CLI_STRING("hlog-dir", hlog_dir) },
	{ CLI_FLAG("force", force) },
	{ CLI_DOUBLE("nice", nice, -20, 19) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static void parse(struct knee_opts *o, int argc, char **argv)
{
	const char *why;

	lat_pipe_config_init(&o->rep.base);
	o->rep.base.arrivals = LAT_PACE_POISSON;
	o->rep.base.work_ns = 0;
	lat_knee_config_init(&o->rep.kc);
	o->n_dists = 1; /* det */
	o->nice = -20;
	cli_parse(&cli_cmd_knee, o, argc, argv);
	o->rep.kp.stage_nice = (int)o->nice;
	if (o->rep.kp.stage_nice != o->nice)
		cli_usage_error(CMD, "--nice must be a whole number from -20 "
				"to 19, not %g", o->nice);
	if (cli_given("points")) /* in range: the span cannot refuse */
		(void)lat_knee_config_span(&o->rep.kc, 0.3, 0.95, o->points);
	if (cli_given("arrivals"))
		o->rep.kc.poisson = o->rep.base.arrivals == LAT_PACE_POISSON;
	if (cli_given("customers"))
		o->rep.kc.sim.warmup = o->rep.kc.sim.customers / 10;
	if (o->hlog_dir) /* made if missing, as every output directory */
		cli_out_dir_check(CMD, "--hlog-dir", o->hlog_dir);
	if (o->svg)
		cli_out_check(CMD, "--svg", o->svg, NULL, 0, "");
	/* a distribution that cannot have the asked mean is refused now;
	 * with the default work it is checked once the floor is known */
	for (int i = 0; cli_given("work-ns") && i < o->n_dists; i++)
		if (lat_work_dist_check(&o->dists[i], o->rep.base.work_ns, &why))
			cli_usage_error(CMD, "--work-dist %s with --work-ns: "
					"%s", o->dists[i].name, why);
	if (lat_knee_config_check(&o->rep.kc, &why))
		cli_usage_error(CMD, "%s", why);
}

/* The measured floor refused the work: say why, naming the flags. */
static _Noreturn void refuse(const struct knee_opts *o,
			     const struct lat_knee_session *s)
{
	char f[LAT_FMT_LEN], w[LAT_FMT_LEN], m[LAT_FMT_LEN];

	lat_fmt_ns(f, sizeof(f), o->rep.floor_ns);
	lat_fmt_ns(w, sizeof(w), o->rep.base.work_ns);
	lat_fmt_ns(m, sizeof(m), lat_knee_min_work_ns(o->rep.floor_ns));
	if (s->verdict == LAT_KNEE_WORK_TOO_BUSY)
		cli_usage_error(CMD, "the wake-up floor is %s here (load "
				"average %.1f): tau would have to be at least "
				"%s, over the 10 ms a sweep can afford; try "
				"when the machine is quieter, or give "
				"--work-ns and --force", f,
				o->rep.kp.last.loadavg, m);
	if (s->verdict == LAT_KNEE_WORK_BAD_DIST)
		cli_usage_error(CMD, "--work-dist %s with the default work "
				"%s: %s (give --work-ns)",
				o->dists[s->bad_dist].name, w, s->why);
	cli_usage_error(CMD, "--work-ns %s is below 20 x the wake-up floor %s "
			"measured here: this machine cannot pace a service "
			"that short (the queue would be the wake-ups); use at "
			"least %s, or --force", w, f, m);
}

static int knee_main(int argc, char **argv)
{
	static struct knee_opts o; /* the sweeps are large */
	struct lat_knee_session s = {
		.rep = &o.rep, .dists = o.dists, .stop = lat_stop_pipe,
		.progress = stderr, .prefix = "latlab knee: ",
	};
	int rc;

	parse(&o, argc, argv);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	s.n_dists = o.n_dists;
	s.work_set = cli_given("work-ns");
	s.force = o.force;
	s.hlog_dir = o.hlog_dir;
	/* Progress goes to stderr with --json too (stdout is the document):
	 * a sweep takes minutes. A usage refusal after the first line is
	 * one only the measured floor could decide. */
	lat_stop_catch_signals();
	fprintf(stderr, "latlab knee: measuring (Ctrl-C stops it and shows "
		"the points done)\n");
	if (o.rep.kp.stage_nice)
		fprintf(stderr, "latlab knee: for the sweep, stage 1 and the "
			"producer at nice %d and this session's scheduler "
			"autogroup at nice %d, given back on exit (--nice 0 "
			"leaves priorities alone)\n", o.rep.kp.stage_nice,
			o.rep.kp.stage_nice);
	rc = lat_knee_session_run(&s);
	if (rc == -ECANCELED)
		refuse(&o, &s);
	if (rc && rc != -EINTR && !s.swept)
		cli_fail(CMD, "%s: %s", s.step, lat_strerror(rc));
	o.rep.sig = lat_stop_signal();
	cli_stdout_check(CMD, lat_knee_write(stdout, &o.rep, o.json));
	if (o.svg) /* a stopped sweep's chart is marked partial */
		CLI_OUT_WRITE(CMD, o.svg, f, lat_knee_svg(f, &o.rep));
	/* a stop asked for is not a failure: the points done are shown */
	if (rc && !(rc == -EINTR && o.rep.sig))
		cli_fail(CMD, "%s: %s", s.step, lat_strerror(rc));
	if (o.rep.kp.hlog_error)
		cli_fail(CMD, "writing the .hlog files: %s",
			 lat_strerror(o.rep.kp.hlog_error));
	return o.rep.sig ? 128 + o.rep.sig : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_knee = {
	.name = "knee",
	.opts = opts,
	.run = knee_main,
};

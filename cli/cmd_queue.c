/*
 * latlab queue: simulate a G/G/c queue, set it beside Kingman and the
 * exact formulas, sweep utilization to find the knee, or find the highest
 * utilization that meets a p99 target.
 */
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/qsim.h"
#include "latlab/json.h"
#include "opt.h"

#define CMD "queue"

extern const struct cli_cmd cli_cmd_queue;

/* The command's options; rep is what the library's printers read. */
struct queue_opts {
	struct lat_qsim_report rep;
	const char *rho, *arrival, *service, *warmup, *target, *sweep;
	double ca, cs;
	const char *svg;
	bool json;
};

/* --ca, --cs: 0 (deterministic) or a cv the library can draw */
static double cv_arg(const char *flag, const char *arg)
{
	struct lat_qsim_dist d;
	double cv = cli_double(CMD, flag, arg, 0, LAT_QSIM_CV_MAX);

	if (lat_qsim_dist_from_cv(&d, cv))
		cli_usage_error(CMD, "%s must be 0 (deterministic) or between "
				"%g and %g, not '%s'", flag, LAT_QSIM_CV_MIN,
				LAT_QSIM_CV_MAX, arg);
	return cv;
}

static void parse_ca(void *o, const char *arg)
{
	((struct queue_opts *)o)->ca = cv_arg("--ca", arg);
}

static void parse_cs(void *o, const char *arg)
{
	((struct queue_opts *)o)->cs = cv_arg("--cs", arg);
}

#define CLI_ARGS struct queue_opts
static const struct cli_opt opts[] = {
	{ CLI_STRING("rho", rho) },
	{ CLI_CALL("ca", parse_ca), .excludes = "arrival" },
	{ CLI_CALL("cs", parse_cs), .excludes = "service service-from" },
	{ CLI_STRING("arrival", arrival) },
	{ CLI_STRING("service", service), .excludes = "service-from" },
	{ CLI_STRING("service-from", rep.service_from) },
	{ CLI_U64("servers", rep.cfg.servers, 1, 100000) },
	{ CLI_U64("customers", rep.cfg.customers, 1000, 100000000000ull) },
	{ CLI_STRING("warmup", warmup) },
	{ CLI_U64("batches", rep.cfg.batches, 2, LAT_QSIM_MAX_BATCHES) },
	{ CLI_U64("seed", rep.cfg.seed, 0, UINT64_MAX) },
	{ CLI_DURATION("service-mean", rep.tau_ns, 0, 1e-3, 1e15),
	  .excludes = "service-from" },
	{ CLI_STRING("sweep", sweep), .excludes = "target-p99 rho" },
	{ CLI_STRING("svg", svg), .needs = "sweep" },
	{ CLI_DOUBLE("knee-slope", rep.knee_slope, 1e-6, 1e9),
	  .needs = "sweep" },
	{ CLI_STRING("target-p99", target), .excludes = "rho" },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static void parse_dist(const char *flag, const char *spec,
		       struct lat_qsim_dist *d)
{
	if (lat_qsim_dist_parse(d, spec))
		cli_usage_error(CMD, "%s: unknown or invalid distribution "
				    "'%s' (see 'latlab queue --help')", flag,
				    spec);
}

/* --sweep <lo>:<hi>:<step>: three finite numbers (the library checks
 * their range) */
static void parse_sweep(struct queue_opts *o)
{
	double *v[3] = { &o->rep.sweep_lo, &o->rep.sweep_hi,
			 &o->rep.sweep_step };
	const char *p = o->sweep;
	char *end;

	for (int i = 0; i < 3; i++, p = end + 1) {
		errno = 0;
		*v[i] = strtod(p, &end);
		if (errno || end == p || !isfinite(*v[i]) ||
		    *end != (i < 2 ? ':' : 0))
			cli_usage_error(CMD, "--sweep needs <lo>:<hi>:<step> "
					"such as 0.1:0.99:0.01, not '%s'",
					o->sweep);
	}
}

/* The sweep's layout, refused before any output or start line. */
static void sweep_init(const struct queue_opts *o, struct lat_qsim_sweep *s)
{
	int err = lat_qsim_sweep_init(s, o->rep.sweep_lo, o->rep.sweep_hi,
				      o->rep.sweep_step, o->rep.knee_slope);

	if (err == -EINVAL)
		cli_usage_error(CMD, "--sweep %g:%g:%g: need 0 < lo <= hi <= "
				"10, step > 0 and at most %d points",
				o->rep.sweep_lo, o->rep.sweep_hi,
				o->rep.sweep_step, LAT_QSIM_MAX_SWEEP);
	if (err)
		cli_fail(CMD, "%s", lat_strerror(err));
}

/*
 * --service-from FILE.hlog[:TAG] (the tag follows ".hlog:" or ".hgrm:"):
 * the service times of a latlab log, loaded by lat_qsim_dist_init_hlog.
 */
static void load_service(struct queue_opts *o)
{
	const char *spec = o->rep.service_from, *tag = NULL;
	const char *dot = strstr(spec, ".hlog:");
	char path[4096], why[512];
	size_t n = strlen(spec);
	int64_t refused;
	int rc;

	if (!dot)
		dot = strstr(spec, ".hgrm:");
	if (dot) {
		n = (size_t)(dot - spec) + 5;
		tag = dot + 6;
	}
	if (n >= sizeof(path))
		cli_usage_error(CMD, "--service-from: path too long");
	if (tag && !*tag)
		cli_usage_error(CMD, "--service-from '%s': empty tag after "
				"':'", spec);
	snprintf(path, sizeof(path), "%.*s", (int)n, spec);
	rc = lat_qsim_dist_init_hlog(&o->rep.cfg.service, path, tag, &refused,
				     why, sizeof(why));
	if (rc && *why)
		cli_usage_error(CMD, "--service-from: %s", why);
	if (refused)
		fprintf(stderr, "latlab queue: --service-from: %lld counts "
			"did not fit while merging and are left out\n",
			(long long)refused);
	if (rc == -ENOMEM)
		cli_fail(CMD, "out of memory");
	if (rc)
		cli_usage_error(CMD, "--service-from '%s': no positive values "
				"to sample", spec);
	o->rep.tau_ns = o->rep.cfg.service.scale_ns;
}

/* Distributions, once every flag is known. */
static void set_dists(struct queue_opts *o)
{
	if (o->arrival)
		parse_dist("--arrival", o->arrival, &o->rep.cfg.arrival);
	else
		lat_qsim_dist_from_cv(&o->rep.cfg.arrival, o->ca);
	if (o->service)
		parse_dist("--service", o->service, &o->rep.cfg.service);
	else if (o->rep.service_from)
		load_service(o);
	else
		lat_qsim_dist_from_cv(&o->rep.cfg.service, o->cs);
}

/* --target-p99: a bare number is in τ; a duration needs τ in ns. */
static double parse_target(const struct queue_opts *o, const char *arg)
{
	char *end;

	/* whatever strtod takes whole ("nan" too) is a number, checked as
	 * one; anything else must be a duration */
	(void)strtod(arg, &end);
	if (end == arg || *end) {
		if (!(o->rep.tau_ns > 0))
			cli_usage_error(CMD, "--target-p99 needs a number "
					    "(in tau), or a duration with "
					    "--service-mean, not '%s'", arg);
		return cli_duration_ns(CMD, "--target-p99", arg, 0, 1e-3,
					   1e18) / o->rep.tau_ns;
	}
	return cli_double(CMD, "--target-p99", arg, 1e-9, 1e9);
}

static void parse(struct queue_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	lat_qsim_config_init(&o->rep.cfg);
	o->rep.knee_slope = LAT_QSIM_KNEE_SLOPE;
	o->ca = o->cs = 1;
	cli_parse(&cli_cmd_queue, o, argc, argv);
	if (o->svg)
		cli_out_check(CMD, "--svg", o->svg, (const char *[]){
				      o->rep.service_from }, 1, "the input");
	if (o->sweep) {
		struct lat_qsim_sweep s;

		parse_sweep(o);
		sweep_init(o, &s);
		lat_qsim_sweep_destroy(&s);
	}
	if (o->rho) {
		o->rep.cfg.rho = cli_double(CMD, "--rho", o->rho, -1e9, 1e9);
		if (!(o->rep.cfg.rho > 0 && o->rep.cfg.rho < 1))
			cli_usage_error(CMD, "--rho must be in (0, 1) for a "
					    "queue to reach steady state, not "
					    "'%s' (a --sweep shows the "
					    "unstable side)", o->rho);
	}
	lat_qsim_config_customers(&o->rep.cfg, o->rep.cfg.customers);
	if (o->warmup)
		o->rep.cfg.warmup = cli_u64(CMD, "--warmup", o->warmup, 0,
					    100000000000ull);
	if (o->rep.cfg.customers < o->rep.cfg.batches)
		cli_usage_error(CMD, "--customers must be at least "
				    "--batches");
	set_dists(o);
	if (o->target)
		o->rep.target = parse_target(o, o->target);
}

static int write_svg(const struct queue_opts *o,
		     const struct lat_qsim_sweep *s)
{
	FILE *f = cli_out_open(CMD, o->svg);
	int err = cli_out_commit(f, lat_qsim_sweep_svg(f, &o->rep, s));

	if (err)
		fprintf(stderr, "latlab queue: writing '%s' failed: %s\n",
			o->svg, strerror(-err));
	return err;
}

/* Ctrl-C: an interrupted run, its partial result, 128 + signal. */
static int interrupted(const char *what)
{
	int sig = cli_stop_signal();

	fprintf(stderr, "latlab queue: interrupted by %s: %s\n",
		sig == SIGTERM ? "SIGTERM" : "SIGINT", what);
	return 128 + sig;
}

static int run_point(const struct queue_opts *o)
{
	struct lat_qsim_result r;
	int err = lat_qsim_run(&o->rep.cfg, &r);
	char what[256];

	if (err && err != -EINTR) {
		lat_qsim_result_destroy(&r);
		cli_fail(CMD, "simulation failed: %s", lat_strerror(err));
	}
	if (r.batches >= 2 && lat_qsim_util_warning(&r, what, sizeof(what)))
		fprintf(stderr, "latlab queue: warning: %s\n", what);
	if (o->json) { /* a run stopped before two batches is a stub */
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_qsim_json_point(&j, &o->rep, &r);
		lat_json_finish(&j);
	} else if (r.batches >= 2) {
		lat_qsim_print_point(stdout, &o->rep, &r);
	}
	lat_qsim_result_destroy(&r);
	if (err != -EINTR)
		return CLI_EXIT_OK;
	if (r.batches < 2)
		return interrupted("stopped before two batches were done, no "
				   "result");
	snprintf(what, sizeof(what), "the result is of the first %u of %u "
		 "batches", r.batches, o->rep.cfg.batches);
	return interrupted(what);
}

static int run_sweep(const struct queue_opts *o)
{
	struct lat_qsim_sweep s;
	int sig, rc = CLI_EXIT_OK, err;

	sweep_init(o, &s);
	err = lat_qsim_sweep_run(&s, &o->rep.cfg, cli_qsim_sweep_stop, NULL);
	if (err)
		cli_fail(CMD, "simulation at rho %.4g failed: %s",
			 s.pts[s.done].rho, lat_strerror(err));
	if (o->json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_qsim_json_sweep(&j, &o->rep, &s);
		lat_json_finish(&j);
	} else {
		lat_qsim_print_sweep(stdout, &o->rep, &s);
	}
	if (o->svg && write_svg(o, &s))
		rc = CLI_EXIT_FAIL;
	lat_qsim_sweep_destroy(&s);
	sig = cli_stop_signal();
	return sig ? 128 + sig : rc;
}

static int run_target(const struct queue_opts *o)
{
	struct lat_qsim_target_run t;
	int err = lat_qsim_target_search(&o->rep.cfg, o->rep.target, 1e-3, &t);

	if (err && err != -EINTR)
		cli_fail(CMD, "simulation failed: %s", lat_strerror(err));
	if (o->json) { /* an interrupted search is a stub */
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_qsim_json_target(&j, &o->rep, &t);
		lat_json_finish(&j);
	} else if (!err) {
		lat_qsim_print_target(stdout, &o->rep, &t);
	}
	lat_qsim_result_destroy(&t.at);
	if (err != -EINTR)
		return CLI_EXIT_OK;
	return interrupted(t.status == -EINTR ? "the search for the load was "
			   "not finished" : "the load was found; its final "
			   "run was not finished");
}

static int queue_main(int argc, char **argv)
{
	struct queue_opts o;
	int rc;

	parse(&o, argc, argv);
	if (cli_parsed()) {
		lat_qsim_dist_destroy(&o.rep.cfg.service);
		return CLI_EXIT_OK;
	}
	cli_catch_stop_signals();
	o.rep.cfg.stop = cli_stop_requested;
	/* a long simulation says so (and how to stop it) before it starts */
	if (o.sweep || o.rep.target > 0 ||
	    o.rep.cfg.customers + o.rep.cfg.warmup >= 10000000)
		fprintf(stderr, "latlab queue: simulating %" PRIu64
			" customers%s (Ctrl-C stops with what is done)\n",
			o.rep.cfg.customers + o.rep.cfg.warmup,
			o.sweep ? " per point" :
			o.rep.target > 0 ? " per run" : "");
	if (o.sweep)
		rc = run_sweep(&o);
	else if (o.rep.target > 0)
		rc = run_target(&o);
	else
		rc = run_point(&o);
	lat_qsim_dist_destroy(&o.rep.cfg.service);
	return rc;
}

const struct cli_cmd cli_cmd_queue = {
	.name = "queue",
	.opts = opts,
	.run = queue_main,
};

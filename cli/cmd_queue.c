/*
 * latlab queue: simulate a G/G/c queue, set it beside Kingman and the
 * exact formulas, sweep utilization to find the knee, or find the highest
 * utilization that meets a p99 target.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/qsim.h"
#include "opt.h"

#define CMD "queue"

extern const struct cli_cmd cli_cmd_queue;

/* The command's options; rep is what the library's printers read. */
struct queue_opts {
	struct lat_qsim_report rep;
	const char *arrival, *service, *target, *sweep;
	double ca, cs;      /* the library refuses a cv it cannot draw */
	uint64_t warmup;    /* set after --customers' default warm-up */
	const char *svg;
	bool json;
};

#define CLI_ARGS struct queue_opts
static const struct cli_opt opts[] = {
	{ CLI_DOUBLE("rho", rep.cfg.rho, -1e9, 1e9) },
	{ CLI_DOUBLE("ca", ca, 0, LAT_QSIM_CV_MAX), .excludes = "arrival" },
	{ CLI_DOUBLE("cs", cs, 0, LAT_QSIM_CV_MAX),
	  .excludes = "service service-from" },
	{ CLI_STRING("arrival", arrival) },
	{ CLI_STRING("service", service), .excludes = "service-from" },
	{ CLI_STRING("service-from", rep.service_from) },
	{ CLI_U64("servers", rep.cfg.servers, 1, 100000) },
	{ CLI_U64("customers", rep.cfg.customers, 1000, 100000000000ull) },
	{ CLI_U64("warmup", warmup, 0, 100000000000ull) },
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

/* --sweep <lo>:<hi>:<step>, its layout refused before any output */
static void parse_sweep(struct queue_opts *o)
{
	int err = lat_qsim_parse_range(o->sweep, &o->rep.sweep_lo,
				       &o->rep.sweep_hi, &o->rep.sweep_step);

	if (err == -ERANGE)
		cli_usage_error(CMD, "--sweep %g:%g:%g: need 0 < lo <= hi <= "
				"10, step > 0 and at most %d points",
				o->rep.sweep_lo, o->rep.sweep_hi,
				o->rep.sweep_step, LAT_QSIM_MAX_SWEEP);
	if (err)
		cli_usage_error(CMD, "--sweep needs <lo>:<hi>:<step> such as "
				"0.1:0.99:0.01, not '%s'", o->sweep);
}

/* Distributions, once every flag is known. */
static void set_dists(struct queue_opts *o)
{
	static const char *const flag[] = { [LAT_QSIM_ARRIVAL] = "--arrival",
		[LAT_QSIM_SERVICE] = "--service",
		[LAT_QSIM_SERVICE_FROM] = "--service-from",
		[LAT_QSIM_CA] = "--ca", [LAT_QSIM_CS] = "--cs" };
	enum lat_qsim_field bad;
	char why[512];
	int64_t refused;
	int rc = lat_qsim_report_dists(&o->rep, o->arrival, o->ca, o->service,
				       o->cs, &refused, &bad, why, sizeof(why));

	if (refused)
		fprintf(stderr, "latlab queue: --service-from: %lld counts "
			"did not fit while merging and are left out\n",
			(long long)refused);
	if (rc && *why)
		cli_usage_error(CMD, "%s: %s", flag[bad], why);
	if (rc)
		cli_fail(CMD, "%s: %s", flag[bad], lat_strerror(rc));
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
	if (o->sweep)
		parse_sweep(o);
	if (cli_given("rho") && !(o->rep.cfg.rho > 0 && o->rep.cfg.rho < 1))
		cli_usage_error(CMD, "--rho must be in (0, 1) for a queue to "
				    "reach steady state, not %g (a --sweep "
				    "shows the unstable side)", o->rep.cfg.rho);
	lat_qsim_config_customers(&o->rep.cfg, o->rep.cfg.customers);
	if (cli_given("warmup"))
		o->rep.cfg.warmup = o->warmup;
	if (o->rep.cfg.customers < o->rep.cfg.batches)
		cli_usage_error(CMD, "--customers must be at least "
				    "--batches");
	set_dists(o);
	if (o->target)
		o->rep.target = parse_target(o, o->target);
}

static int queue_main(int argc, char **argv)
{
	struct queue_opts o;
	struct lat_qsim_session q = {
		.rep = &o.rep, .out = stdout, .warn = stderr,
		.prefix = "latlab queue: ", .stop = lat_stop_sweep,
	};
	int rc;

	parse(&o, argc, argv);
	q.json = o.json;
	if (cli_parsed()) {
		lat_qsim_dist_destroy(&o.rep.cfg.service);
		return CLI_EXIT_OK;
	}
	lat_stop_catch_signals();
	o.rep.cfg.stop = lat_stop_requested;
	/* a long simulation says so (and how to stop it) before it starts */
	if (o.sweep || o.rep.target > 0 ||
	    o.rep.cfg.customers + o.rep.cfg.warmup >= 10000000)
		fprintf(stderr, "latlab queue: simulating %" PRIu64
			" customers%s (Ctrl-C stops with what is done)\n",
			o.rep.cfg.customers + o.rep.cfg.warmup,
			o.sweep ? " per point" :
			o.rep.target > 0 ? " per run" : "");
	if (o.svg)
		q.svg = cli_out_open(CMD, o.svg);
	rc = lat_qsim_session_run(&q);
	lat_qsim_dist_destroy(&o.rep.cfg.service);
	if (rc && rc != -EINTR)
		cli_fail(CMD, "%s: %s", q.why, lat_strerror(rc));
	if (o.svg) /* a stopped sweep's chart is marked partial */
		cli_out_close(CMD, o.svg, q.svg, q.svg_rc);
	return rc ? cli_interrupted(CMD, ": %s", q.why) : CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_queue = {
	.name = "queue",
	.opts = opts,
	.run = queue_main,
};

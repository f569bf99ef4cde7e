/*
 * latlab co: make the benchmark lie (coordinated omission). One toy
 * service, one stall, one run, measured three ways; see latlab/co.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/co.h"

#define CMD "co"

extern const struct cli_cmd cli_cmd_co;

struct co_opts {
	struct lat_co_config cfg;
	bool json;
	const char *svg;
};

#define CLI_ARGS struct co_opts
static const struct cli_opt opts[] = {
	{ CLI_U64("requests", cfg.requests, 1, 100000000), .short_name = 'n' },
	{ CLI_DOUBLE("rate", cfg.rate_per_s, 1, 1e7), .short_name = 'r' },
	{ CLI_DURATION("service", cfg.service_ns, 1e3, 100, 1e9),
	  .short_name = 's' },
	{ CLI_DURATION("stall", cfg.stall_ns, 1e6, 0, 60e9),
	  .short_name = 'S' },
	{ CLI_U64("stall-at", cfg.stall_at, 0, UINT64_MAX) },
	{ CLI_WORDS("clock", cfg.clock, "wall cpu"), .short_name = 'c' },
	{ CLI_FLAG("json", json) },
	{ CLI_STRING("svg", svg) },
	{ 0 },
};

static void parse(int argc, char **argv, struct co_opts *o)
{
	cli_parse(&cli_cmd_co, o, argc, argv);
	if (o->svg)
		cli_out_check(CMD, "--svg", o->svg, NULL, 0, "");
	/* a position for a stall that is not there is a mistake in the
	 * command, not something to ignore */
	if (cli_given("stall-at") && o->cfg.stall_ns == 0)
		cli_usage_error(CMD, "--stall-at needs a --stall above 0");
	if (!cli_given("stall-at"))
		o->cfg.stall_at = o->cfg.requests / 2;
	if (o->cfg.stall_at >= o->cfg.requests)
		cli_usage_error(CMD, "--stall-at %" PRIu64 " is not below "
				    "--requests %" PRIu64, o->cfg.stall_at,
				    o->cfg.requests);
	if (o->cfg.rate_per_s * o->cfg.service_ns / 1e9 >= 1)
		cli_usage_error(CMD, "--rate x --service is %.2f: the "
				    "server would be over 100%% busy and never "
				    "catch up (keep it below 1)",
				    o->cfg.rate_per_s * o->cfg.service_ns /
					    1e9);
}

static int co_main(int argc, char **argv)
{
	struct co_opts o = {
		.cfg = { .requests = 10000, .rate_per_s = 10000,
			 .service_ns = 20e3, .stall_ns = 50e6 },
	};
	static struct lat_co_report r;
	int rc;

	parse(argc, argv, &o);
	if (cli_parsed())
		return CLI_EXIT_OK;
	lat_stop_catch_signals();
	o.cfg.stop = lat_stop_requested;
	rc = lat_co_report_init(&r, &o.cfg);
	if (rc)
		cli_fail(CMD, "cannot %s: %s", rc == -ENOMEM ? "allocate "
			 "histograms" : "calibrate the cycle clock",
			 lat_strerror(rc));
	fprintf(stderr, "latlab co: %" PRIu64 " requests, about %.2f s\n",
		o.cfg.requests,
		(double)o.cfg.requests / o.cfg.rate_per_s +
			o.cfg.stall_ns / 1e9);
	rc = lat_co_report_run(&r);
	if (rc && rc != -EINTR)
		cli_fail(CMD, "run failed: %s", lat_strerror(rc));
	if (rc == -EINTR)
		cli_interrupted(CMD, " after %" PRIu64 " of %" PRIu64 " requests:"
				" the results are of those", r.st.done,
				o.cfg.requests);
	if (lat_co_over_range(&r))
		cli_fail(CMD, "%" PRId64 " latencies beyond the histogram's "
			 "range (1 ns..1 h)", lat_co_over_range(&r));
	cli_stdout_check(CMD, lat_co_write(stdout, &r, o.json));
	if (o.svg)
		CLI_OUT_WRITE(CMD, o.svg, f, lat_co_write_svg(f, &o.cfg,
			      &r.h[LAT_CO_CLOSED], &r.h[LAT_CO_CORRECTED],
			      &r.h[LAT_CO_OPEN]));
	lat_co_report_release(&r);
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_co = {
	.name = "co",
	.opts = opts,
	.run = co_main,
};

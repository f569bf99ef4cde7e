/*
 * latlab clock: own the cycle clock. Calibrates the counter three times
 * against CLOCK_MONOTONIC_RAW, measures its drift, what one read of each
 * kind costs, and whether the counter can be trusted as time at all.
 */
#include <stdio.h>

#include "cli.h"
#include "latlab/clock.h"

#define CMD "clock"

extern const struct cli_cmd cli_cmd_clock;

struct clock_opts {
	double drift_s;
	unsigned calib_ms;
	uint64_t pairs;
	bool json;
};

#define CLI_ARGS struct clock_opts
static const struct cli_opt opts[] = {
	{ CLI_DOUBLE("drift-seconds", drift_s, 0.01, 3600) },
	{ CLI_U64("calib-ms", calib_ms, 10, 60000) },
	{ CLI_U64("pairs", pairs, 1000, 50000000) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static int clock_main(int argc, char **argv)
{
	struct clock_opts o = {
		.drift_s = 3, .calib_ms = 200, .pairs = 200000, .json = false,
	};
	static struct lat_clock_report r;
	int rc;

	cli_parse(&cli_cmd_clock, &o, argc, argv);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	rc = lat_clock_report_calibrate(&r, o.calib_ms);
	if (rc)
		cli_fail(CMD, "calibration failed: %s", lat_strerror(rc));
	/* caught only from here: a Ctrl-C during the calibrations (which
	 * cannot be cut short and leave nothing to show) ends the command,
	 * where a caught one would be seen only after the whole drift wait */
	lat_stop_catch_signals();
	if (o.drift_s > 2) /* a long wait says so, and how to end it */
		fprintf(stderr, "latlab clock: measuring the drift over %g s "
			"(Ctrl-C ends it early)\n", o.drift_s);
	rc = lat_clock_report_measure(&r, o.drift_s, o.pairs,
				      lat_stop_requested, NULL);
	if (rc)
		cli_fail(CMD, "measuring: %s", lat_strerror(rc));
	if (o.json) /* scripts read stdout; a person watching sees these */
		lat_clock_warnings_print(stderr, "latlab clock: ", &r);
	else
		printf("latlab clock: ");
	rc = lat_clock_report_write(stdout, o.json, &r);
	if (rc)
		cli_fail(CMD, "writing the results: %s", lat_strerror(rc));
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_clock = {
	.name = "clock",
	.opts = opts,
	.run = clock_main,
};

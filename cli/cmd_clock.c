/*
 * latlab clock: own the cycle clock. Calibrates the counter three times
 * against CLOCK_MONOTONIC_RAW, measures its drift, what one read of each
 * kind costs, and whether the counter can be trusted as time at all.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "latlab/clock.h"
#include "latlab/json.h"

#define CMD "clock"

static const char usage[] =
"latlab clock: own the cycle clock\n"
"\n"
"Calibrates the cycle counter (TSC / cntvct_el0) three times against\n"
"CLOCK_MONOTONIC_RAW, measures its drift, what one read of each kind\n"
"costs (p50/p99 of back-to-back pairs), and whether the counter is\n"
"invariant, i.e. whether cycles are time at all.\n"
"\n"
"usage: latlab clock [--drift-seconds <s>] [--calib-ms <ms>]\n"
"                    [--pairs <n>] [--json]\n"
"\n"
"options:\n"
"  --drift-seconds <s>  drift interval in seconds, 0.01..3600\n"
"                       (default 3)\n"
"  --calib-ms <ms>      length of each of the three calibrations,\n"
"                       10..60000 (default 200)\n"
"  --pairs <n>          back-to-back read pairs per kind of read,\n"
"                       1000..50M, k/M suffixes (default 200k)\n"
"  --json               print one JSON object instead of the report\n"
"\n"
"EXAMPLES:\n"
"  latlab clock                        # the full lab, ~4 s\n"
"  latlab clock --drift-seconds 60     # is the ratio still right a "
"minute later?\n"
"  latlab clock --json | jq .read_cost # read costs for a script\n"
"  latlab clock --calib-ms 20 --drift-seconds 0.5 --pairs 10k"
"  # quick look\n";

struct clock_opts {
	double drift_s;
	unsigned calib_ms;
	uint64_t pairs;
	bool json;
};

enum { OPT_DRIFT = 256, OPT_CALIB, OPT_PAIRS, OPT_JSON };

static const struct option options[] = {
	{ "drift-seconds", required_argument, NULL, OPT_DRIFT },
	{ "calib-ms", required_argument, NULL, OPT_CALIB },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 },
};

static void parse(int argc, char **argv, struct clock_opts *o)
{
	int c;

	while ((c = cli_getopt(argc, argv, ":", options)) != -1) {
		switch (c) {
		case OPT_DRIFT:
			o->drift_s = cli_double(CMD, "--drift-seconds",
						    optarg, 0.01, 3600);
			break;
		case OPT_CALIB:
			o->calib_ms = (unsigned)cli_u64(CMD, "--calib-ms",
							    optarg, 10, 60000);
			break;
		case OPT_PAIRS:
			o->pairs = cli_u64(CMD, "--pairs", optarg, 1000,
					       50000000);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		default:
			cli_bad_option(CMD, argv, c);
		}
	}
	cli_no_operands(CMD, argc, argv);
}

static int clock_main(int argc, char **argv)
{
	struct clock_opts o = {
		.drift_s = 3, .calib_ms = 200, .pairs = 200000, .json = false,
	};
	static struct lat_clock_report r;
	char buf[160];
	int rc;

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	rc = lat_clock_report_calibrate(&r, o.calib_ms);
	if (rc)
		cli_fail(CMD, "calibration failed: %s", lat_strerror(rc));
	/* caught only from here: a Ctrl-C during the calibrations (which
	 * cannot be cut short and leave nothing to show) ends the command,
	 * where a caught one would be seen only after the whole drift wait */
	cli_catch_stop_signals();
	if (o.drift_s > 2) /* a long wait says so, and how to end it */
		fprintf(stderr, "latlab clock: measuring the drift over %g s "
			"(Ctrl-C ends it early)\n", o.drift_s);
	rc = lat_clock_report_measure(&r, o.drift_s, o.pairs,
				      cli_stop_requested, NULL);
	if (rc)
		cli_fail(CMD, "measuring: %s", lat_strerror(rc));
	if (o.json) {
		struct lat_json j;

		/* Scripts read stdout; a person watching still sees these. */
		for (unsigned w = 1; w <= LAT_CLOCK_WARN_LAST; w <<= 1)
			if (r.warnings & w)
				fprintf(stderr, "latlab clock: warning: %s\n",
					lat_clock_warning_text(&r, w, buf,
							       sizeof(buf)));
		lat_json_init(&j, stdout);
		lat_clock_report_json(&j, &r);
		if (lat_json_finish(&j))
			cli_fail(CMD, "internal error: malformed JSON");
	} else {
		printf("latlab clock: ");
		lat_clock_report_print(stdout, &r);
	}
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_clock = {
	.name = "clock",
	.summary = "own the cycle clock: calibration, drift, read cost",
	.usage = usage,
	.run = clock_main,
};

/*
 * latlab bench: make a microbenchmark lie, then distrust it. The figures
 * are measured by lat_bench_suite_run (src/bench/bench_suite.c) and
 * printed with what they mean by lat_bench_suite_print/_json.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latlab/bench.h"

#define CMD "bench"

extern const struct cli_cmd cli_cmd_bench;

struct opts {
	unsigned reps;
	uint64_t iters;     /* messages per cross-thread throughput round */
	bool quick;
	bool json;
};

#define CLI_ARGS struct opts
static const struct cli_opt opts[] = {
	{ CLI_U64("reps", reps, 1, 64), .short_name = 'r' },
	{ CLI_U64("iters", iters, 10000, 1000000000), .short_name = 'n' },
	{ CLI_FLAG("quick", quick) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

static int bench_main(int argc, char **argv)
{
	struct opts o = { 0 }; /* 0: the library's defaults */
	static struct lat_bench_suite s;
	int rc;

	cli_parse(&cli_cmd_bench, &o, argc, argv);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	lat_bench_suite_defaults(&o.reps, &o.iters, o.quick);
	fprintf(stderr, "latlab bench: %u rounds per figure (+1 warm-up)\n",
		o.reps);
	rc = lat_bench_suite_run(&s, o.reps, o.iters, o.quick);
	if (rc)
		cli_fail(CMD, "measurement failed: %s", lat_strerror(rc));
	rc = lat_bench_suite_write(stdout, o.json, &s);
	if (rc)
		cli_fail(CMD, "writing the results: %s", lat_strerror(rc));
	return CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_bench = {
	.name = "bench",
	.opts = opts,
	.run = bench_main,
};

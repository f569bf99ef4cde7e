/*
 * latlab bench: make a microbenchmark lie, then distrust it. The figures
 * are measured by lat_bench_suite_run (src/bench/bench_suite.c) and
 * printed with what they mean by lat_bench_suite_print/_json.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latlab/bench.h"
#include "latlab/json.h"

#define CMD "bench"

extern const struct cli_cmd cli_cmd_bench;

static const char usage[] =
"latlab bench: make a microbenchmark lie, then distrust it\n"
"\n"
"usage: latlab bench [--reps <n>] [--iters <n>] [--quick] [--json]\n"
"\n"
"Times a loop whose result is unused (the compiler deletes it) next\n"
"to the same loop kept alive by an optimization barrier; the SPSC\n"
"ring's push+pop on one thread; and across two threads pinned to\n"
"different cores (placement printed): one-way handoff latency and\n"
"throughput, single and batched. A cache-line ping-pong floor is\n"
"measured on the same CPUs in the same rounds; a latency below it\n"
"is printed as implausible, not reported. The latency-mode ring's\n"
"handoffs are judged against their honest floors, measured alike:\n"
"a line each way (8 B; any round trip through two rings needs it)\n"
"and a payload line plus a mark line each way (64 B), with the\n"
"one-line floor and its distance to the two-line one beside them.\n"
"Each figure is the median of several rounds with min and max; one\n"
"warm-up round is dropped.\n"
"\n"
;

static const char usage_tail[] =
"\n"
"EXAMPLES:\n"
"  latlab bench                   # the full run, ~a minute\n"
"  latlab bench --quick --json    # a few seconds, for scripts\n"
"  taskset -c 2,3 latlab bench    # choose the two CPUs yourself\n";

struct opts {
	unsigned reps;
	uint64_t iters;     /* messages per cross-thread throughput round */
	bool quick;
	bool json;
};

#define CLI_ARGS struct opts
static const struct cli_opt opts[] = {
	{ CLI_U64("reps", reps, 1, 64), .short_name = 'r', .arg = "<n>",
	  .help = "rounds per figure, 1..64 (default 7; 3 with\n--quick)" },
	{ CLI_U64("iters", iters, 10000, 1000000000), .short_name = 'n',
	  .arg = "<n>", .help = "messages per throughput round (default 2M;\n"
	  "100k with --quick); handoffs use n/50" },
	{ CLI_FLAG("quick", quick),
	  .help = "small counts, for tests and a first look" },
	{ CLI_FLAG("json", json), .help = "results as JSON on stdout" },
	{ 0 },
};

static void parse(int argc, char **argv, struct opts *o)
{
	cli_parse(&cli_cmd_bench, o, argc, argv);
	if (o->quick) {
		if (!cli_given("reps"))
			o->reps = 3;
		if (!cli_given("iters"))
			o->iters = 100000;
	}
}

static int bench_main(int argc, char **argv)
{
	struct opts o = { .reps = 7, .iters = 2000000 };
	static struct lat_bench_suite s;
	int rc;

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	fprintf(stderr, "latlab bench: %u rounds per figure (+1 warm-up)\n",
		o.reps);
	rc = lat_bench_suite_run(&s, o.reps, o.iters, o.quick);
	if (rc)
		cli_fail(CMD, "measurement failed: %s", lat_strerror(rc));
	if (o.json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_bench_suite_json(&j, &s);
		if (lat_json_finish(&j))
			cli_fail(CMD, "internal error writing JSON");
	} else {
		lat_bench_suite_print(stdout, &s);
	}
	return CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_bench = {
	.name = "bench",
	.summary = "microbenchmark traps: dead code, the ring, the floor",
	.usage = usage,
	.opts = opts,
	.help_col = 20,
	.usage_tail = usage_tail,
	.run = bench_main,
};

/*
 * latlab lab: the pipeline's diseases side by side. Parses, calls the lab
 * library (src/lab: plan, run, judge) and prints its table or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/lab.h"

#define CMD "lab"
/* --sham without --rounds: five baselines around four nulls */
#define SHAM_ROUNDS 4

extern const struct cli_cmd cli_cmd_lab;

struct args {
	struct lat_lab_opts o;
	bool json, quick;
	const char *svg;
};

static void parse_only(void *args, const char *list)
{
	struct args *a = args;
	char bad[64];

	if (lat_lab_want_parse(&a->o, list, bad, sizeof(bad)))
		cli_usage_error(CMD, "--only: no experiment '%s' (see "
				"latlab lab --help)", bad);
}

#define CLI_ARGS struct args
static const struct cli_opt opts[] = {
	{ CLI_U64("rounds", o.rounds, 1, LAT_LAB_MAX_ROUNDS) },
	{ CLI_U64("seed", o.seed, 0, UINT64_MAX) },
	{ CLI_U64("events", o.events, 1000, 1000000000ULL) },
	{ CLI_DOUBLE("rate", o.rate, 100, 1e9) },
	{ CLI_CALL("only", parse_only) },
	/* --sham runs null alone */
	{ CLI_FLAG("sham", o.sham_only), .excludes = "only" },
	{ CLI_FLAG("quick", quick) },
	{ CLI_FLAG("json", json) },
	{ CLI_STRING("svg", svg) },
	{ 0 },
};

/* The library names the field; the command names its flag. */
static void check(const struct args *a)
{
	const char *why;

	if (!lat_lab_opts_check(&a->o, &why))
		return;
	if (!a->o.sham_only && !strncmp(why, "want", 4))
		cli_usage_error(CMD, "--only names no disease: null runs in "
				"every lab (--sham runs it alone)");
	cli_usage_error(CMD, "--%s", why);
}

static void parse(struct args *a, int argc, char **argv)
{
	lat_lab_opts_init(&a->o);
	cli_parse(&cli_cmd_lab, a, argc, argv);
	if (a->svg) { /* the chart draws every end-to-end latency */
		a->o.keep_e2e = true;
		cli_out_check(CMD, "--svg", a->svg, NULL, 0, "");
	}
	if (a->o.sham_only) {
		for (int e = 0; e < LAT_LAB_N_EXP; e++) /* no --only */
			a->o.want[e] = false;
		/* one null between two baselines judges nothing: their
		 * spread needs a few more */
		if (!cli_given("rounds"))
			a->o.rounds = SHAM_ROUNDS;
	}
	if (a->quick) {
		a->o.events = cli_given("events") ? a->o.events : 20000;
		a->o.calibrate_ms = 50;
	}
	check(a);
}

static int lab_main(int argc, char **argv)
{
	static struct lat_lab L; /* ~400 KiB of rows: not on the stack */
	struct args a = { 0 };
	int rc;

	parse(&a, argc, argv);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	memset(&L, 0, sizeof(L));
	L.opts = a.o;
	rc = lat_lab_plan(&L);
	if (rc)
		cli_fail(CMD, "cannot place the pipeline's threads: %s",
			 lat_strerror(rc));
	lat_stop_catch_signals();
	rc = lat_lab_run(&L, lat_stop_pipe, NULL, stderr);
	/* stopped while a run was setting up: the runs done are the result */
	if (rc == -EINTR && lat_stop_signal())
		rc = 0;
	if (rc)
		cli_fail(CMD, "run %d (%s) failed: %s", L.n_rows + 1,
			 L.row[L.n_rows].name, lat_strerror(rc));
	if (lat_lab_report(stdout, a.json, CMD, lat_stop_signal(), &L))
		cli_fail(CMD, "cannot write the results");
	if (a.svg && L.n_e2e)
		CLI_OUT_WRITE(CMD, a.svg, f, lat_lab_write_svg(f, &L));
	lat_lab_free_e2e(&L);
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_lab = {
	.name = "lab",
	.opts = opts,
	.run = lab_main,
};

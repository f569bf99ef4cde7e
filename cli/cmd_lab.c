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

static const char usage[] =
"latlab lab: break the pipeline on purpose, and see each break's "
"fingerprint\n"
"\n"
"usage: latlab lab [--rounds <n>] [--seed <n>] [--events <n>] [--rate <r>]\n"
"                  [--only <experiment>,... | --sham] [--quick] [--json]\n"
"                  [--svg <file>]\n"
"\n"
"Runs baselines and experiments alternately (B E1 B E2 B ...; with\n"
"--rounds, each round after the first in a shuffled order), all in this\n"
"process with counters on every hot thread. Each experiment is compared\n"
"with the baselines run just before and after it; the baselines' drift\n"
"over the whole run and their spread around that drift are measured and\n"
"printed, and a change counts only past both. Each verdict names the\n"
"fingerprint the experiment should leave and whether it was seen, or why\n"
"this machine cannot show it.\n"
"\n"
"experiments (the sham 'null' runs in every lab):\n"
"  null             the baseline itself: must show no effect\n"
"  alloc            malloc+free of 256 bytes per event in stage 1\n"
"  alloc-mmap       ... of 140 KiB (above malloc's mmap threshold), at\n"
"                   1/40 of the rate against a baseline at that rate\n"
"  no-pin           the scheduler places the threads\n"
"  noise            a thread streaming over 64 MiB beside the pipeline\n"
"  stall            stage 1 stalls once (4x the baselines' worst e2e so\n"
"                   far, >= 2 ms); the flight recorder freezes on it\n"
"  share-line       stage 1's and the consumer's counters on one cache\n"
"                   line, the two threads on different CPUs (waits up to\n"
"                   10 s for the host to run those CPUs on two cores)\n"
"  share-line-1cpu  the same line with both on one CPU: the control\n"
"\n"
;

static const char usage_tail[] =
"\n"
"Exit status: 0 done (whatever the verdicts), 1 runtime failure, 2 bad\n"
"usage, 130/143 stopped by SIGINT/SIGTERM (the runs done are judged).\n"
"\n"
"EXAMPLES:\n"
"  latlab lab                          # every disease, 25-40 s\n"
"  latlab lab --quick --json           # a few seconds, for scripts\n"
"  latlab lab --only stall,noise --rounds 3   # two diseases, 3 rounds\n"
"  latlab lab --sham --quick           # is the yardstick honest here?\n"
"  latlab lab --quick --svg lab.svg    # where each disease moves e2e\n";

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

static void parse_svg(void *args, const char *path)
{
	struct args *a = args;

	a->svg = path;
	a->o.keep_e2e = true;
	cli_out_check(CMD, "--svg", path, NULL, 0, "");
}

#define CLI_ARGS struct args
static const struct cli_opt opts[] = {
	{ CLI_U64("rounds", o.rounds, 1, LAT_LAB_MAX_ROUNDS), .arg = "<n>",
	  .help = "rounds of every experiment, 1..20 (default 1)" },
	{ CLI_U64("seed", o.seed, 0, UINT64_MAX), .arg = "<n>",
	  .help = "order of the shuffled rounds (default 1)" },
	{ CLI_U64("events", o.events, 1000, 1000000000ULL), .arg = "<n>",
	  .help = "events per run (default 200000: 1 s at the rate)" },
	{ CLI_DOUBLE("rate", o.rate, 100, 1e9), .arg = "<r>",
	  .help = "offered events per second (default 200000)" },
	{ CLI_CALL("only", parse_only), .arg = "<list>",
	  .help = "experiments to run besides null, comma-separated\n"
	  "(default all)" },
	{ CLI_FLAG("sham", o.sham_only),
	  .help = "the false-positive check alone: baseline and null\n"
	  "(4 rounds unless --rounds)" },
	{ CLI_FLAG("quick", quick),
	  .help = "20000 events per run, short calibrations" },
	{ CLI_FLAG("json", json),
	  .help = "one JSON object: rows, baselines, verdicts as data" },
	{ CLI_CALL("svg", parse_svg), .arg = "<file>",
	  .help = "e2e by percentile of the baselines (black) and each\n"
	  "experiment, every run of each merged" },
	{ 0 },
};

/* The library names the field; the command names its flag. */
static void check(const struct args *a)
{
	const char *why;

	if (!lat_lab_opts_check(&a->o, &why))
		return;
	if (a->o.sham_only && cli_given("only"))
		cli_usage_error(CMD, "--sham runs null alone: no --only");
	if (!a->o.sham_only && !strncmp(why, "want", 4))
		cli_usage_error(CMD, "--only names no disease: null runs in "
				"every lab (--sham runs it alone)");
	cli_usage_error(CMD, "--%s", why);
}

static void parse(struct args *a, int argc, char **argv)
{
	lat_lab_opts_init(&a->o);
	cli_parse(&cli_cmd_lab, a, argc, argv);
	if (a->o.sham_only) {
		for (int e = 0; e < LAT_LAB_N_EXP; e++)
			a->o.want[e] = cli_given("only") && a->o.want[e];
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
	cli_catch_stop_signals();
	rc = lat_lab_run(&L, cli_pipe_stop, NULL, stderr);
	/* stopped while a run was setting up: the runs done are the result */
	if (rc == -EINTR && cli_stop_signal())
		rc = 0;
	if (rc)
		cli_fail(CMD, "run %d (%s) failed: %s", L.n_rows + 1,
			 L.row[L.n_rows].name, lat_strerror(rc));
	if (lat_lab_report(stdout, a.json, CMD, cli_stop_signal(), &L))
		cli_fail(CMD, "cannot write the results");
	if (a.svg && L.n_e2e) {
		FILE *f = cli_out_open(CMD, a.svg);

		cli_out_close(CMD, a.svg, f, lat_lab_write_svg(f, &L));
	}
	lat_lab_free_e2e(&L);
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_lab = {
	.name = "lab",
	.summary = "baselines and experiments alternating: each disease's "
		   "fingerprint, or why it cannot show here",
	.usage = usage,
	.opts = opts,
	.help_col = 20,
	.usage_tail = usage_tail,
	.run = lab_main,
};

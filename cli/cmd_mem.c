/*
 * latlab mem: the memory hierarchy and contention, measured here. The
 * options become a lat_mem_session (src/mem/mem_session.c), which runs
 * and reports the experiments; here the syntax, the messages that name
 * a flag, Ctrl-C and the SVG file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"

#define MEM_CMD "mem"
#define MEM_MAX_THREADS LAT_MEM_RM_MAX_READER_SETS

extern const struct cli_cmd cli_cmd_mem;

/* The options land in the session itself; the rest is the CLI's. */
struct mem_args {
	struct lat_mem_session s;
	bool json;
	const char *svg;
	struct cli_cpus cpus;
};

static void parse_threads(void *args, const char *arg)
{
	struct lat_mem_session *o = &((struct mem_args *)args)->s;
	int n = lat_topo_list_parse_seq(arg, o->threads, MEM_MAX_THREADS);

	for (int i = 0; i < n; i++)
		if (o->threads[i] < 1 || o->threads[i] > LAT_MEM_RM_MAX_READERS)
			n = -ERANGE;
	if (n <= 0)
		cli_usage_error(MEM_CMD, "--threads needs 1 to %d reader "
				"counts of 1..%d each, such as 1,2,4, not '%s'",
				MEM_MAX_THREADS, LAT_MEM_RM_MAX_READERS, arg);
	o->n_threads = n;
}

#define CLI_ARGS struct mem_args
static const struct cli_opt opts[] = {
	{ CLI_FLAG("hugepages", s.hugepages) },
	{ CLI_BYTES("min-size", s.min_size) },
	{ CLI_BYTES("max-size", s.max_size) },
	{ CLI_U64("steps", s.steps, 1, 16) },
	{ CLI_U64("samples", s.samples, 1, 100000) },
	{ CLI_STRING("svg", svg) },
	{ CLI_CPUS("cpus", cpus, LAT_TOPO_MAX_CPUS) },
	{ CLI_U64("rounds", s.rounds, 1, 64) },
	{ CLI_CALL("threads", parse_threads) },
	{ CLI_DURATION("duration", s.rm_ns, 0, 1e6, 60e9) },
	{ CLI_DURATION("write-interval", s.write_interval_ns, 0, 1e3, 1e9) },
	{ CLI_FLAG("rt", s.rt) },
	{ CLI_FLAG("quick", s.quick) },
	{ CLI_FLAG("json", json) },
	{ 0 },
};

/* lat_mem_session_check's refusals, in the options' words. */
static void check(const struct lat_mem_session *s, int rc)
{
	char a[32], b[32], c[32];

	if (rc == -EDOM)
		cli_usage_error(MEM_CMD, "--min-size must be at least one "
				"cache line (%d B), not %llu B", LAT_CACHELINE,
				(unsigned long long)s->min_size);
	if (rc == -ERANGE)
		cli_usage_error(MEM_CMD, "--max-size (%llu B) is below "
				"--min-size (%llu B)",
				(unsigned long long)s->max_size,
				(unsigned long long)s->min_size);
	if (rc == -ENOMEM)
		cli_usage_error(MEM_CMD, "--max-size %s needs %s of memory "
				"and only %s is available",
				lat_fmt_bytes(a, sizeof(a), s->max_size),
				lat_fmt_bytes(b, sizeof(b), s->need_bytes),
				lat_fmt_bytes(c, sizeof(c), s->avail_bytes));
	if (rc == -E2BIG)
		cli_usage_error(MEM_CMD, "--min-size..--max-size at %u steps "
				"per doubling makes more than %d sizes",
				s->steps, LAT_MEM_CHASE_MAX_SIZES);
	if (rc)
		cli_usage_error(MEM_CMD, "%s", lat_strerror(rc));
}

static void parse(int argc, char **argv, struct mem_args *a)
{
	struct lat_mem_session *s = &a->s;
	int first = cli_parse(&cli_cmd_mem, a, argc, argv), bad;

	for (int i = first; i < argc; i++) {
		int bit = lat_mem_experiment_parse(argv[i]);

		if (bit < 0)
			cli_usage_error(MEM_CMD, "no experiment '%s' (chase, "
					"c2c, false-sharing, read-mostly or "
					"all)", argv[i]);
		s->what |= (unsigned)bit;
	}
	/* every CPU named must be usable (online, in the mask) */
	if (a->cpus.n && lat_mem_session_use_cpus(s, a->cpus.cpu, a->cpus.n,
						  &bad))
		cli_usage_error(MEM_CMD, "--cpus: cpu %d is not usable (not "
				"online or not in this process's affinity "
				"mask)", bad);
	if (a->svg && s->what && !(s->what & LAT_MEM_EXP_CHASE))
		cli_usage_error(MEM_CMD, "--svg draws the chase curve: add the "
				"'chase' experiment");
	if (a->svg) /* refuse an unwritable file now, not after the run */
		cli_out_check(MEM_CMD, "--svg", a->svg, NULL, 0, "");
	check(s, lat_mem_session_check(s));
}

static int mem_main(int argc, char **argv)
{
	/* normal priority by default (no --rt): SCHED_FIFO needs
	 * privilege, and two real-time spinners could starve the machine
	 * for their run if a deadline were ever missed */
	static struct mem_args a;
	struct lat_mem_session *s = &a.s;
	struct lat_json j;
	int rc = lat_mem_session_init(s);

	if (rc)
		cli_fail(MEM_CMD, "cannot read the CPUs and their caches: %s",
			 lat_strerror(rc));
	parse(argc, argv, &a);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	lat_stop_catch_signals();
	s->stop = lat_stop_requested;
	fprintf(stderr, "latlab mem: measuring (Ctrl-C stops it and shows "
		"what was done)\n");
	if (a.json)
		lat_json_init(&j, stdout);
	rc = lat_mem_session_run(s, stdout, a.json ? &j : NULL);
	if (a.json && lat_json_finish(&j) && !rc)
		cli_fail(MEM_CMD, "internal error writing JSON");
	/* the curve of a chase that finished, even if a later run failed;
	 * in place only when whole */
	if (a.svg && s->chase.done >= 2 && !(rc && s->chase.failed >= 0))
		CLI_OUT_WRITE(MEM_CMD, a.svg, f, lat_mem_chase_svg(f, &s->chase));
	if (rc)
		cli_fail(MEM_CMD, "%s", s->error);
	return s->complete ? CLI_EXIT_OK : cli_exit_status();
}

const struct cli_cmd cli_cmd_mem = {
	.name = "mem",
	.opts = opts,
	.operands = true,
	.run = mem_main,
};

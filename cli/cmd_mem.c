/*
 * latlab mem: the memory hierarchy and contention, measured here. The
 * options become a lat_mem_session (src/mem/mem_session.c), which runs
 * and reports the experiments; here the syntax, the messages that name
 * a flag, Ctrl-C and the SVG file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"

#define MEM_CMD "mem"
#define MEM_MAX_THREADS LAT_MEM_RM_MAX_READER_SETS

extern const struct cli_cmd cli_cmd_mem;

static const char usage[] =
	"latlab mem: the memory hierarchy and contention, measured here\n"
	"\n"
	"usage: latlab mem [chase|c2c|false-sharing|read-mostly|all]...\n"
	"                  [--hugepages] [--min-size <bytes>] [--max-size "
	"<bytes>]\n"
	"                  [--steps <n>] [--samples <n>] [--svg <file>]\n"
	"                  [--cpus <list>] [--rounds <n>] [--threads <list>]\n"
	"                  [--duration <time>] [--write-interval <time>]\n"
	"                  [--rt] [--quick] [--json]\n"
	"\n"
	"chase          load-to-use latency by working-set size: a dependent\n"
	"               pointer chase over a random cycle of 64-byte lines,\n"
	"               ns and cycles per load (p50, min, p99 over samples),\n"
	"               the plateaus named after the sysfs cache sizes, and\n"
	"               the same sizes walked in order (the prefetcher's\n"
	"               case)\n"
	"c2c            one-way cache-line hand-off between every pair of\n"
	"               usable CPUs, labelled SMT sibling / same cache\n"
	"               domain / cross domain\n"
	"false-sharing  two threads incrementing their own counters on one\n"
	"               line, 64 B apart and 128 B apart: on two CPUs and\n"
	"               forced onto one\n"
	"read-mostly    N readers + 1 writer over a small table: pthread\n"
	"               rwlock, RCU-style pointer swap, 64 sharded locks\n"
	"With no experiment named, all four run (~30 s on 2 vCPUs).\n"
	"Each ends with a verdict line derived from its numbers. Ctrl-C\n"
	"prints the sizes/pairs/rows finished so far and exits 130.\n"
	"\n"
	;

static const char usage_tail[] =
	"\n"
	"EXAMPLES:\n"
	"  latlab mem                                   # all four, ~30 s\n"
	"  latlab mem chase --hugepages --svg mem.svg   # the curve; TLB "
	"misses\n"
	"  latlab mem chase --max-size 8M --steps 8     # the caches in "
	"detail\n"
	"  latlab mem false-sharing read-mostly --json  # for scripts\n"
	"  latlab mem c2c false-sharing --rt            # on a busy machine\n"
	"  latlab mem read-mostly --threads 1,2,4,8     # oversubscribe\n"
	"  latlab mem c2c --cpus 0-7 --rounds 3         # a bigger matrix\n";

/* What the options set; parse() hands it to the session. */
struct mem_opts {
	unsigned what;             /* enum lat_mem_experiment bits */
	bool json, quick, hugepages, rt;
	const char *svg;
	const char *cpu_list;      /* --cpus as given */
	uint64_t min_size, max_size;
	unsigned steps, samples, rounds;
	double rm_ns, write_interval_ns;
	int threads[MEM_MAX_THREADS];
	int n_threads;
};

/* "4096", "4K", "4KiB", "128M", "1G": bytes, binary suffixes. */
static uint64_t parse_size(const char *flag, const char *arg)
{
	uint64_t v;

	if (lat_fmt_parse_bytes(arg, &v))
		cli_usage_error(MEM_CMD, "%s needs a size such as 4096, "
				    "32K or 128M, not '%s'", flag, arg);
	return v;
}

static void parse_threads(void *args, const char *arg)
{
	struct mem_opts *o = args;
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

static unsigned parse_what(const char *s)
{
	static const char *const name[] = { "chase", "c2c", "false-sharing",
					    "read-mostly" };

	if (!strcmp(s, "all"))
		return LAT_MEM_EXP_ALL;
	for (unsigned i = 0; i < sizeof(name) / sizeof(*name); i++)
		if (!strcmp(s, name[i]))
			return 1u << i; /* enum lat_mem_experiment's order */
	cli_usage_error(MEM_CMD, "no experiment '%s' (chase, c2c, "
			    "false-sharing, read-mostly or all)", s);
}

static void parse_min(void *o, const char *arg)
{
	((struct mem_opts *)o)->min_size = parse_size("--min-size", arg);
}

static void parse_max(void *o, const char *arg)
{
	((struct mem_opts *)o)->max_size = parse_size("--max-size", arg);
}

#define CLI_ARGS struct mem_opts
static const struct cli_opt opts[] = {
	{ CLI_FLAG("hugepages", hugepages),
	  .help = "chase also on huge pages (MAP_HUGETLB, else\n"
	  "transparent huge pages; says which and how\n"
	  "much the kernel gave): TLB misses vs cache\nmisses" },
	{ CLI_CALL("min-size", parse_min), .arg = "<bytes>",
	  .help = "smallest working set (default 4K; >= 64)" },
	{ CLI_CALL("max-size", parse_max), .arg = "<bytes>",
	  .help = "largest (default 4x the last-level cache;\n"
	  "at most what is available)" },
	{ CLI_U64("steps", steps, 1, 16), .arg = "<n>",
	  .help = "sizes per doubling, 1..16 (default 4)" },
	{ CLI_U64("samples", samples, 1, 100000), .arg = "<n>",
	  .help = "timed samples of 1024 loads per size\n(default 100)" },
	{ CLI_STRING("svg", svg), .arg = "<file>",
	  .help = "the chase curve as SVG (log size axis)" },
	{ CLI_STRING("cpus", cpu_list), .arg = "<list>",
	  .help = "CPUs to use (default: every usable CPU)" },
	{ CLI_U64("rounds", rounds, 1, 64), .arg = "<n>",
	  .help = "interleaved rounds for c2c and false sharing\n"
	  "(default 5) and read-mostly (at most 2: a\n"
	  "row is already 200 ms per round)" },
	{ CLI_CALL("threads", parse_threads), .arg = "<list>",
	  .help = "reader counts for read-mostly (default 1..\n"
	  "the CPUs, then 2x the CPUs, oversubscribed)" },
	{ CLI_DURATION("duration", rm_ns, 0, 1e6, 60e9), .arg = "<time>",
	  .help = "each read-mostly run (default 200ms)" },
	{ CLI_DURATION("write-interval", write_interval_ns, 0, 1e3, 1e9),
	  .arg = "<t>", .help = "the writer's pause between updates (default\n"
	  "100us)" },
	{ CLI_FLAG("rt", rt),
	  .help = "run the two-thread loops (c2c, false sharing\n"
	  "on two CPUs) at SCHED_FIFO priority 1, each\n"
	  "loop bounded by a deadline, so that other\n"
	  "processes cannot keep the two threads from\n"
	  "running at once; needs root or CAP_SYS_NICE\n"
	  "(a refusal is counted and shown). Default:\n"
	  "normal priority, which needs no privilege and\n"
	  "cannot starve the machine, but on a loaded\n"
	  "one measures the scheduler too" },
	{ CLI_FLAG("quick", quick),
	  .help = "small sizes and short runs, for tests" },
	{ CLI_FLAG("json", json), .help = "results as JSON on stdout" },
	{ 0 },
};

/* --cpus: every CPU named must be usable (online, in the mask). */
static void use_cpus(struct lat_mem_session *s, const char *arg)
{
	int v[LAT_TOPO_MAX_CPUS], bad;
	int n = lat_topo_list_parse_seq(arg, v, LAT_TOPO_MAX_CPUS);

	if (n <= 0)
		cli_usage_error(MEM_CMD, "--cpus needs a CPU list such as "
				    "0,1 or 2-5, not '%s'", arg);
	if (lat_mem_session_use_cpus(s, v, n, &bad))
		cli_usage_error(MEM_CMD, "--cpus: cpu %d is not usable (not "
				"online or not in this process's affinity "
				"mask)", bad);
}

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

static void parse(int argc, char **argv, struct mem_opts *o,
		  struct lat_mem_session *s)
{
	int first = cli_parse(&cli_cmd_mem, o, argc, argv);

	for (int i = first; i < argc; i++)
		o->what |= parse_what(argv[i]);
	if (o->cpu_list)
		use_cpus(s, o->cpu_list);
	if (o->svg && o->what && !(o->what & LAT_MEM_EXP_CHASE))
		cli_usage_error(MEM_CMD, "--svg draws the chase curve: add the "
				"'chase' experiment");
	if (o->svg) /* refuse an unwritable file now, not after the run */
		cli_out_check(MEM_CMD, "--svg", o->svg, NULL, 0, "");
	s->what = o->what;
	s->quick = o->quick;
	s->hugepages = o->hugepages;
	s->rt = o->rt;
	s->min_size = o->min_size;
	s->max_size = o->max_size;
	s->steps = o->steps;
	s->samples = o->samples;
	s->rounds = o->rounds;
	s->rm_ns = o->rm_ns;
	s->write_interval_ns = o->write_interval_ns;
	memcpy(s->threads, o->threads, sizeof(s->threads));
	s->n_threads = o->n_threads;
	check(s, lat_mem_session_check(s));
}

static int mem_main(int argc, char **argv)
{
	/* normal priority by default: SCHED_FIFO needs privilege, and two
	 * real-time spinners could starve the machine for their run if a
	 * deadline were ever missed (--rt); 0: the session's default */
	static struct mem_opts o = {
		.min_size = LAT_MEM_CHASE_MIN, .steps = LAT_MEM_CHASE_STEPS,
		.write_interval_ns = LAT_MEM_RM_WRITE_INTERVAL_NS,
	};
	static struct lat_mem_session s;
	struct lat_json j;
	int rc = lat_mem_session_init(&s);

	if (rc)
		cli_fail(MEM_CMD, "cannot read the CPUs and their caches: %s",
			 lat_strerror(rc));
	parse(argc, argv, &o, &s);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	cli_catch_stop_signals();
	s.stop = cli_stop_requested;
	fprintf(stderr, "latlab mem: measuring (Ctrl-C stops it and shows "
		"what was done)\n");
	if (o.json)
		lat_json_init(&j, stdout);
	rc = lat_mem_session_run(&s, stdout, o.json ? &j : NULL);
	if (o.json && lat_json_finish(&j) && !rc)
		cli_fail(MEM_CMD, "internal error writing JSON");
	/* the curve of a chase that finished, even if a later run failed;
	 * in place only when whole */
	if (o.svg && s.chase.done >= 2 && !(rc && s.chase.failed >= 0)) {
		FILE *f = cli_out_open(MEM_CMD, o.svg);

		cli_out_close(MEM_CMD, o.svg, f, lat_mem_chase_svg(f, &s.chase));
	}
	if (rc)
		cli_fail(MEM_CMD, "%s", s.error);
	if (fflush(stdout))
		cli_fail(MEM_CMD, "cannot write the results");
	return s.complete ? CLI_EXIT_OK : cli_exit_status();
}

const struct cli_cmd cli_cmd_mem = {
	.name = "mem",
	.summary = "the memory hierarchy and contention, measured here",
	.usage = usage,
	.opts = opts,
	.help_col = 23,
	.usage_tail = usage_tail,
	.operands = true,
	.run = mem_main,
};

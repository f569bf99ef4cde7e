/*
 * latlab bench: make a microbenchmark lie, then distrust it. The figures
 * are measured by lat_bench_suite_run (src/bench/bench_suite.c); this
 * file parses, prints and says what they mean.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latlab/bench.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

#define CMD "bench"

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
"is printed as implausible, not reported. Each figure is the median\n"
"of several rounds with min and max; one warm-up round is dropped.\n"
"\n"
"options:\n"
"  -r, --reps <n>    rounds per figure, 1..64 (default 7; 3 with\n"
"                    --quick)\n"
"  -n, --iters <n>   messages per throughput round (default 2M;\n"
"                    100k with --quick); handoffs use n/50\n"
"  --quick           small counts, for tests and a first look\n"
"  --json            results as JSON on stdout\n"
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

static void print_figure(const struct lat_bench_figure *f)
{
	char med[LAT_FMT_LEN], lo[LAT_FMT_LEN], hi[LAT_FMT_LEN];

	if (!f->measured) {
		printf("  %-34s skipped: needs two CPUs\n", f->label);
		return;
	}
	if (!f->plausible) {
		printf("  %-34s IMPLAUSIBLE (below the physical floor: a "
		       "harness bug, not a result)\n", f->label);
		return;
	}
	if (f->rate) {
		lat_fmt_rate(med, sizeof(med), f->st.median);
		lat_fmt_rate(lo, sizeof(lo), f->st.min);
		lat_fmt_rate(hi, sizeof(hi), f->st.max);
	} else {
		lat_fmt_ns(med, sizeof(med), f->st.median);
		lat_fmt_ns(lo, sizeof(lo), f->st.min);
		lat_fmt_ns(hi, sizeof(hi), f->st.max);
	}
	printf("  %-34s %11s  (min %s, max %s)\n", f->label, med, lo, hi);
}

static void json_figure(struct lat_json *j, const struct lat_bench_figure *f)
{
	lat_json_obj_begin(j, f->key);
	lat_json_str(j, "label", f->label);
	lat_json_str(j, "unit", f->rate ? "messages/s" : "ns");
	lat_json_bool(j, "measured", f->measured);
	lat_json_bool(j, "plausible", f->plausible);
	if (f->measured && f->plausible) {
		lat_json_double(j, "median", f->st.median);
		lat_json_double(j, "min", f->st.min);
		lat_json_double(j, "max", f->st.max);
		lat_json_int(j, "reps", f->st.reps);
	}
	lat_json_obj_end(j);
}

/* The sentence under the DCE pair, derived from the two figures. */
static void dce_verdict(char *buf, size_t len, const struct lat_bench_figure *dead,
			const struct lat_bench_figure *kept)
{
	char d[LAT_FMT_LEN], k[LAT_FMT_LEN];

	lat_fmt_ns(d, sizeof(d), dead->st.median);
	lat_fmt_ns(k, sizeof(k), kept->st.median);
	if (dead->st.median < kept->st.median / 10) /* loop_deleted */
		snprintf(buf, len, "the compiler deleted the loop whose "
			 "result is unused: %s/op times nothing at all; the "
			 "barrier (an empty asm that claims to read the "
			 "value) keeps the same work alive at %s/op.", d, k);
	else
		snprintf(buf, len, "this build kept the unused loop (%s/op vs "
			 "%s/op; unoptimized?): with -O2 it would time "
			 "nothing.", d, k);
}

enum { OPT_JSON = 256, OPT_QUICK };

static const struct option options[] = {
	{ "reps", required_argument, NULL, 'r' },
	{ "iters", required_argument, NULL, 'n' },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 },
};

static void parse(int argc, char **argv, struct opts *o)
{
		bool reps_set = false, iters_set = false;
	int c;

	while ((c = cli_getopt(argc, argv, ":r:n:", options)) != -1) {
		switch (c) {
		case 'r':
			o->reps = (unsigned)cli_u64(CMD, "--reps", optarg,
							1, 64);
			reps_set = true;
			break;
		case 'n':
			o->iters = cli_u64(CMD, "--iters", optarg, 10000,
					       1000000000);
			iters_set = true;
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		default:
			cli_bad_option(CMD, argv, c);
		}
	}
	cli_no_operands(CMD, argc, argv);
	if (o->quick) {
		if (!reps_set)
			o->reps = 3;
		if (!iters_set)
			o->iters = 100000;
	}
}

static void print_json(const struct opts *o, const struct lat_bench_suite *s,
		       const char *verdict)
{
	const struct lat_bench_figure *f = s->fig;
	struct lat_json j;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_obj_begin(&j, "placement");
	lat_json_bool(&j, "pinned", s->place.pinned);
	lat_json_int(&j, "cpu_a", s->place.cpu[0]);
	lat_json_int(&j, "cpu_b", s->place.cpu[1]);
	lat_json_int(&j, "usable_cpus", s->place.usable);
	lat_json_bool(&j, "smt_siblings", s->place.siblings);
	lat_json_str(&j, "desc", s->place.desc);
	lat_json_obj_end(&j);
	lat_json_double(&j, "loadavg", s->loadavg);
	lat_json_int(&j, "reps", o->reps);
	lat_json_uint(&j, "messages_per_round", o->iters);
	lat_json_obj_begin(&j, "dce");
	json_figure(&j, &f[LAT_BENCH_DCE_UNUSED]);
	json_figure(&j, &f[LAT_BENCH_DCE_KEPT]);
	lat_json_bool(&j, "loop_deleted", s->loop_deleted);
	lat_json_str(&j, "verdict", verdict);
	lat_json_obj_end(&j);
	lat_json_obj_begin(&j, "same_thread");
	json_figure(&j, &f[LAT_BENCH_ST_8B]);
	json_figure(&j, &f[LAT_BENCH_ST_64B]);
	lat_json_obj_end(&j);
	lat_json_obj_begin(&j, "cross_thread");
	for (int i = LAT_BENCH_FLOOR; i <= LAT_BENCH_TPUT_BATCH; i++)
		json_figure(&j, &f[i]);
	lat_json_obj_end(&j);
	lat_json_obj_begin(&j, "latency_ring");
	for (int i = LAT_BENCH_SEQ_HANDOFF_8B; i < LAT_BENCH_NFIGS; i++)
		json_figure(&j, &f[i]);
	if (f[LAT_BENCH_FLOOR].measured && f[LAT_BENCH_FLOOR].st.median > 0) {
		double fl = f[LAT_BENCH_FLOOR].st.median;

		lat_json_double(&j, "handoff_8B_over_floor",
				f[LAT_BENCH_SEQ_HANDOFF_8B].st.median / fl);
		lat_json_double(&j, "handoff_64B_over_floor",
				f[LAT_BENCH_SEQ_HANDOFF_64B].st.median / fl);
		lat_json_double(&j, "throughput_ring_handoff_over_floor",
				f[LAT_BENCH_HANDOFF].st.median / fl);
	}
	lat_json_obj_end(&j);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		cli_fail(CMD, "internal error writing JSON");
}

static void print_text(const struct opts *o, const struct lat_bench_suite *s,
		       const char *verdict)
{
	const struct lat_bench_figure *f = s->fig;

	printf("placement: %s\n", s->place.desc);
	printf("each figure: median of %u rounds (min, max), warm-up round "
	       "excluded\n", o->reps);
	if (s->loadavg > s->place.usable) {
		char warn[200];

		snprintf(warn, sizeof(warn), "warning: load average %.1f on "
			 "%d usable CPUs: other processes take turns on these "
			 "cores and every figure below includes their time "
			 "slices", s->loadavg, s->place.usable);
		lat_fmt_paragraph(stdout, warn, 0);
	}
	printf("\ndead-code trap (ns per iteration)\n");
	print_figure(&f[LAT_BENCH_DCE_UNUSED]);
	print_figure(&f[LAT_BENCH_DCE_KEPT]);
	printf("  -> ");
	lat_fmt_paragraph(stdout, verdict, 5);
	printf("\nSPSC ring, same thread (ns per push+pop pair, hot in L1)\n");
	print_figure(&f[LAT_BENCH_ST_8B]);
	print_figure(&f[LAT_BENCH_ST_64B]);
	if (s->place.pinned)
		printf("\nSPSC ring, cross thread, 8 B messages (cpu %d -> "
		       "cpu %d)\n", s->place.cpu[0], s->place.cpu[1]);
	else /* not "cpu -1 -> cpu -1" */
		printf("\nSPSC ring, cross thread, 8 B messages (%s)\n",
		       s->place.desc);
	for (int i = LAT_BENCH_FLOOR; i <= LAT_BENCH_TPUT_BATCH; i++)
		print_figure(&f[i]);
	if (s->place.pinned) {
		printf("  -> ");
		lat_fmt_paragraph(stdout, "a handoff costs at least one "
				  "cache-line transfer (the floor); throughput "
				  "beats 1/latency because the producer runs "
				  "ahead and cached indices let many messages "
				  "share each transfer.", 5);
	}
	printf("\nlatency-mode ring (lat_seqring: each slot carries its "
	       "own sequence)\n");
	for (int i = LAT_BENCH_SEQ_HANDOFF_8B; i < LAT_BENCH_NFIGS; i++)
		print_figure(&f[i]);
	if (s->place.pinned && f[LAT_BENCH_FLOOR].st.median > 0) {
		double fl = f[LAT_BENCH_FLOOR].st.median;

		printf("  -> handoff / floor: %.2fx (8 B), %.2fx (64 B); the "
		       "throughput-mode ring's: %.2fx (8 B)\n",
		       f[LAT_BENCH_SEQ_HANDOFF_8B].st.median / fl,
		       f[LAT_BENCH_SEQ_HANDOFF_64B].st.median / fl,
		       f[LAT_BENCH_HANDOFF].st.median / fl);
	}
}

static int bench_main(int argc, char **argv)
{
	struct opts o = { .reps = 7, .iters = 2000000 };
	static struct lat_bench_suite s;
	char verdict[320];
	int rc;

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	fprintf(stderr, "latlab bench: %u rounds per figure (+1 warm-up)\n",
		o.reps);
	rc = lat_bench_suite_run(&s, o.reps, o.iters, o.quick);
	if (rc)
		cli_fail(CMD, "measurement failed: %s", lat_strerror(rc));
	dce_verdict(verdict, sizeof(verdict), &s.fig[LAT_BENCH_DCE_UNUSED],
		    &s.fig[LAT_BENCH_DCE_KEPT]);
	if (o.json)
		print_json(&o, &s, verdict);
	else
		print_text(&o, &s, verdict);
	return CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_bench = {
	.name = "bench",
	.summary = "microbenchmark traps: dead code, the ring, the floor",
	.usage = usage,
	.run = bench_main,
};

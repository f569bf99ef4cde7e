/*
 * latlab bench: make a microbenchmark lie, then distrust it. The
 * dead-code-elimination trap next to the same loop kept alive; the SPSC
 * ring on one thread and across two pinned threads; every cross-core
 * latency checked against a cache-line ping-pong floor measured on the
 * same CPUs in the same rounds.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "wrap.h"
#include "latlab/bench.h"
#include "latlab/bench_ring.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/spsc.h"
#include "latlab/stats.h"

#define CMD "bench"
#define BURST 32

struct msg64 {
	uint64_t seq;
	uint64_t pad[7];
};

LAT_SPSC_TYPED(b8, uint64_t)
LAT_SPSC_TYPED(b64, struct msg64)
LAT_BENCH_RING(r8, struct lat_spsc, uint64_t, b8_try_push, b8_try_pop)
LAT_BENCH_RING_BURST(r8, struct lat_spsc, uint64_t, b8_push_burst,
		     b8_pop_burst, BURST)
LAT_BENCH_RING(r64, struct lat_spsc, struct msg64, b64_try_push,
	       b64_try_pop)

struct opts {
	unsigned reps;
	uint64_t iters;     /* messages per cross-thread throughput round */
	bool quick;
	bool json;
};

/* What the measurement functions share. */
struct ctx {
	struct lat_bench_place place;
	struct lat_spsc *r8[2];
	struct lat_spsc *r64;
	uint64_t iters;
	uint64_t alu_iters;
};

/* Never a compile-time constant, so the loops cannot be folded away. */
static volatile uint64_t alu_iters_v;

/* The trap: the result is never used, so -O2 deletes the whole loop. */
static int dce_dead(void *p, double *v)
{
	uint64_t n = alu_iters_v, x = 1;
	double t0, t1;

	(void)p;
	t0 = lat_bench_now_ns();
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	t1 = lat_bench_now_ns();
	*v = (t1 - t0) / (double)n;
	return 0;
}

/* The same loop, with the value claimed as used at every step. */
static int dce_kept(void *p, double *v)
{
	uint64_t n = alu_iters_v, x = 1;
	double t0, t1;

	(void)p;
	t0 = lat_bench_now_ns();
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		lat_bench_keep(x);
	}
	t1 = lat_bench_now_ns();
	*v = (t1 - t0) / (double)n;
	return 0;
}

static int st8(void *p, double *v)
{
	struct ctx *c = p;

	*v = r8_same_thread_ns(c->r8[0], c->alu_iters);
	return *v < 0 ? -EPROTO : 0;
}

static int st64(void *p, double *v)
{
	struct ctx *c = p;

	*v = r64_same_thread_ns(c->r64, c->alu_iters);
	return *v < 0 ? -EPROTO : 0;
}

static int line_floor(void *p, double *v)
{
	struct ctx *c = p;

	return lat_bench_line_pingpong(&c->place, c->iters / 50, v);
}

static int handoff(void *p, double *v)
{
	struct ctx *c = p;

	return r8_handoff_ns(&c->place, c->r8[0], c->r8[1], c->iters / 50,
			     v);
}

static int tput(void *p, double *v)
{
	struct ctx *c = p;

	return r8_throughput(&c->place, c->r8[0], c->iters, v);
}

static int tput_burst(void *p, double *v)
{
	struct ctx *c = p;

	return r8_throughput_burst(&c->place, c->r8[0], c->iters, v);
}

/* One reported figure. */
struct figure {
	const char *key;     /* JSON key */
	const char *label;   /* for people */
	bool rate;           /* messages/s, else ns */
	bool measured;
	bool plausible;
	struct lat_bench_stat st;
};

static void print_figure(const struct figure *f)
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

static void json_figure(struct lat_json *j, const struct figure *f)
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

/* Run @k figures side by side; exit 1 if the harness itself failed. */
static void measure(const struct opts *o, struct ctx *c,
		    const lat_bench_measure_fn *fns, struct figure **figs,
		    unsigned k)
{
	struct lat_bench_stat st[4];
	void *ctxs[4] = { c, c, c, c };
	int rc = lat_bench_repeat(fns, ctxs, k, 1, o->reps, st);

	if (rc)
		cli_fail(CMD, "measurement failed: %s", lat_strerror(rc));
	for (unsigned i = 0; i < k; i++) {
		figs[i]->st = st[i];
		figs[i]->measured = true;
		figs[i]->plausible = true;
	}
}

/* The sentence under the DCE pair, derived from the two figures. */
static void dce_verdict(char *buf, size_t len, const struct figure *dead,
			const struct figure *kept)
{
	char d[LAT_FMT_LEN], k[LAT_FMT_LEN];

	lat_fmt_ns(d, sizeof(d), dead->st.median);
	lat_fmt_ns(k, sizeof(k), kept->st.median);
	if (dead->st.median < kept->st.median / 10)
		snprintf(buf, len, "the compiler deleted the loop whose "
			 "result is unused: %s/op times nothing at all; the "
			 "barrier (an empty asm that claims to read the "
			 "value) keeps the same work alive at %s/op.", d, k);
	else
		snprintf(buf, len, "this build kept the unused loop (%s/op vs "
			 "%s/op; unoptimized?): with -O2 it would time "
			 "nothing.", d, k);
}

static void parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_JSON = 256, OPT_QUICK };
	static const struct option longs[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'n' },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	bool reps_set = false, iters_set = false;
	int c;

	while ((c = getopt_long(argc, argv, ":r:n:", longs, NULL)) != -1) {
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

static int bench_main(int argc, char **argv)
{
	struct opts o = { .reps = 7, .iters = 2000000 };
	struct ctx c = { 0 };
	struct figure dead = { .key = "dce_unused_ns",
			      .label = "loop, result unused" };
	struct figure kept = { .key = "dce_kept_ns",
			       .label = "same loop, kept alive" };
	struct figure s8 = { .key = "same_thread_8B_ns",
			     .label = "push+pop, 8 B" };
	struct figure s64 = { .key = "same_thread_64B_ns",
			      .label = "push+pop, 64 B" };
	struct figure fl = { .key = "floor_ns",
			     .label = "cache-line ping-pong floor" };
	struct figure ho = { .key = "handoff_ns",
			     .label = "one-way handoff (round trip / 2)" };
	struct figure tp = { .key = "throughput", .rate = true,
			     .label = "throughput, single push/pop" };
	struct figure tb = { .key = "throughput_batch", .rate = true,
			     .label = "throughput, batches of 32" };
	char verdict[320];
	double load;
	int rc;

	parse(argc, argv, &o);
	if (cli_parsed()) /* the CLI fuzz target: parse only */
		return CLI_EXIT_OK;
	c.iters = o.iters;
	c.alu_iters = o.quick ? 2000000 : 50000000;
	alu_iters_v = c.alu_iters;
	rc = lat_bench_place_pair(&c.place);
	if (rc)
		cli_fail(CMD, "cannot read the CPU affinity: %s",
			     lat_strerror(rc));
	if (b8_create(1024, &c.r8[0]) || b8_create(1024, &c.r8[1]) ||
	    b64_create(64, &c.r64))
		cli_fail(CMD, "cannot allocate the rings");

	fprintf(stderr, "latlab bench: %u rounds per figure (+1 warm-up), "
		"placement %s\n", o.reps, c.place.desc);
	{
		lat_bench_measure_fn f[] = { dce_dead, dce_kept };
		struct figure *fg[] = { &dead, &kept };

		measure(&o, &c, f, fg, 2);
	}
	{
		lat_bench_measure_fn f[] = { st8, st64 };
		struct figure *fg[] = { &s8, &s64 };

		measure(&o, &c, f, fg, 2);
	}
	if (c.place.pinned) {
		/* the floor in the same rounds as the figures it judges */
		lat_bench_measure_fn f[] = { line_floor, handoff, tput,
					     tput_burst };
		struct figure *fg[] = { &fl, &ho, &tp, &tb };

		measure(&o, &c, f, fg, 4);
		/* a one-way message needs at least one line to cross: a
		 * median below the best floor round is not physics */
		ho.plausible = ho.st.median >= fl.st.min;
	}
	/* below a quarter of a nanosecond (one cycle at 4 GHz) a push+pop
	 * pair cannot be: its stores alone take more */
	s8.plausible = s8.st.median >= 0.25;
	s64.plausible = s64.st.median >= 0.25;
	dce_verdict(verdict, sizeof(verdict), &dead, &kept);
	/* above the usable CPUs, other processes take turns on "our"
	 * cores and every timing includes their slices: say so */
	load = lat_loadavg();

	if (o.json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_json_obj_begin(&j, NULL);
		lat_json_obj_begin(&j, "placement");
		lat_json_bool(&j, "pinned", c.place.pinned);
		lat_json_int(&j, "cpu_a", c.place.cpu[0]);
		lat_json_int(&j, "cpu_b", c.place.cpu[1]);
		lat_json_int(&j, "usable_cpus", c.place.usable);
		lat_json_bool(&j, "smt_siblings", c.place.siblings);
		lat_json_str(&j, "desc", c.place.desc);
		lat_json_obj_end(&j);
		lat_json_double(&j, "loadavg", load);
		lat_json_int(&j, "reps", o.reps);
		lat_json_uint(&j, "messages_per_round", o.iters);
		lat_json_obj_begin(&j, "dce");
		json_figure(&j, &dead);
		json_figure(&j, &kept);
		lat_json_bool(&j, "loop_deleted",
			      dead.st.median < kept.st.median / 10);
		lat_json_str(&j, "verdict", verdict);
		lat_json_obj_end(&j);
		lat_json_obj_begin(&j, "same_thread");
		json_figure(&j, &s8);
		json_figure(&j, &s64);
		lat_json_obj_end(&j);
		lat_json_obj_begin(&j, "cross_thread");
		json_figure(&j, &fl);
		json_figure(&j, &ho);
		json_figure(&j, &tp);
		json_figure(&j, &tb);
		lat_json_obj_end(&j);
		lat_json_obj_end(&j);
		if (lat_json_finish(&j))
			cli_fail(CMD, "internal error writing JSON");
	} else {
		printf("placement: %s\n", c.place.desc);
		printf("each figure: median of %u rounds (min, max), warm-up "
		       "round excluded\n", o.reps);
		if (load > c.place.usable) {
			char warn[200];

			snprintf(warn, sizeof(warn), "warning: load average "
				 "%.1f on %d usable CPUs: other processes take "
				 "turns on these cores and every figure below "
				 "includes their time slices", load,
				 c.place.usable);
			cli_print_wrapped(warn, 0);
		}
		printf("\n");
		printf("dead-code trap (ns per iteration)\n");
		print_figure(&dead);
		print_figure(&kept);
		printf("  -> ");
		cli_print_wrapped(verdict, 5);
		printf("\n");
		printf("SPSC ring, same thread (ns per push+pop pair, hot in "
		       "L1)\n");
		print_figure(&s8);
		print_figure(&s64);
		if (c.place.pinned)
			printf("\nSPSC ring, cross thread, 8 B messages (cpu "
			       "%d -> cpu %d)\n", c.place.cpu[0],
			       c.place.cpu[1]);
		else /* not "cpu -1 -> cpu -1" */
			printf("\nSPSC ring, cross thread, 8 B messages (%s)"
			       "\n", c.place.desc);
		print_figure(&fl);
		print_figure(&ho);
		print_figure(&tp);
		print_figure(&tb);
		if (c.place.pinned) {
			printf("  -> ");
			cli_print_wrapped(
				"a handoff costs at least one cache-line "
				"transfer (the floor); throughput beats "
				"1/latency because the producer runs ahead "
				"and cached indices let many messages share "
				"each transfer.", 5);
		}
	}
	lat_spsc_free(c.r8[0]);
	lat_spsc_free(c.r8[1]);
	lat_spsc_free(c.r64);
	return CLI_EXIT_OK;
}

const struct cli_cmd cli_cmd_bench = {
	.name = "bench",
	.summary = "microbenchmark traps: dead code, the ring, the floor",
	.usage =
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
	"  taskset -c 2,3 latlab bench    # choose the two CPUs yourself\n",
	.run = bench_main,
};

/*
 * The figures `latlab bench` reports, measured here so a library user
 * gets the same numbers: the dead-code-elimination trap next to the same
 * loop kept alive; the SPSC ring on one thread and across two pinned
 * threads; every cross-core latency judged against a cache-line
 * ping-pong floor measured on the same CPUs in the same rounds.
 */
#include <errno.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/seqring.h"
#include "latlab/spsc.h"
#include "latlab/stats.h"
#include "bench_ring.h"

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
/* the latency-mode ring: the slot carries its own sequence */
LAT_SEQRING_TYPED(q8, uint64_t)
LAT_SEQRING_TYPED(q64, struct msg64)
LAT_BENCH_RING(s8, struct lat_seqring, uint64_t, q8_try_push, q8_try_pop)
LAT_BENCH_RING(s64, struct lat_seqring, struct msg64, q64_try_push,
	       q64_try_pop)

/* What the measurement functions share. */
struct ctx {
	struct lat_bench_place place;
	struct lat_spsc *r8[2];
	struct lat_spsc *r64;
	struct lat_seqring *q8[2], *q64[2];
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

static int line_floor2(void *p, double *v)
{
	struct ctx *c = p;

	return lat_bench_two_line_pingpong(&c->place, c->iters / 50, v);
}

static int line_floor64(void *p, double *v)
{
	struct ctx *c = p;

	return lat_bench_line64_pingpong(&c->place, c->iters / 50, v);
}

static int handoff(void *p, double *v)
{
	struct ctx *c = p;

	return r8_handoff_ns(&c->place, c->r8[0], c->r8[1], c->iters / 50,
			     v);
}

static int seq_handoff8(void *p, double *v)
{
	struct ctx *c = p;

	return s8_handoff_ns(&c->place, c->q8[0], c->q8[1], c->iters / 50,
			     v);
}

static int seq_handoff64(void *p, double *v)
{
	struct ctx *c = p;

	return s64_handoff_ns(&c->place, c->q64[0], c->q64[1],
			      c->iters / 50, v);
}

static int seq_tput(void *p, double *v)
{
	struct ctx *c = p;

	return s8_throughput(&c->place, c->q8[0], c->iters, v);
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

static const struct {
	const char *key, *label;
	bool rate;
} fig_names[LAT_BENCH_NFIGS] = {
	[LAT_BENCH_DCE_UNUSED] = { "dce_unused_ns", "loop, result unused",
				   false },
	[LAT_BENCH_DCE_KEPT] = { "dce_kept_ns", "same loop, kept alive",
				 false },
	[LAT_BENCH_ST_8B] = { "same_thread_8B_ns", "push+pop, 8 B", false },
	[LAT_BENCH_ST_64B] = { "same_thread_64B_ns", "push+pop, 64 B",
			       false },
	[LAT_BENCH_FLOOR] = { "floor_ns", "cache-line ping-pong floor",
			      false },
	[LAT_BENCH_HANDOFF] = { "handoff_ns",
				"one-way handoff (round trip / 2)", false },
	[LAT_BENCH_TPUT] = { "throughput", "throughput, single push/pop",
			     true },
	[LAT_BENCH_TPUT_BATCH] = { "throughput_batch",
				   "throughput, batches of 32", true },
	[LAT_BENCH_SEQ_HANDOFF_8B] = { "handoff_8B_ns",
				       "one-way handoff, 8 B", false },
	[LAT_BENCH_SEQ_HANDOFF_64B] = { "handoff_64B_ns",
					"one-way handoff, 64 B", false },
	[LAT_BENCH_SEQ_TPUT] = { "throughput", "throughput, 8 B single",
				 true },
	[LAT_BENCH_FLOOR2] = { "floor_two_lines_ns",
			       "floor, a line each way (2 rings)", false },
	[LAT_BENCH_FLOOR64] = { "floor_64B_ns",
				"64-byte floor (payload + mark line)",
				false },
};

/* Run figures @first.. side by side (@k of them), interleaved. */
static int measure(struct lat_bench_suite *s, struct ctx *c,
		   const lat_bench_measure_fn *fns, int first, unsigned k)
{
	struct lat_bench_stat st[LAT_BENCH_MAX_FIGS];
	void *ctxs[LAT_BENCH_MAX_FIGS];
	int rc;

	for (unsigned i = 0; i < LAT_BENCH_MAX_FIGS; i++)
		ctxs[i] = c;
	rc = lat_bench_repeat(fns, ctxs, k, 1, s->reps, st);
	if (rc)
		return rc;
	for (unsigned i = 0; i < k; i++) {
		s->fig[first + i].st = st[i];
		s->fig[first + i].measured = true;
		s->fig[first + i].plausible = true;
	}
	return 0;
}

static int run(struct lat_bench_suite *s, struct ctx *c)
{
	static const lat_bench_measure_fn dce[] = { dce_dead, dce_kept };
	static const lat_bench_measure_fn same[] = { st8, st64 };
	/* the floor in the same rounds as the figures it judges */
	static const lat_bench_measure_fn cross[] = {
		line_floor, handoff, tput, tput_burst,
		seq_handoff8, seq_handoff64, seq_tput, line_floor2,
		line_floor64,
	};
	_Static_assert(sizeof(cross) / sizeof(cross[0]) ==
			       LAT_BENCH_NFIGS - LAT_BENCH_FLOOR,
		       "one measurement per cross-thread figure");
	struct lat_bench_figure *f = s->fig;
	int rc = measure(s, c, dce, LAT_BENCH_DCE_UNUSED, 2);

	if (!rc)
		rc = measure(s, c, same, LAT_BENCH_ST_8B, 2);
	if (!rc && c->place.pinned)
		rc = measure(s, c, cross, LAT_BENCH_FLOOR,
			     LAT_BENCH_NFIGS - LAT_BENCH_FLOOR);
	if (rc)
		return rc;
	/* a one-way message needs at least one line to cross: a median
	 * below the best floor round is not physics */
	if (c->place.pinned)
		for (int i = LAT_BENCH_HANDOFF; i < LAT_BENCH_NFIGS; i++)
			if (!f[i].rate)
				f[i].plausible = f[i].st.median >=
						 f[LAT_BENCH_FLOOR].st.min;
	/* below a quarter of a nanosecond (one cycle at 4 GHz) a push+pop
	 * pair cannot be: its stores alone take more */
	f[LAT_BENCH_ST_8B].plausible = f[LAT_BENCH_ST_8B].st.median >= 0.25;
	f[LAT_BENCH_ST_64B].plausible = f[LAT_BENCH_ST_64B].st.median >= 0.25;
	s->loop_deleted = f[LAT_BENCH_DCE_UNUSED].st.median <
			  f[LAT_BENCH_DCE_KEPT].st.median / 10;
	return 0;
}

void lat_bench_suite_defaults(unsigned *reps, uint64_t *iters, bool quick)
{
	if (!*reps)
		*reps = quick ? LAT_BENCH_QUICK_REPS : LAT_BENCH_REPS;
	if (!*iters)
		*iters = quick ? LAT_BENCH_QUICK_ITERS : LAT_BENCH_ITERS;
}

int lat_bench_suite_run(struct lat_bench_suite *s, unsigned reps,
			uint64_t iters, bool quick)
{
	struct ctx c;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&c, 0, sizeof(c));
	if (reps < 1 || reps > 64 || iters < 1000)
		return -EINVAL;
	s->reps = reps;
	s->iters = iters;
	for (int i = 0; i < LAT_BENCH_NFIGS; i++) {
		s->fig[i].key = fig_names[i].key;
		s->fig[i].label = fig_names[i].label;
		s->fig[i].rate = fig_names[i].rate;
	}
	c.iters = iters;
	c.alu_iters = quick ? 2000000 : 50000000;
	alu_iters_v = c.alu_iters;
	rc = lat_bench_place_pair(&c.place);
	if (rc)
		return rc;
	s->place = c.place;
	/* above the usable CPUs, other processes take turns on "our"
	 * cores and every timing includes their slices */
	s->loadavg = lat_loadavg();
	rc = -ENOMEM;
	if (!b8_create(1024, &c.r8[0]) && !b8_create(1024, &c.r8[1]) &&
	    !b64_create(64, &c.r64) && !q8_create(1024, &c.q8[0]) &&
	    !q8_create(1024, &c.q8[1]) && !q64_create(64, &c.q64[0]) &&
	    !q64_create(64, &c.q64[1]))
		rc = run(s, &c);
	lat_spsc_free(c.r8[0]);
	lat_spsc_free(c.r8[1]);
	lat_spsc_free(c.r64);
	for (int i = 0; i < 2; i++) {
		lat_seqring_free(c.q8[i]);
		lat_seqring_free(c.q64[i]);
	}
	return rc;
}

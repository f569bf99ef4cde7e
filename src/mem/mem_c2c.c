/*
 * lat_mem core to core: the one-way cache-line hand-off between two
 * chosen CPUs, and how the two CPUs share hardware.
 *
 * Ordinarily this is lat_bench_line_pingpong, the floor `latlab bench`
 * judges the ring against. On a loaded machine a ping-pong measures the
 * scheduler instead (one side waits out the other's time slice), so the
 * caller may ask for a real-time run: the same bounce, on lat_bench_pair,
 * with each side at SCHED_FIFO and a deadline on every wait, which the
 * bench's loops (no deadline: a real-time spin for a peer that never
 * runs could hold the CPU) cannot offer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlab/mem.h"
#include "latlab/wait.h"
#include "mem_int.h"

enum lat_mem_relation lat_mem_relation_of(const struct lat_topo *t, int a,
					  int b)
{
	const struct lat_topo_cpu *x, *y;

	if (!t || a < 0 || b < 0 || a >= t->n_cpus || b >= t->n_cpus)
		return LAT_MEM_REL_UNKNOWN;
	x = &t->cpu[a];
	y = &t->cpu[b];
	if (x->core == y->core && x->package == y->package)
		return LAT_MEM_SMT_SIBLING;
	if (x->llc < 0 || y->llc < 0)
		return LAT_MEM_REL_UNKNOWN;
	return x->llc == y->llc ? LAT_MEM_SAME_LLC : LAT_MEM_CROSS_LLC;
}

const char *lat_mem_relation_text(enum lat_mem_relation r)
{
	switch (r) {
	case LAT_MEM_SMT_SIBLING:
		return "SMT sibling";
	case LAT_MEM_SAME_LLC:
		return "same cache domain";
	case LAT_MEM_CROSS_LLC:
		return "cross domain";
	default:
		return "unknown";
	}
}

/* What one side writes, on its own region (see rt_pp). */
struct rt_side {
	_Alignas(LAT_PAD_BYTES) uint64_t done; /* hand-offs completed */
	bool fifo;
};

/* The bounced line, the read-only setup and each side's own counters
 * on separate 128-byte regions: only the line may move. */
struct rt_pp {
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t line;
	_Alignas(LAT_PAD_BYTES) uint64_t iters;
	lat_cycles_t budget;      /* cycles a real-time side may take */
	/* set by a real-time side that passed its deadline, so that a peer
	 * the kernel left at normal priority stops waiting for it too */
	_Alignas(LAT_PAD_BYTES) _Atomic bool quit;
	int cpu[2];
	struct rt_side side[2];
};

/* Side @s waits for 2i + s, writes 2i + s + 1: strictly alternating.
 * Only a side the kernel raised to SCHED_FIFO has a deadline (it could
 * hold its CPU from a peer that needs it); a side at normal priority is
 * preempted like any thread and waits until its peer finishes or quits. */
static void rt_side(struct rt_pp *pp, int s)
{
	lat_cycles_t deadline;
	bool fifo = lat_mem_fifo_enter(pp->cpu[s]);

	pp->side[s].fifo = fifo;
	deadline = lat_clock_now() + pp->budget;
	for (uint64_t i = 0; i < pp->iters; i++) {
		unsigned spins = 0;

		/* acquire/release: the counter is the message; the pair
		 * keeps the two sides alternating */
		while (atomic_load_explicit(&pp->line, memory_order_acquire) !=
		       2 * i + (uint64_t)s) {
			lat_wait_pause();
			if (++spins % 256)
				continue;
			if (atomic_load_explicit(&pp->quit,
						 memory_order_relaxed))
				goto out;
			if (fifo && lat_clock_now() > deadline) {
				atomic_store_explicit(&pp->quit, true,
						      memory_order_relaxed);
				goto out;
			}
		}
		atomic_store_explicit(&pp->line, 2 * i + (uint64_t)s + 1,
				      memory_order_release);
		pp->side[s].done++;
	}
out:
	lat_mem_fifo_leave(pp->side[s].fifo);
}

static void rt_a(void *arg)
{
	rt_side(arg, 0);
}

static void rt_b(void *arg)
{
	rt_side(arg, 1);
}

int lat_mem_c2c_once(int a, int b, uint64_t iters,
		     const struct lat_clock_cal *fifo_cal, double *one_way_ns,
		     bool *fifo)
{
	struct lat_bench_place p = { .cpu = { a, b }, .pinned = true };
	struct rt_pp *pp;
	double ns;
	int rc;

	if (a < 0 || b < 0 || a == b || iters == 0 || !one_way_ns)
		return -EINVAL;
	snprintf(p.desc, sizeof(p.desc), "cpu %d and cpu %d", a, b);
	if (fifo)
		*fifo = false;
	if (!fifo_cal)
		return lat_bench_line_pingpong(&p, iters, one_way_ns);
	pp = aligned_alloc(LAT_PAD_BYTES, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	*pp = (struct rt_pp){ .iters = iters, .cpu = { a, b } };
	atomic_init(&pp->line, 0);
	atomic_init(&pp->quit, false);
	/* 10 us per hand-off at most: 50x the slowest cross-socket line */
	pp->budget = lat_clock_from_ns(fifo_cal, 10000 * iters);
	rc = lat_bench_pair(&p, rt_a, rt_b, pp, &ns);
	if (!rc && (pp->side[0].done != iters || pp->side[1].done != iters))
		rc = -ETIMEDOUT;
	if (!rc) {
		*one_way_ns = ns / (2.0 * (double)iters);
		if (fifo)
			*fifo = pp->side[0].fifo && pp->side[1].fifo;
	}
	free(pp);
	return rc;
}

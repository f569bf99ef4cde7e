/*
 * lat_lab_handoff_ns: is the host running two guest CPUs on one core
 * right now? A short cache-line bounce between them answers: ~30 ns one
 * way between SMT siblings (the line stays in their shared L1/L2), ~150
 * ns between cores on this kind of VM (machine-facts.md). share-line
 * needs the second case, and the host moves vCPUs between the two every
 * few seconds.
 */
#include <stdio.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/lab.h"

/* Round trips per bounce: ~0.3 ms apart, short enough to repeat. */
#define HANDOFF_ITERS 1000
#define HANDOFF_BOUNCES 3

int lat_lab_handoff_ns(int a, int b, double *ns)
{
	struct lat_bench_place p;
	double best = 0;

	memset(&p, 0, sizeof(p));
	p.cpu[0] = a;
	p.cpu[1] = b;
	p.pinned = a >= 0 && b >= 0 && a != b;
	snprintf(p.desc, sizeof(p.desc), "cpu %d and cpu %d", a, b);
	for (int i = 0; i < HANDOFF_BOUNCES; i++) {
		double one;
		int rc = lat_bench_line_pingpong(&p, HANDOFF_ITERS, &one);

		if (rc)
			return rc;
		/* a preempted bounce is only ever slower: keep the least */
		best = i == 0 || one < best ? one : best;
	}
	*ns = best;
	return 0;
}

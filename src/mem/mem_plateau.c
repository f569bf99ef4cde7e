/*
 * lat_mem plateaus: where a latency-by-size curve is flat, where each
 * flat stretch ends, and which cache it is. Pure functions over arrays,
 * so the unit tests can feed them synthetic curves.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/mem.h"
#include "latlab/stats.h"

/* Median of y[first..last] (at most 512 points are looked at). */
static double median_of(const double *y, int first, int last)
{
	double v[512];
	int n = last - first + 1;

	if (n > 512)
		n = 512;
	memcpy(v, y + first, (size_t)n * sizeof(*v));
	return lat_median_sort(v, (size_t)n);
}

/* Index of the last point before y first rises above @mid after
 * @from; @to - 1 when it never does before @to. */
static int crossing(const double *y, int from, int to, double mid)
{
	for (int i = from + 1; i < to; i++)
		if (y[i] > mid)
			return i - 1;
	return to - 1;
}

/*
 * Merge neighbours of one level in @run (@n of them, in order): each
 * within LAT_MEM_LEVEL_JUMP of the first of its group (not of its
 * neighbour, so a ramp cannot creep into one plateau); the level is
 * recomputed over the whole span. Run twice: first on the flat runs,
 * then on the plateaus that made, since a level a slow drift split in two
 * (an L3 whose hits pay more TLB misses as the working set grows: 13 ns,
 * then 17 ns) has two medians within the factor. Returns the new count.
 */
static int merge(struct lat_mem_plateau *run, int n, const double *y)
{
	double base = 0;
	int np = 0;

	for (int r = 0; r < n; r++) {
		struct lat_mem_plateau *last = np ? &run[np - 1] : NULL;

		if (last && run[r].level < base * LAT_MEM_LEVEL_JUMP &&
		    base < run[r].level * LAT_MEM_LEVEL_JUMP) {
			last->last = run[r].last;
			last->level = median_of(y, last->first, last->last);
		} else {
			base = run[r].level;
			run[np++] = run[r];
		}
	}
	return np;
}

int lat_mem_plateaus(const uint64_t *bytes, const double *y, int n,
		     double tol, int min_points, struct lat_mem_plateau *out,
		     int cap)
{
	struct lat_mem_plateau run[256];
	int nr = 0, np, i = 0;

	if (!bytes || !y || n < 0 || !(tol > 0) || min_points < 2 ||
	    (cap > 0 && !out))
		return -EINVAL;
	/* flat runs */
	while (i < n && nr < 256) {
		double lo = y[i];
		int j = i + 1;

		if (!isfinite(lo) || lo <= 0) {
			i++;
			continue;
		}
		while (j < n && isfinite(y[j]) && y[j] > 0 &&
		       y[j] <= lo * (1 + tol)) {
			if (y[j] < lo)
				lo = y[j];
			j++;
		}
		if (j - i >= min_points) {
			run[nr] = (struct lat_mem_plateau){ .first = i,
							    .last = j - 1 };
			run[nr].level = median_of(y, i, j - 1);
			nr++;
			i = j;
		} else {
			i++; /* a transition point */
		}
	}
	/* runs of one level, then plateaus of one level (see merge) */
	np = merge(run, nr, y);
	np = merge(run, np, y);
	for (int k = 0; k < np; k++) {
		run[k].cache = LAT_MEM_UNNAMED;
		run[k].steps_off = NAN;
		run[k].edge = -1;
		if (k + 1 < np)
			run[k].edge = crossing(y, run[k].last,
					       run[k + 1].first + 1,
					       sqrt(run[k].level *
						    run[k + 1].level));
		if (k < cap)
			out[k] = run[k];
	}
	(void)bytes;
	return np;
}

void lat_mem_plateaus_name(struct lat_mem_plateau *p, int np,
			   const uint64_t *bytes,
			   const struct lat_topo_caches *c, unsigned steps)
{
	double step = steps ? 1.0 / steps : 1.0;
	double largest = c->n ? log2((double)c->c[c->n - 1].size) : 0;
	int rank = 0;
	bool memory = false;

	for (int k = 0; k < np; k++) {
		double start = log2((double)bytes[p[k].first]);

		p[k].steps_off = NAN;
		if (memory) {
			p[k].cache = LAT_MEM_UNNAMED;
		} else if ((c->n && start > largest + step + 1e-9) ||
			   rank == c->n) {
			/* DRAM is far from any cache: a step of less than
			 * LAT_MEM_DRAM_JUMP after the last one is that
			 * cache's tail (TLB misses on top of its hits) */
			bool far = k == 0 ||
				   p[k].level >= p[k - 1].level *
						 LAT_MEM_DRAM_JUMP;

			p[k].cache = far ? LAT_MEM_MEMORY : LAT_MEM_UNNAMED;
			memory = far;
		} else {
			p[k].cache = rank++;
			if (p[k].edge >= 0)
				p[k].steps_off =
					(log2((double)bytes[p[k].edge]) -
					 log2((double)c->c[p[k].cache].size)) /
					step;
		}
	}
}

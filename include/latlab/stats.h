/*
 * lat_stats: the small statistics and system facts every module needs,
 * written once: qsort comparators, the median of a few numbers, a rank
 * percentile of sorted samples, the 1-minute load average, and splitmix64
 * (seed expansion and cheap reproducible streams).
 *
 * None of this is for a hot path except lat_splitmix64 (no allocation, no
 * syscall). lat_loadavg reads /proc.
 */
#ifndef LATLAB_STATS_H
#define LATLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* qsort comparators, ascending. NaN sorts as equal to everything. */
int lat_cmp_double(const void *a, const void *b);
int lat_cmp_u64(const void *a, const void *b);
int lat_cmp_i64(const void *a, const void *b);

/*
 * Sort @v (@n > 0 values) in place and return the median: the middle
 * value, or the mean of the two middle values for even @n. NAN for n = 0.
 */
double lat_median_sort(double *v, size_t n);

/*
 * Nearest-rank percentile of @n ascending @sorted values: the value at
 * rank ceil(pct/100 * n) (at least 1), as HdrHistogram counts ranks.
 * @pct in [0, 100]; 0 for n = 0.
 */
int64_t lat_rank_i64(const int64_t *sorted, size_t n, double pct);

/* The 1-minute load average (/proc/loadavg), or -1 when unknown. */
double lat_loadavg(void);

/*
 * Next value of the splitmix64 stream in *@state (Steele, Lea, Flood
 * 2014): every seed, 0 included, gives a well-mixed sequence; the usual
 * way to seed a larger generator from one number.
 */
static inline uint64_t lat_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif

/* lat_stats: comparators, median, rank percentile, load average. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlab/stats.h"

int lat_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int lat_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int lat_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

double lat_median_sort(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), lat_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int64_t lat_rank_i64(const int64_t *sorted, size_t n, double pct)
{
	double r;
	size_t rank;

	if (!n)
		return 0;
	r = ceil(pct / 100 * (double)n);
	rank = r < 1 ? 1 : r > (double)n ? n : (size_t)r;
	return sorted[rank - 1];
}

double lat_loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lf", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

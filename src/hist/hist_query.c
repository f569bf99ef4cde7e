/*
 * lat_hist queries: equivalent ranges, extrema, mean/stddev and
 * percentiles, with the Java implementation's exact arithmetic (the order
 * of double operations included) so that results match it bit for bit.
 */
#include <math.h>

#include "hist_int.h"
#include "latlab/hist.h"

/* Java never fuses a multiply and an add; aarch64 GCC would by default. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Low bits cleared by the slot of a value >= 0: u + bucket. */
static int32_t slot_shift(const struct lat_hist *h, int64_t value)
{
	return lat_hist_bucket_of(h, (uint64_t)value) + h->unit_magnitude;
}

int64_t lat_hist_equivalent_range(const struct lat_hist *h, int64_t value)
{
	if (value < 0)
		value = 0;
	return (int64_t)1 << slot_shift(h, value);
}

int64_t lat_hist_lowest_equivalent(const struct lat_hist *h, int64_t value)
{
	int32_t shift;

	if (value < 0)
		value = 0;
	shift = slot_shift(h, value);
	return (value >> shift) << shift;
}

int64_t lat_hist_next_non_equivalent(const struct lat_hist *h, int64_t value)
{
	/* Unsigned: the top slot of the int64 range ends at 2^63 (Java
	 * wraps to Long.MIN_VALUE). */
	return (int64_t)((uint64_t)lat_hist_lowest_equivalent(h, value) +
			 (uint64_t)lat_hist_equivalent_range(h, value));
}

int64_t lat_hist_highest_equivalent(const struct lat_hist *h, int64_t value)
{
	return (int64_t)((uint64_t)lat_hist_next_non_equivalent(h, value) - 1);
}

int64_t lat_hist_median_equivalent(const struct lat_hist *h, int64_t value)
{
	return lat_hist_lowest_equivalent(h, value) +
		(lat_hist_equivalent_range(h, value) >> 1);
}

bool lat_hist_values_equivalent(const struct lat_hist *h, int64_t a, int64_t b)
{
	return lat_hist_lowest_equivalent(h, a) ==
		lat_hist_lowest_equivalent(h, b);
}

int64_t lat_hist_count_at_value(const struct lat_hist *h, int64_t value)
{
	int32_t index;

	if (value < 0)
		return 0;
	index = lat_hist_index_of(h, value);
	if (index >= h->counts_len)
		index = h->counts_len - 1;
	return h->counts[index];
}

int64_t lat_hist_max(const struct lat_hist *h)
{
	if (h->max_internal == 0)
		return 0;
	return lat_hist_highest_equivalent(h, h->max_internal);
}

int64_t lat_hist_min_nonzero(const struct lat_hist *h)
{
	if (h->min_nonzero_internal == INT64_MAX)
		return INT64_MAX;
	return lat_hist_lowest_equivalent(h, h->min_nonzero_internal);
}

int64_t lat_hist_min(const struct lat_hist *h)
{
	if (h->total_count == 0 || h->counts[0] > 0)
		return 0;
	return lat_hist_min_nonzero(h);
}

/* Median equivalent value of slot @index (what Java's mean sums). */
static double slot_median(const struct lat_hist *h, int32_t index)
{
	return (double)lat_hist_median_equivalent(h,
		lat_hist_value_at_index(h, index));
}

double lat_hist_mean(const struct lat_hist *h)
{
	double sum = 0.0;
	int32_t i;

	if (h->total_count == 0)
		return 0.0;
	for (i = 0; i < h->counts_len; i++) {
		if (h->counts[i] > 0)
			sum += slot_median(h, i) * (double)h->counts[i];
	}
	return sum * 1.0 / (double)h->total_count;
}

double lat_hist_stddev(const struct lat_hist *h)
{
	double mean, dev, sum = 0.0;
	int32_t i;

	if (h->total_count == 0)
		return 0.0;
	mean = lat_hist_mean(h);
	for (i = 0; i < h->counts_len; i++) {
		if (h->counts[i] <= 0)
			continue;
		dev = slot_median(h, i) * 1.0 - mean;
		sum += dev * dev * (double)h->counts[i];
	}
	return sqrt(sum / (double)h->total_count);
}

/* Java's count for a percentile: ceil after a one-ulp nudge down. */
static int64_t count_at_percentile(const struct lat_hist *h, double p)
{
	double requested = nextafter(p, -INFINITY);
	int64_t count;

	/* Math.min/max propagate NaN, and (long)NaN is 0: count 1. */
	if (requested != requested)
		return 1;
	if (requested < 0.0)
		requested = 0.0;
	if (requested > 100.0)
		requested = 100.0;
	count = lat_hist_d2l(ceil(requested / 100.0 *
				  (double)h->total_count));
	return count < 1 ? 1 : count;
}

int64_t lat_hist_value_at_percentile(const struct lat_hist *h, double p)
{
	int64_t target, running = 0, v;
	int32_t i;

	if (h->total_count == 0)
		return 0;
	target = count_at_percentile(h, p);
	for (i = 0; i < h->counts_len; i++) {
		running += h->counts[i];
		if (running >= target) {
			v = lat_hist_value_at_index(h, i);
			return p == 0.0 ? lat_hist_lowest_equivalent(h, v) :
				lat_hist_highest_equivalent(h, v);
		}
	}
	return 0;
}

double lat_hist_percentile_at_value(const struct lat_hist *h, int64_t value)
{
	int64_t running = 0;
	int32_t i, target;

	if (h->total_count == 0)
		return 100.0;
	if (value < 0)
		return 0.0;
	target = lat_hist_index_of(h, value);
	if (target >= h->counts_len)
		target = h->counts_len - 1;
	for (i = 0; i <= target; i++)
		running += h->counts[i];
	return 100.0 * (double)running / (double)h->total_count;
}

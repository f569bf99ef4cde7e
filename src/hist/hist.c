/*
 * lat_hist lifecycle and writers: init/destroy, the out-of-line record
 * path, coordinated-omission correction, reset, add and recount.
 * Layout and semantics follow HdrHistogram's Java implementation; the
 * section numbers below refer to shared/docs/hdr-spec.md (the project's
 * format notes, outside this repository).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist_int.h"
#include "latlab/hist.h"

void *(*lat_hist_calloc_hook)(size_t nmemb, size_t size);

static void *hist_calloc(size_t nmemb, size_t size)
{
	if (lat_hist_calloc_hook)
		return lat_hist_calloc_hook(nmemb, size);
	return calloc(nmemb, size);
}

/* m = ceil(log2(2 * 10^d)) for d = 0..5 (spec 1.2, verified in Java). */
static const int32_t sub_bucket_count_magnitudes[6] = { 1, 5, 8, 11, 15, 18 };

struct hist_config {
	int32_t u, m, bucket_count, counts_len;
};

static int hist_configure(int64_t lowest, int64_t highest, int sig_figs,
			  struct hist_config *c)
{
	int64_t limit;

	if (lowest < 1 || lowest > INT64_MAX / 2 || highest < 2 * lowest ||
	    sig_figs < 0 || sig_figs > 5)
		return -EINVAL;
	/*
	 * Java computes u in doubles, which is off by one only for 2^k - 1
	 * with k >= 48; the same formula keeps decoded layouts identical.
	 */
	c->u = (int32_t)floor(log((double)lowest) / log(2.0));
	c->m = sub_bucket_count_magnitudes[sig_figs];
	if (c->u + c->m > 62)
		return -EINVAL;
	/* Buckets until S * 2^u doubled covers highest (spec 1.3). */
	limit = (int64_t)1 << (c->u + c->m);
	c->bucket_count = 1;
	while (limit <= highest) {
		if (limit > INT64_MAX / 2) {
			c->bucket_count++;
			break;
		}
		limit <<= 1;
		c->bucket_count++;
	}
	c->counts_len = (c->bucket_count + 1) << (c->m - 1);
	return 0;
}

int lat_hist_init_any(struct lat_hist *h, int64_t lowest, int64_t highest,
		      int sig_figs)
{
	struct hist_config c;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = hist_configure(lowest, highest, sig_figs, &c);
	if (rc)
		return rc;
	h->counts = hist_calloc((size_t)c.counts_len, sizeof(*h->counts));
	if (!h->counts)
		return -ENOMEM;
	h->counts_len = c.counts_len;
	h->unit_magnitude = c.u;
	h->sub_bucket_half_count_magnitude = c.m - 1;
	h->leading_zero_count_base = 64 - c.u - c.m;
	h->sub_bucket_mask = (((int64_t)1 << c.m) - 1) << c.u;
	h->unit_mask = ((int64_t)1 << c.u) - 1;
	h->min_nonzero_internal = INT64_MAX;
	h->lowest_discernible = lowest;
	h->highest_trackable = highest;
	h->sig_figs = sig_figs;
	h->sub_bucket_count_magnitude = c.m;
	h->sub_bucket_count = (int32_t)1 << c.m;
	h->sub_bucket_half_count = (int32_t)1 << (c.m - 1);
	h->bucket_count = c.bucket_count;
	return 0;
}

int lat_hist_init(struct lat_hist *h, int64_t lowest, int64_t highest,
		  int sig_figs)
{
	if (sig_figs < 1) {
		memset(h, 0, sizeof(*h));
		return -EINVAL;
	}
	return lat_hist_init_any(h, lowest, highest, sig_figs);
}

void lat_hist_destroy(struct lat_hist *h)
{
	if (!h)
		return;
	free(h->counts);
	memset(h, 0, sizeof(*h));
}

int lat_hist_create(int64_t lowest, int64_t highest, int sig_figs,
		    struct lat_hist **out)
{
	struct lat_hist *h;
	int rc;

	*out = NULL;
	h = hist_calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	rc = lat_hist_init(h, lowest, highest, sig_figs);
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

void lat_hist_free(struct lat_hist *h)
{
	if (!h)
		return;
	lat_hist_destroy(h);
	free(h);
}

size_t lat_hist_mem_size(const struct lat_hist *h)
{
	return sizeof(*h) + (size_t)h->counts_len * sizeof(*h->counts);
}

size_t lat_hist_mem_size_for(int64_t lowest, int64_t highest, int sig_figs)
{
	struct hist_config c;

	if (hist_configure(lowest, highest, sig_figs, &c))
		return 0;
	return sizeof(struct lat_hist) + (size_t)c.counts_len * sizeof(int64_t);
}

int64_t lat_hist_value_at_index(const struct lat_hist *h, int32_t index)
{
	int32_t half_mag = h->sub_bucket_half_count_magnitude;
	int32_t bucket = (index >> half_mag) - 1;
	int32_t sub = (index & ((1 << half_mag) - 1)) + (1 << half_mag);

	if (index < 0)
		return 0;
	if (bucket < 0) {
		sub -= 1 << half_mag;
		bucket = 0;
	}
	/* Unsigned: the slot just past the largest array starts at 2^63. */
	return (int64_t)((uint64_t)sub << (bucket + h->unit_magnitude));
}

/* a + b for tallies >= 0: overflow_count saturates rather than wraps. */
static int64_t sat_add(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

bool lat_hist_record_slow(struct lat_hist *h, int64_t value, int64_t count)
{
	uint32_t index = (uint32_t)lat_hist_index_of(h, value);

	if (count < 1)
		return false;
	if (index < (uint32_t)h->counts_len)
		return lat_hist_record_n(h, value, count);
	h->overflow_count = sat_add(h->overflow_count, count);
	return false;
}

/*
 * lat_hist_record_n() for counts that come from data (merges, decoded
 * files, correction runs) rather than from one event: a count that would
 * take total_count past INT64_MAX is refused and tallied instead of
 * wrapping (signed overflow). total_count bounds every slot, so checking
 * it is enough. The hot path does not pay for this check.
 */
static bool record_n_checked(struct lat_hist *h, int64_t value,
			     int64_t count)
{
	if (count > INT64_MAX - h->total_count) {
		h->overflow_count = sat_add(h->overflow_count, count);
		return false;
	}
	return lat_hist_record_n(h, value, count);
}

/* Highest value whose slot is inside the counts array. */
static int64_t highest_recordable(const struct lat_hist *h)
{
	return lat_hist_highest_equivalent(h,
		lat_hist_value_at_index(h, h->counts_len - 1));
}

bool lat_hist_record_n_corrected(struct lat_hist *h, int64_t value,
				 int64_t count, int64_t expected_interval)
{
	const int64_t step = expected_interval;
	int64_t top, v, n, n_count, floor_value;
	bool ok = record_n_checked(h, value, count);

	if (step <= 0 || count < 1 || value < 0 || value - step < step)
		return ok;
	top = highest_recordable(h);
	/*
	 * The synthetic values v = value - k*step >= step, largest first.
	 * Java records them one by one (value / step calls); runs that share
	 * a slot, or that all overflow, are counted here in one step each.
	 */
	for (v = value - step; v >= step; v -= n * step) {
		if (v > top) {
			floor_value = top < step ? step : top + 1;
			n = (v - floor_value) / step + 1;
			if (__builtin_mul_overflow(n, count, &n_count))
				n_count = INT64_MAX;
			ok = lat_hist_record_slow(h, v, n_count) && ok;
			continue;
		}
		floor_value = lat_hist_lowest_equivalent(h, v);
		if (floor_value < step)
			floor_value = step;
		n = (v - floor_value) / step + 1;
		/* One slot: its extrema are those of v, the run's largest. */
		if (__builtin_mul_overflow(n, count, &n_count))
			n_count = INT64_MAX; /* refused below, and tallied */
		ok = record_n_checked(h, v, n_count) && ok;
	}
	return ok;
}

bool lat_hist_record_corrected(struct lat_hist *h, int64_t value,
			       int64_t expected_interval)
{
	return lat_hist_record_n_corrected(h, value, 1, expected_interval);
}

void lat_hist_reset(struct lat_hist *h)
{
	if (h->counts)
		memset(h->counts, 0, (size_t)h->counts_len * sizeof(*h->counts));
	h->total_count = 0;
	h->overflow_count = 0;
	h->max_internal = 0;
	h->min_nonzero_internal = INT64_MAX;
	h->start_ms = 0;
	h->end_ms = 0;
}

static bool same_layout(const struct lat_hist *a, const struct lat_hist *b)
{
	return a->unit_magnitude == b->unit_magnitude &&
		a->sub_bucket_count_magnitude == b->sub_bucket_count_magnitude &&
		a->counts_len == b->counts_len;
}

/*
 * Java's fast-path merge of the extrema, except that an empty result stays
 * empty: Java would leave the max at the unit mask (see the header).
 */
static void merge_extrema(struct lat_hist *dst, const struct lat_hist *src)
{
	int64_t max = lat_hist_max(src);
	int64_t min = lat_hist_min_nonzero(src);

	if (max > 0 && (max | dst->unit_mask) > dst->max_internal)
		dst->max_internal = max | dst->unit_mask;
	if (min != INT64_MAX && min > dst->unit_mask &&
	    (min & ~dst->unit_mask) < dst->min_nonzero_internal)
		dst->min_nonzero_internal = min & ~dst->unit_mask;
}

static void merge_timestamps(struct lat_hist *dst, const struct lat_hist *src)
{
	if (src->start_ms && (!dst->start_ms || src->start_ms < dst->start_ms))
		dst->start_ms = src->start_ms;
	if (src->end_ms > dst->end_ms)
		dst->end_ms = src->end_ms;
}

int64_t lat_hist_add(struct lat_hist *dst, const struct lat_hist *src)
{
	int64_t added = 0, refused = 0, c;
	int32_t i;

	if (same_layout(dst, src)) {
		for (i = 0; i < src->counts_len; i++) {
			c = src->counts[i];
			if (c <= 0)
				continue;
			/* total + added <= INT64_MAX: no overflow here */
			if (c > INT64_MAX - dst->total_count - added) {
				refused = sat_add(refused, c);
				continue;
			}
			dst->counts[i] += c;
			added += c;
		}
		dst->total_count += added;
		dst->overflow_count = sat_add(dst->overflow_count, refused);
		/* src's extrema may lie in a refused slot: recount then */
		if (refused)
			lat_hist_recount(dst);
		else
			merge_extrema(dst, src);
	} else {
		for (i = 0; i < src->counts_len; i++) {
			c = src->counts[i];
			if (c > 0 && !record_n_checked(dst,
					lat_hist_value_at_index(src, i), c))
				refused = sat_add(refused, c);
		}
	}
	merge_timestamps(dst, src);
	dst->overflow_count = sat_add(dst->overflow_count,
				      src->overflow_count);
	return refused;
}

int64_t lat_hist_add_corrected(struct lat_hist *dst,
			       const struct lat_hist *src,
			       int64_t expected_interval)
{
	int64_t overflow_before = dst->overflow_count, refused;
	int32_t i;

	for (i = 0; i < src->counts_len; i++) {
		if (src->counts[i] <= 0)
			continue;
		lat_hist_record_n_corrected(dst, lat_hist_highest_equivalent(
			src, lat_hist_value_at_index(src, i)), src->counts[i],
			expected_interval);
	}
	refused = dst->overflow_count - overflow_before;
	dst->overflow_count = sat_add(dst->overflow_count,
				      src->overflow_count);
	return refused;
}

int lat_hist_recount(struct lat_hist *h)
{
	int32_t i, max_index = -1, min_index = -1;
	int64_t total = 0, c, v;

	h->total_count = 0;
	h->max_internal = 0;
	h->min_nonzero_internal = INT64_MAX;
	for (i = 0; i < h->counts_len; i++) {
		c = h->counts[i];
		if (c < 0)
			return -EINVAL;
		if (c == 0)
			continue;
		if (total > INT64_MAX - c)
			return -EOVERFLOW;
		total += c;
		max_index = i;
		if (min_index < 0 && i != 0)
			min_index = i;
	}
	h->total_count = total;
	if (max_index >= 0) {
		/*
		 * Java: updatedMaxValue(highestEquivalent(...)). With only
		 * slot 0 filled and u > 0 that is the unit mask, as in Java.
		 */
		v = lat_hist_highest_equivalent(h,
			lat_hist_value_at_index(h, max_index)) | h->unit_mask;
		h->max_internal = v;
	}
	if (min_index >= 0) {
		v = lat_hist_value_at_index(h, min_index);
		if (v > h->unit_mask)
			h->min_nonzero_internal = v & ~h->unit_mask;
	}
	return 0;
}

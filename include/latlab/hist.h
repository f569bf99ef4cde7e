/*
 * lat_hist: an HdrHistogram-compatible histogram.
 *
 * Same value model, bucket layout and query semantics as the official Java
 * implementation, HdrHistogram 2.x (AbstractHistogram), which is the
 * reference: percentiles, equivalent ranges, min/max/mean/stddev and total
 * count agree with it for the same recorded values (tests/
 * test_hist_interop.c checks that against the Java library). The section
 * numbers below are those of the project's format notes,
 * shared/docs/hdr-spec.md (kept outside this repository); everything a
 * user needs from them is restated in the invariants here.
 *
 * Invariants:
 *  - Values are int64 >= 0, in the histogram's own unit (latlab records ns).
 *  - Layout: sub_bucket_count S = 2^m slots per bucket (m = 1, 5, 8, 11, 15,
 *    18 for 0..5 significant figures), resolution 2^u below S * 2^u
 *    (u = floor(log2 lowest)), and each further bucket doubles the range and
 *    the resolution. Two histograms with the same (u, m) give every value the
 *    same index, whatever their highest value: the shorter counts array is a
 *    prefix of the longer one.
 *  - Memory is allocated once, at init/create, and reported by
 *    lat_hist_mem_size(); recording never allocates.
 *  - A value that does not fit (negative, or whose slot lies beyond the
 *    counts array) is not lost silently: it increments overflow_count and
 *    the record call returns false. Values between highest_trackable and the
 *    top of the last slot are accepted, as in Java. No auto-resize: a fixed
 *    footprint is what a hot path wants.
 *  - total_count is the sum of counts[] (overflow_count is not included);
 *    every query and iterator works on counts[] and total_count only.
 *  - A histogram is not thread-safe: one writer, readers only when the
 *    writer is quiescent. Give each recording thread its own histogram and
 *    lat_hist_add() them.
 *
 * Significant figures: lat_hist_init() accepts 1..5, like HdrHistogram_c;
 * 0 (factor-of-two resolution) is almost always a caller's mistake. Files
 * written by the official Java and JS libraries may carry 0, so decoders use
 * lat_hist_init_any(), which accepts 0..5 like Java.
 *
 * Known, deliberate differences from Java 2.1.11 (both are Java quirks):
 *  - After lat_hist_reset() an empty histogram's max is 0; Java's reset()
 *    leaves the internal max at the unit mask, so getMaxValue() of an empty,
 *    reset Histogram(1000, H, d) returns 511.
 *  - Java throws where latlab counts: out-of-range values and merges count
 *    into overflow_count (see above).
 */
#ifndef LATLAB_HIST_H
#define LATLAB_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/common.h"

struct lat_hist {
	/* Hot: everything lat_hist_record() touches, first (one cache line). */
	int64_t *counts;             /* counts_len slots, owned */
	int32_t counts_len;          /* (bucket_count + 1) * S/2 */
	int32_t unit_magnitude;      /* u = floor(log2 L) */
	int32_t sub_bucket_half_count_magnitude; /* m - 1 */
	int32_t leading_zero_count_base; /* 64 - u - m */
	int64_t sub_bucket_mask;     /* (S - 1) << u */
	int64_t unit_mask;           /* 2^u - 1 */
	int64_t total_count;         /* sum of counts (excludes overflow) */
	int64_t max_internal;        /* v | unit mask, 0 when empty */
	int64_t min_nonzero_internal;/* v & ~unit mask, INT64_MAX when none */
	/* Cold. */
	int64_t overflow_count;      /* counts refused: < 0 or beyond range */
	int64_t lowest_discernible;  /* L >= 1 */
	int64_t highest_trackable;   /* H >= 2L */
	int32_t sig_figs;            /* d, 0..5 (0 only from decoded files) */
	int32_t sub_bucket_count_magnitude; /* m */
	int32_t sub_bucket_count;    /* S = 2^m */
	int32_t sub_bucket_half_count;
	int32_t bucket_count;
	int64_t start_ms;            /* interval start (ms since epoch), 0 unset */
	int64_t end_ms;              /* interval end, 0 unset */
	char tag[64];                /* optional .hlog tag, "" for none */
};

/*
 * Initialise @h (caller storage) for values in [lowest, highest] with
 * @sig_figs significant decimal digits (1..5). Allocates the counts array
 * (zeroed). lowest is in effect rounded down to a power of two (only u is
 * used), as in HdrHistogram.
 * Returns 0, -EINVAL for lowest < 1, lowest > INT64_MAX / 2,
 * highest < 2 * lowest, sig_figs out of range or u + m > 62, or -ENOMEM.
 * On failure nothing stays allocated and @h is zeroed (safe to destroy).
 */
int lat_hist_init(struct lat_hist *h, int64_t lowest, int64_t highest,
		  int sig_figs);

/*
 * lat_hist_init() accepting sig_figs 0..5 (Java's range), for decoders of
 * files written by other implementations. Same return codes.
 */
int lat_hist_init_any(struct lat_hist *h, int64_t lowest, int64_t highest,
		      int sig_figs);

/* Release @h's counts and zero @h. Safe on a zeroed or destroyed struct. */
void lat_hist_destroy(struct lat_hist *h);

/*
 * Heap pair: allocate struct and counts (sig_figs 1..5). Returns 0 or the
 * codes of lat_hist_init(); *out is NULL on failure.
 */
int lat_hist_create(int64_t lowest, int64_t highest, int sig_figs,
		    struct lat_hist **out);
/* Free a histogram from lat_hist_create(). Accepts NULL. */
void lat_hist_free(struct lat_hist *h);

/*
 * Bytes owned by @h: sizeof(struct lat_hist) plus 8 * counts_len. Fixed at
 * init; independent of how many values are recorded.
 * Example: 1 ns .. 1 h at 3 digits = 33,792 slots, 270,336 count bytes.
 */
size_t lat_hist_mem_size(const struct lat_hist *h);

/* Bytes lat_hist_mem_size() would report for this configuration, or 0 when
 * lat_hist_init_any() would reject it. No allocation. */
size_t lat_hist_mem_size_for(int64_t lowest, int64_t highest, int sig_figs);

/*
 * Index of @value's slot. Never negative; a value < 0 or beyond the counts
 * array gives an index >= counts_len. Inline, O(1).
 */
LAT_INLINE int32_t lat_hist_index_of(const struct lat_hist *h, int64_t value)
{
	uint64_t v = (uint64_t)value;
	/* OR-ing the mask sends every value below S * 2^u to bucket 0. */
	int32_t bucket = h->leading_zero_count_base -
		__builtin_clzll(v | (uint64_t)h->sub_bucket_mask);
	/* ((bucket + 1) << (m - 1)) + (sub - S/2), folded. */
	return (bucket << h->sub_bucket_half_count_magnitude) +
		(int32_t)(v >> (bucket + h->unit_magnitude));
}

/*
 * Lowest value of slot @index, 0 <= index <= counts_len (counts_len gives
 * the first value beyond the array; for the largest configurations that
 * is 2^63, which wraps to INT64_MIN as in Java).
 */
int64_t lat_hist_value_at_index(const struct lat_hist *h, int32_t index);

/*
 * Out-of-line part of lat_hist_record_n(): counts @count refused values
 * (count >= 1) in overflow_count and returns false. A count < 1 is a caller
 * error: nothing changes and the result is false.
 */
bool lat_hist_record_slow(struct lat_hist *h, int64_t value, int64_t count);

/*
 * Record @value @count times (count >= 1). O(1), inline, no allocation, no
 * syscall, one predictable branch plus the min/max updates. Returns false
 * (and adds @count to overflow_count) when the value is negative or beyond
 * the counts array; false without any change when count < 1.
 * total_count + count must not exceed INT64_MAX: unchecked here, to keep
 * the hot path short (merges and the corrected records check it).
 * Single writer (see invariants).
 */
LAT_INLINE bool lat_hist_record_n(struct lat_hist *h, int64_t value,
				  int64_t count)
{
	uint32_t index = (uint32_t)lat_hist_index_of(h, value);

	if (LAT_UNLIKELY(index >= (uint32_t)h->counts_len || count < 1))
		return lat_hist_record_slow(h, value, count);
	h->counts[index] += count;
	h->total_count += count;
	/* Java's updateMinAndMax: raw value against the internal extrema. */
	if (value > h->max_internal)
		h->max_internal = value | h->unit_mask;
	if (value < h->min_nonzero_internal && value > h->unit_mask)
		h->min_nonzero_internal = value & ~h->unit_mask;
	return true;
}

/* Record @value once; see lat_hist_record_n(). */
LAT_INLINE bool lat_hist_record(struct lat_hist *h, int64_t value)
{
	return lat_hist_record_n(h, value, 1);
}

/*
 * Record @value and, when @expected_interval > 0, the synthetic values
 * value - k*interval that are >= interval: HdrHistogram's
 * recordValueWithExpectedInterval (coordinated-omission correction).
 * Example: (95000, 10000) records 95000, 85000, ..., 15000 (nine values).
 * The synthetic values are recorded even when @value itself overflows
 * (Java throws before them; here they are real in-range estimates).
 * Cost is bounded by the number of slots touched, not value / interval:
 * runs of synthetic values that share a slot are added in one step.
 * Returns false if any of them overflowed (they are in overflow_count).
 */
bool lat_hist_record_corrected(struct lat_hist *h, int64_t value,
			       int64_t expected_interval);

/* lat_hist_record_corrected() with every record made @count times. */
bool lat_hist_record_n_corrected(struct lat_hist *h, int64_t value,
				 int64_t count, int64_t expected_interval);

/*
 * Zero every count, min/max, total, overflow_count and timestamps; keep
 * configuration and tag. No allocation.
 */
void lat_hist_reset(struct lat_hist *h);

/*
 * Add @src's counts into @dst (any layouts), as Java's add(): index by
 * index when the layouts match (same u, m and counts_len), otherwise each
 * non-empty slot of @src is re-recorded at its lowest value. Counts that
 * @dst cannot hold, beyond its range or beyond INT64_MAX in total, are
 * added to dst->overflow_count (Java throws, or wraps); src's
 * overflow_count is carried over too, and overflow_count saturates at
 * INT64_MAX. Timestamps widen to cover both
 * (0 = unset). Returns the number of counts refused in this call (>= 0,
 * excluding the carried src->overflow_count; saturates at INT64_MAX).
 * No allocation.
 */
int64_t lat_hist_add(struct lat_hist *dst, const struct lat_hist *src);

/*
 * Add @src into @dst while correcting for coordinated omission after the
 * fact: Java's addWhileCorrectingForCoordinatedOmission, which applies the
 * lat_hist_record_n_corrected() rule to each slot's HIGHEST equivalent
 * value (HdrHistogram_c uses the lowest). Use this or
 * lat_hist_record_corrected(), never both. Returns the counts refused.
 */
int64_t lat_hist_add_corrected(struct lat_hist *dst,
			       const struct lat_hist *src,
			       int64_t expected_interval);

/*
 * Queries, with Java's semantics (shared/docs/hdr-spec.md 1.5-1.8, restated
 * below). All are O(1) except
 * mean, stddev, percentiles (one pass over counts_len slots). None
 * allocates.
 *
 * lat_hist_min: 0 when empty or when slot 0 has a count, else the lowest
 *   equivalent of the smallest value recorded.
 * lat_hist_min_nonzero: smallest recorded value > unit mask (lowest
 *   equivalent), INT64_MAX when none.
 * lat_hist_max: highest equivalent of the largest value recorded, 0 when
 *   empty (and when only 0 was recorded, as in Java).
 * lat_hist_mean / lat_hist_stddev: over median-equivalent values, double
 *   accumulation (no int64 overflow), population stddev; 0.0 when empty.
 * lat_hist_value_at_percentile: p clamped to [0, 100] after a one-ulp nudge
 *   down, count = max(1, ceil(p/100 * total)); returns the lowest
 *   equivalent value of the slot that reaches that count when p == 0, the
 *   highest equivalent otherwise; 0 when empty. NaN acts as count 1.
 *   {1, 2, 3}: p40 = 2, p66.67 = 3.
 * lat_hist_percentile_at_value: percent of counts at or below @value's
 *   slot; 100.0 when empty.
 * lat_hist_count_at_value: count in @value's slot; a value beyond the
 *   array reads the last slot (as Java); a negative value gives 0.
 * Equivalent ranges take @value >= 0 (a negative value is treated as 0).
 *   size = 2^(u + bucket), lowest = value with the low (u + bucket) bits
 *   cleared, highest = lowest + size - 1, median = lowest + size / 2,
 *   next_non_equivalent = lowest + size (wraps to INT64_MIN for the top
 *   slot of the int64 range, as Java).
 */
int64_t lat_hist_min(const struct lat_hist *h);
int64_t lat_hist_min_nonzero(const struct lat_hist *h);
int64_t lat_hist_max(const struct lat_hist *h);
double lat_hist_mean(const struct lat_hist *h);
double lat_hist_stddev(const struct lat_hist *h);
int64_t lat_hist_value_at_percentile(const struct lat_hist *h, double p);

/* The default precision of every latlab histogram: 3 significant digits. */
#define LAT_HIST_DEFAULT_SIG_FIGS 3

/*
 * The summary row every latlab report shows: count, min, the percentiles
 * of lat_hist_summary_levels, max, mean and stddev, each multiplied by a
 * scale (the file's ns per value; 1 for histograms of ns).
 */
#define LAT_HIST_SUMMARY_N 5
extern const double lat_hist_summary_levels[LAT_HIST_SUMMARY_N];
/* "p50", "p90", "p99", "p99.9", "p99.99" for people ... */
extern const char *const lat_hist_summary_names[LAT_HIST_SUMMARY_N];
/* ... and "p50_ns", ..., "p999_ns", "p9999_ns" as JSON keys (no dots). */
extern const char *const lat_hist_summary_keys[LAT_HIST_SUMMARY_N];

struct lat_hist_summary {
	int64_t count;               /* total_count */
	double min, max, mean, stddev;
	double pct[LAT_HIST_SUMMARY_N]; /* at lat_hist_summary_levels */
};

/* Fill @s from @h, values times @scale. One pass per query; no allocation. */
void lat_hist_summarize(const struct lat_hist *h, double scale,
			struct lat_hist_summary *s);

/*
 * Merge @src into the accumulator *@acc, growing it first (a new, larger
 * histogram of the same precision, old counts added in) when @src holds
 * values beyond its range, as Java's auto-resizing histograms do, so no
 * count is refused for range. *@acc NULL (or empty, of another layout)
 * takes @src's layout. Counts refused anyway are added to *@refused.
 * *@mixed (may be NULL) is set when a non-empty @src of another precision
 * was merged (then at the accumulator's precision, as lat_hist_add does).
 * Returns 0 or -ENOMEM / lat_hist_init codes (*@acc unchanged).
 * Free the accumulator with lat_hist_free.
 */
int lat_hist_merge_grow(struct lat_hist **acc, const struct lat_hist *src,
			int64_t *refused, bool *mixed);
double lat_hist_percentile_at_value(const struct lat_hist *h, int64_t value);
int64_t lat_hist_count_at_value(const struct lat_hist *h, int64_t value);
int64_t lat_hist_lowest_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_highest_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_median_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_next_non_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_equivalent_range(const struct lat_hist *h, int64_t value);
bool lat_hist_values_equivalent(const struct lat_hist *h, int64_t a, int64_t b);

/*
 * Recompute total, min and max from the counts, as Java's
 * establishInternalTackingValues (after a decoder filled counts[]
 * directly): max = highest equivalent of the last non-empty slot,
 * min_nonzero = lowest value of the first non-empty slot above 0.
 * Returns 0, -EINVAL if a count is negative, or -EOVERFLOW if the counts
 * sum beyond INT64_MAX; in both error cases total_count, min and max are
 * left as for an empty histogram. Callers may ignore the result only when
 * they built counts[] themselves.
 */
int lat_hist_recount(struct lat_hist *h);

/*
 * Iteration, Java's iterators step for step (stack struct; no allocation).
 * Use: init, then `while (lat_hist_iter_next(&it))` read the public fields.
 * The histogram must not change during the iteration.
 *
 *  RECORDED    every non-empty slot once; value = its highest equivalent.
 *  ALL         every slot 0 .. counts_len - 1, empty ones too.
 *  PERCENTILE  Java's PercentileIterator: the level starts at 0 and after
 *              each step advances by 100 / (ticks * 2^(floor(log2(100 /
 *              (100 - old level))) + 1)); a slot emits a step whenever its
 *              cumulative percentile is >= the level; after the last count
 *              one more step with percentile_level = 100 is emitted at the
 *              last non-empty slot. No steps for an empty histogram.
 *              value = highest equivalent of the slot.
 *  LINEAR      steps of @step value units: value = the step's highest
 *              value (k * step - 1), count_added = counts in that step.
 *              Continues to the step covering the last non-empty slot.
 *              step < 1 gives an empty iteration.
 *  LOG         like LINEAR with steps first_bucket, first_bucket *
 *              log_base, ...; first_bucket < 1 or log_base <= 1 (or NaN)
 *              gives an empty iteration.
 */
enum lat_hist_iter_kind {
	LAT_HIST_ITER_RECORDED,
	LAT_HIST_ITER_PERCENTILE,
	LAT_HIST_ITER_LINEAR,
	LAT_HIST_ITER_LOG,
	LAT_HIST_ITER_ALL,
};

struct lat_hist_iter {
	const struct lat_hist *h;
	enum lat_hist_iter_kind kind;
	/* results of the last step (Java's HistogramIterationValue) */
	int64_t value;              /* value iterated to (see kinds above) */
	int64_t value_from;         /* value of the previous step, 0 first */
	int64_t lowest_value;       /* lowest equivalent of the current slot */
	int64_t count_at_value;     /* count in the current slot */
	int64_t count_added;        /* counts added since the last step */
	int64_t cumulative_count;   /* counts up to and including this step */
	double percentile;          /* 100 * cumulative_count / total */
	double percentile_level;    /* the level iterated to (percentile
				     * iterator), else = percentile */
	/* private state */
	int32_t index;
	int32_t visited_index;      /* recorded/all: last emitted slot */
	int64_t total;
	int64_t total_to_index;
	int64_t total_to_prev_index;
	int64_t current_value;      /* lowest value of slot index */
	int64_t next_value;         /* lowest value of slot index + 1 */
	int64_t prev_value_iterated_to;
	int64_t value_to_reach;     /* linear/log: step's highest value */
	int64_t lowest_to_reach;    /* its lowest equivalent */
	int64_t step;               /* linear step */
	double log_base;
	double log_next_level;      /* log: next reporting level */
	double level;               /* percentile: level to iterate to */
	int32_t ticks_per_half;
	bool reached_last;
	bool fresh;
	bool empty;                 /* invalid parameters: yields nothing */
};

/* Non-empty slots in value order. */
void lat_hist_iter_recorded_init(struct lat_hist_iter *it,
				 const struct lat_hist *h);
/* Every slot, empty ones too. */
void lat_hist_iter_all_init(struct lat_hist_iter *it,
			    const struct lat_hist *h);
/* Percentile levels, @ticks_per_half_distance >= 1 (5 in .hgrm files);
 * a value < 1 gives an empty iteration. */
void lat_hist_iter_percentile_init(struct lat_hist_iter *it,
				   const struct lat_hist *h,
				   int32_t ticks_per_half_distance);
void lat_hist_iter_linear_init(struct lat_hist_iter *it,
			       const struct lat_hist *h, int64_t step);
void lat_hist_iter_log_init(struct lat_hist_iter *it, const struct lat_hist *h,
			    int64_t first_bucket, double log_base);
/* Advance; false when done (then the fields keep the last step). */
bool lat_hist_iter_next(struct lat_hist_iter *it);

#endif

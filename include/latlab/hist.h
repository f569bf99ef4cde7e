/*
 * lat_hist: an HdrHistogram-compatible histogram.
 *
 * Same value model, bucket layout and query semantics as the official Java
 * implementation (the reference; see ../shared/docs/hdr-spec.md), so that
 * percentiles, equivalent ranges, min/max/mean/stddev and total count agree
 * with it for the same recorded values.
 *
 * Invariants:
 *  - Values are int64 >= 0, in the histogram's own unit (latlab records ns).
 *  - Memory is allocated once, at init/create, and reported by
 *    lat_hist_mem_size(); recording never allocates.
 *  - A value that does not fit (negative, or whose slot lies beyond the
 *    counts array) is not lost silently: it increments overflow_count and
 *    the record call returns false. Values between highest_trackable and the
 *    top of the last slot are accepted, as in Java. No auto-resize: a fixed
 *    footprint is what a hot path wants.
 *  - A histogram is not thread-safe: one writer, readers only when the
 *    writer is quiescent.
 */
#ifndef LATLAB_HIST_H
#define LATLAB_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/common.h"

struct lat_hist {
	int64_t lowest_discernible;  /* L >= 1 */
	int64_t highest_trackable;   /* H >= 2L */
	int32_t sig_figs;            /* d, 0..5 (0 only from decoded files) */
	int32_t unit_magnitude;      /* u = floor(log2 L) */
	int32_t sub_bucket_count_magnitude; /* m */
	int32_t sub_bucket_half_count_magnitude; /* m - 1 */
	int32_t sub_bucket_count;    /* S = 2^m */
	int32_t sub_bucket_half_count;
	int64_t sub_bucket_mask;     /* (S - 1) << u */
	int32_t bucket_count;
	int32_t counts_len;          /* (bucket_count + 1) * S/2 */
	int64_t total_count;         /* sum of counts (excludes overflow) */
	int64_t overflow_count;      /* values refused: < 0 or beyond range */
	int64_t max_internal;        /* v | unit mask, 0 when empty */
	int64_t min_nonzero_internal;/* v & ~unit mask, INT64_MAX when none */
	int64_t start_ms;            /* interval start (ms since epoch), 0 unset */
	int64_t end_ms;              /* interval end, 0 unset */
	char tag[64];                /* optional .hlog tag, "" for none */
	int64_t *counts;             /* counts_len slots, owned */
};

/*
 * Initialise @h for values in [lowest, highest] with @sig_figs significant
 * decimal digits (1..5). Allocates the counts array (calloc).
 * Returns 0, -EINVAL for lowest < 1, highest < 2 * lowest, sig_figs out of
 * range or u + m > 62, or -ENOMEM. On failure nothing stays allocated.
 */
int lat_hist_init(struct lat_hist *h, int64_t lowest, int64_t highest,
		  int sig_figs);

/* Release @h's counts. Safe on a zeroed or already-destroyed struct. */
void lat_hist_destroy(struct lat_hist *h);

/* Heap pair: allocate struct and counts. *out is NULL on failure. */
int lat_hist_create(int64_t lowest, int64_t highest, int sig_figs,
		    struct lat_hist **out);
/* Free a histogram from lat_hist_create(). Accepts NULL. */
void lat_hist_free(struct lat_hist *h);

/* Bytes owned by @h (struct plus counts array). */
size_t lat_hist_mem_size(const struct lat_hist *h);

/*
 * Record @value @count times (count >= 1). O(1), no allocation, no
 * syscall. Returns false (and adds @count to overflow_count) when the value
 * is negative or beyond the counts array.
 */
bool lat_hist_record_n(struct lat_hist *h, int64_t value, int64_t count);

/* Record @value once; see lat_hist_record_n(). */
bool lat_hist_record(struct lat_hist *h, int64_t value);

/*
 * Record @value and, when @expected_interval > 0, the synthetic values
 * value - k*interval that are >= interval: HdrHistogram's
 * recordValueWithExpectedInterval (coordinated-omission correction).
 * Returns false if any of them overflowed.
 */
bool lat_hist_record_corrected(struct lat_hist *h, int64_t value,
			       int64_t expected_interval);

/* Zero every count, min/max, totals and timestamps; keep configuration. */
void lat_hist_reset(struct lat_hist *h);

/*
 * Add @src's counts into @dst (any layouts). Counts that @dst cannot hold
 * are added to dst->overflow_count; src->overflow_count is carried over too.
 * Returns the number of counts that overflowed in this call (>= 0).
 */
int64_t lat_hist_add(struct lat_hist *dst, const struct lat_hist *src);

/* Queries, with Java's semantics (hdr-spec.md 1.5-1.8). */
int64_t lat_hist_min(const struct lat_hist *h);
int64_t lat_hist_max(const struct lat_hist *h);
double lat_hist_mean(const struct lat_hist *h);
double lat_hist_stddev(const struct lat_hist *h);
int64_t lat_hist_value_at_percentile(const struct lat_hist *h, double p);
int64_t lat_hist_count_at_value(const struct lat_hist *h, int64_t value);
int64_t lat_hist_lowest_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_highest_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_median_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_next_non_equivalent(const struct lat_hist *h, int64_t value);
int64_t lat_hist_equivalent_range(const struct lat_hist *h, int64_t value);
bool lat_hist_values_equivalent(const struct lat_hist *h, int64_t a, int64_t b);

/* Index helpers shared with the encoders. */
int32_t lat_hist_index_of(const struct lat_hist *h, int64_t value);
int64_t lat_hist_value_at_index(const struct lat_hist *h, int32_t index);

/*
 * Recompute total, min and max from the counts (after a decoder filled
 * them directly).
 */
void lat_hist_recount(struct lat_hist *h);

/* Iteration (stack struct; no allocation). */
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
	/* results of the last step */
	int64_t value;              /* value iterated to (highest equivalent) */
	int64_t lowest_value;       /* lowest equivalent of the current slot */
	int64_t count_at_value;     /* count in the current slot */
	int64_t count_added;        /* counts added since the last step */
	int64_t cumulative_count;   /* counts up to and including this step */
	double percentile;          /* cumulative percentile at this step */
	double percentile_level;    /* the level iterated to (percentile iter) */
	/* private state */
	int32_t index;
	int64_t total;
	int64_t total_to_index;
	int64_t prev_value_iterated_to;
	int64_t value_to_reach;     /* linear/log */
	int64_t step;               /* linear step */
	double log_base;
	int32_t ticks_per_half;
	bool reached_last;
	bool fresh;
};

void lat_hist_iter_recorded_init(struct lat_hist_iter *it,
				 const struct lat_hist *h);
void lat_hist_iter_percentile_init(struct lat_hist_iter *it,
				   const struct lat_hist *h,
				   int32_t ticks_per_half_distance);
void lat_hist_iter_linear_init(struct lat_hist_iter *it,
			       const struct lat_hist *h, int64_t step);
void lat_hist_iter_log_init(struct lat_hist_iter *it, const struct lat_hist *h,
			    int64_t first_bucket, double log_base);
/* Advance; false when done. */
bool lat_hist_iter_next(struct lat_hist_iter *it);

#endif

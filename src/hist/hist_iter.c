/*
 * lat_hist iterators: one walker with Java's AbstractHistogramIterator
 * state machine, and per-kind "has next", "reached level" and "advance
 * level" rules taken from Java's RecordedValues, AllValues, Percentile,
 * Linear and Logarithmic iterators. The .hgrm writer depends on the
 * percentile rules reproducing Java's rows exactly.
 */
#include <math.h>
#include <string.h>

#include "hist_int.h"
#include "latlab/hist.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

static void iter_init(struct lat_hist_iter *it, const struct lat_hist *h,
		      enum lat_hist_iter_kind kind)
{
	memset(it, 0, sizeof(*it));
	it->h = h;
	it->kind = kind;
	it->total = h->total_count;
	it->index = 0;
	it->visited_index = -1;
	it->current_value = 0;
	/* Java's int shift: 32-bit, count taken mod 32 (L >= 2^31 only). */
	it->next_value = (int32_t)(1u << (h->unit_magnitude & 31));
	it->fresh = true;
}

void lat_hist_iter_recorded_init(struct lat_hist_iter *it,
				 const struct lat_hist *h)
{
	iter_init(it, h, LAT_HIST_ITER_RECORDED);
}

void lat_hist_iter_all_init(struct lat_hist_iter *it,
			    const struct lat_hist *h)
{
	iter_init(it, h, LAT_HIST_ITER_ALL);
}

void lat_hist_iter_percentile_init(struct lat_hist_iter *it,
				   const struct lat_hist *h,
				   int32_t ticks_per_half_distance)
{
	iter_init(it, h, LAT_HIST_ITER_PERCENTILE);
	it->ticks_per_half = ticks_per_half_distance;
	it->level = 0.0;
	it->empty = ticks_per_half_distance < 1;
}

/* The step ending at @highest (its lowest equivalent starts the step). */
static void set_step_top(struct lat_hist_iter *it, int64_t highest)
{
	it->value_to_reach = highest;
	it->lowest_to_reach = lat_hist_lowest_equivalent(it->h, highest);
}

void lat_hist_iter_linear_init(struct lat_hist_iter *it,
			       const struct lat_hist *h, int64_t step)
{
	iter_init(it, h, LAT_HIST_ITER_LINEAR);
	it->step = step;
	it->empty = step < 1;
	set_step_top(it, step - 1);
}

void lat_hist_iter_log_init(struct lat_hist_iter *it, const struct lat_hist *h,
			    int64_t first_bucket, double log_base)
{
	iter_init(it, h, LAT_HIST_ITER_LOG);
	it->log_base = log_base;
	it->log_next_level = (double)first_bucket;
	it->empty = first_bucket < 1 || !(log_base > 1.0);
	set_step_top(it, lat_hist_d2l(it->log_next_level) - 1);
}

/* Java's hasNext() for each kind. */
static bool iter_has_next(struct lat_hist_iter *it)
{
	bool counts_left = it->total_to_index < it->total;

	switch (it->kind) {
	case LAT_HIST_ITER_RECORDED:
		return counts_left;
	case LAT_HIST_ITER_ALL:
		return it->index < it->h->counts_len - 1;
	case LAT_HIST_ITER_PERCENTILE:
		if (counts_left)
			return true;
		/* One last step to 100%. */
		if (!it->reached_last && it->total > 0) {
			it->level = 100.0;
			it->reached_last = true;
			return true;
		}
		return false;
	case LAT_HIST_ITER_LINEAR:
		/*
		 * Go on until the step passes the next slot, not just until
		 * the last count: the step holding it must be emitted. (Java
		 * 2.1.11 compares the step's top itself; later versions add
		 * one.)
		 */
		return counts_left || it->value_to_reach < it->next_value;
	case LAT_HIST_ITER_LOG:
		return counts_left ||
			lat_hist_lowest_equivalent(it->h,
				lat_hist_d2l(it->log_next_level)) <
			it->next_value;
	}
	return false;
}

static bool iter_reached_level(const struct lat_hist_iter *it, int64_t count)
{
	switch (it->kind) {
	case LAT_HIST_ITER_RECORDED:
		return count != 0 && it->visited_index != it->index;
	case LAT_HIST_ITER_ALL:
		return it->visited_index != it->index;
	case LAT_HIST_ITER_PERCENTILE:
		if (count == 0)
			return false;
		/*
		 * 100% belongs to the slot with the last count. The ratio
		 * alone says so too, except past 2^53 counts, where an
		 * earlier slot's ratio rounds up to 100.0.
		 */
		if (it->level >= 100.0)
			return it->total_to_index >= it->total;
		return 100.0 * (double)it->total_to_index / (double)it->total >=
			it->level;
	case LAT_HIST_ITER_LINEAR:
	case LAT_HIST_ITER_LOG:
		return it->current_value >= it->lowest_to_reach ||
			it->index >= it->h->counts_len - 1;
	}
	return false;
}

/* Java's PercentileIterator.incrementIterationLevel. */
static double next_percentile_level(double level, int32_t ticks_per_half)
{
	double halvings = log(100.0 / (100.0 - level)) / log(2.0);
	int64_t exponent = lat_hist_d2l(halvings);
	int64_t ticks;
	double next;

	/*
	 * Only a level rounded up to exactly 100 gets here with an infinite
	 * exponent; Java then divides by a zero tick count. Same result.
	 */
	if (exponent > 62)
		return INFINITY;
	ticks = (int64_t)ticks_per_half *
		lat_hist_d2l(pow(2.0, (double)(exponent + 1)));
	next = level + 100.0 / (double)ticks;
	/*
	 * Past ~2^53 counts a slot's percentile rounds to 100.0 while the
	 * step falls below half an ulp of the level: the level would stop
	 * and the slot emit rows forever (Java loops here). Move one ulp
	 * instead; 100 is then a few steps away. Never taken where Java
	 * terminates, so normal output stays byte-identical.
	 */
	return next > level ? next : nextafter(level, INFINITY);
}

static void iter_advance_level(struct lat_hist_iter *it)
{
	switch (it->kind) {
	case LAT_HIST_ITER_RECORDED:
	case LAT_HIST_ITER_ALL:
		it->visited_index = it->index;
		break;
	case LAT_HIST_ITER_PERCENTILE:
		/* a 100% row was just emitted: it is the last one */
		if (it->level >= 100.0)
			it->reached_last = true;
		it->level = next_percentile_level(it->level, it->ticks_per_half);
		break;
	case LAT_HIST_ITER_LINEAR:
		set_step_top(it, (int64_t)((uint64_t)it->value_to_reach +
					   (uint64_t)it->step));
		break;
	case LAT_HIST_ITER_LOG:
		it->log_next_level *= it->log_base;
		set_step_top(it, lat_hist_d2l(it->log_next_level) - 1);
		break;
	}
}

static int64_t iter_value_reached(const struct lat_hist_iter *it)
{
	if (it->kind == LAT_HIST_ITER_LINEAR || it->kind == LAT_HIST_ITER_LOG)
		return it->value_to_reach;
	return lat_hist_highest_equivalent(it->h, it->current_value);
}

static void iter_emit(struct lat_hist_iter *it, int64_t count)
{
	it->value = iter_value_reached(it);
	it->value_from = it->prev_value_iterated_to;
	it->lowest_value = lat_hist_lowest_equivalent(it->h, it->current_value);
	it->count_at_value = count;
	it->count_added = it->total_to_index - it->total_to_prev_index;
	it->cumulative_count = it->total_to_index;
	it->percentile = 100.0 * (double)it->total_to_index / (double)it->total;
	it->percentile_level = it->kind == LAT_HIST_ITER_PERCENTILE ?
		it->level : it->percentile;
	it->prev_value_iterated_to = it->value;
	it->total_to_prev_index = it->total_to_index;
}

bool lat_hist_iter_next(struct lat_hist_iter *it)
{
	const struct lat_hist *h = it->h;
	int64_t count;

	if (it->empty || !iter_has_next(it))
		return false;
	while (it->index < h->counts_len) {
		count = h->counts[it->index];
		if (it->fresh) {
			it->total_to_index += count;
			it->fresh = false;
		}
		if (iter_reached_level(it, count)) {
			iter_emit(it, count);
			iter_advance_level(it);
			return true;
		}
		it->fresh = true;
		it->index++;
		it->current_value = lat_hist_value_at_index(h, it->index);
		it->next_value = lat_hist_value_at_index(h, it->index + 1);
	}
	/* Only counts that disagree with total_count get here. */
	return false;
}

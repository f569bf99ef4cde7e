/*
 * Description: lat_hist iterators step by step against sequences computed
 * by hand from Java's iterator rules (PercentileIterator's ticks per half
 * distance and its final 100% step, LinearIterator and LogarithmicIterator
 * running on to the step that holds the last count, RecordedValues,
 * AllValues), plus consistency checks on a large random histogram.
 */
#include <string.h>

#include "latlab/hist.h"
#include "t_test.h"

struct t_step {
	int64_t value;
	int64_t count_added;
	double level;
};

static void t_expect(struct lat_hist_iter *it, const struct t_step *want,
		     size_t n, const char *what)
{
	size_t i = 0;

	while (lat_hist_iter_next(it)) {
		if (i >= n) {
			fprintf(stderr, "%s: extra step value %lld\n", what,
				(long long)it->value);
			T_CHECK(i < n);
			return;
		}
		T_EQ_I64(it->value, want[i].value);
		T_EQ_I64(it->count_added, want[i].count_added);
		T_NEAR(it->percentile_level, want[i].level, 0.0);
		i++;
	}
	if (i != n)
		fprintf(stderr, "%s: %zu steps, want %zu\n", what, i, n);
	T_EQ_I64(i, n);
}

static struct lat_hist t_one_to_four(void)
{
	struct lat_hist h;

	if (lat_hist_init(&h, 1, 3600000000000LL, 3))
		exit(T_EXIT_FAIL);
	for (int64_t v = 1; v <= 4; v++)
		lat_hist_record(&h, v);
	return h;
}

static void test_percentile_iter(void)
{
	/*
	 * {1,2,3,4}, 5 ticks per half: levels 0,10,...,50 (steps of 10),
	 * then 55..75 (5), 77.5 (2.5). Slot 4 reaches the total, so it emits
	 * only its current level and then the final 100% step.
	 */
	static const struct t_step want[] = {
		{ 1, 1, 0 }, { 1, 0, 10 }, { 1, 0, 20 },
		{ 2, 1, 30 }, { 2, 0, 40 }, { 2, 0, 50 },
		{ 3, 1, 55 }, { 3, 0, 60 }, { 3, 0, 65 }, { 3, 0, 70 },
		{ 3, 0, 75 },
		{ 4, 1, 77.5 }, { 4, 0, 100 },
	};
	struct lat_hist h = t_one_to_four(), empty;
	struct lat_hist_iter it;

	lat_hist_iter_percentile_init(&it, &h, 5);
	t_expect(&it, want, sizeof(want) / sizeof(want[0]), "percentile");
	T_EQ_I64(it.cumulative_count, 4);
	T_NEAR(it.percentile, 100.0, 0.0);
	T_CHECK(!lat_hist_iter_next(&it)); /* stays done */

	/* One tick per half: 0, 50, 75 (slot 3 is 75%), 87.5, then 100. */
	static const struct t_step one_tick[] = {
		{ 1, 1, 0 }, { 2, 1, 50 }, { 3, 1, 75 }, { 4, 1, 87.5 },
		{ 4, 0, 100 },
	};
	lat_hist_iter_percentile_init(&it, &h, 1);
	t_expect(&it, one_tick, 5, "percentile ticks=1");
	lat_hist_iter_percentile_init(&it, &h, 0);
	T_CHECK(!lat_hist_iter_next(&it));

	if (lat_hist_init(&empty, 1, 1000, 3))
		exit(T_EXIT_FAIL);
	lat_hist_iter_percentile_init(&it, &empty, 5);
	T_CHECK(!lat_hist_iter_next(&it));
	lat_hist_destroy(&empty);
	lat_hist_destroy(&h);
}

/*
 * Regression: with more than 2^53 counts in the first slot, its
 * cumulative percentile rounds to 100.0 while the levels creep up to it;
 * once the level step fell below half an ulp of the level it stopped
 * moving and the iterator emitted rows forever (Java loops too). 'latlab
 * report --hgrm' of such a log wrote until the disk was full.
 */
static void test_percentile_huge_counts(void)
{
	struct lat_hist h;
	struct lat_hist_iter it;
	int64_t steps = 0;

	if (lat_hist_init(&h, 1, 1000000, 3))
		exit(T_EXIT_FAIL);
	lat_hist_record_n(&h, 5, ((int64_t)1 << 60) + 1);
	lat_hist_record(&h, 700);
	lat_hist_iter_percentile_init(&it, &h, 5);
	while (steps < 10000000 && lat_hist_iter_next(&it))
		steps++;
	T_CHECK(steps < 10000); /* 5 ticks * 2 * ~53 halvings, and a few */
	T_EQ_I64(it.cumulative_count, h.total_count);
	T_NEAR(it.percentile_level, 100.0, 0.0);
	lat_hist_destroy(&h);
}

static void test_recorded_and_all(void)
{
	static const struct t_step recorded[] = {
		{ 1, 1, 25 }, { 2, 1, 50 }, { 3, 1, 75 }, { 4, 1, 100 },
	};
	/* d = 0, L = 1, H = 4: slots {0}, {1}, {2,3}, {4..7}. */
	static const struct t_step all[] = {
		{ 0, 0, 0 }, { 1, 1, 50 }, { 3, 0, 50 }, { 7, 1, 100 },
	};
	struct lat_hist h = t_one_to_four(), tiny;
	struct lat_hist_iter it;

	lat_hist_iter_recorded_init(&it, &h);
	t_expect(&it, recorded, 4, "recorded");
	T_EQ_I64(it.lowest_value, 4);
	T_EQ_I64(it.value_from, 3);

	if (lat_hist_init_any(&tiny, 1, 4, 0))
		exit(T_EXIT_FAIL);
	T_EQ_I64(tiny.counts_len, 4);
	lat_hist_record(&tiny, 1);
	lat_hist_record(&tiny, 6);
	lat_hist_iter_all_init(&it, &tiny);
	t_expect(&it, all, 4, "all");
	T_EQ_I64(it.lowest_value, 4);
	lat_hist_destroy(&tiny);
	lat_hist_destroy(&h);
}

static void test_linear_and_log(void)
{
	/* Steps of 2: [0,1] holds 1, [2,3] holds 2 and 3, [4,5] holds 4. */
	static const struct t_step linear[] = {
		{ 1, 1, 25 }, { 3, 2, 75 }, { 5, 1, 100 },
	};
	/* Log base 2 from 1: [0,0], [1,1], [2,3], [4,7]. */
	static const struct t_step logarithmic[] = {
		{ 0, 0, 0 }, { 1, 1, 25 }, { 3, 2, 75 }, { 7, 1, 100 },
	};
	struct lat_hist h = t_one_to_four();
	struct lat_hist_iter it;

	lat_hist_iter_linear_init(&it, &h, 2);
	t_expect(&it, linear, 3, "linear");
	lat_hist_iter_log_init(&it, &h, 1, 2.0);
	t_expect(&it, logarithmic, 4, "log");
	lat_hist_iter_linear_init(&it, &h, 0);
	T_CHECK(!lat_hist_iter_next(&it));
	lat_hist_iter_log_init(&it, &h, 1, 1.0);
	T_CHECK(!lat_hist_iter_next(&it));
	lat_hist_iter_log_init(&it, &h, 0, 2.0);
	T_CHECK(!lat_hist_iter_next(&it));
	lat_hist_destroy(&h);
}

/* Every kind accounts for every count exactly once, in value order. */
static void test_consistency(void)
{
	static const enum lat_hist_iter_kind kinds[] = {
		LAT_HIST_ITER_RECORDED, LAT_HIST_ITER_ALL,
		LAT_HIST_ITER_PERCENTILE, LAT_HIST_ITER_LINEAR,
		LAT_HIST_ITER_LOG,
	};
	struct lat_hist h;
	struct lat_hist_iter it;
	uint64_t x = 88172645463325252ULL;
	int64_t sum, last, steps;
	size_t k;
	int i;

	if (lat_hist_init(&h, 1000, 3600000000000LL, 2))
		exit(T_EXIT_FAIL);
	for (i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		lat_hist_record(&h, (int64_t)(x % 1000000) *
				(int64_t)(x % 7 == 0 ? 1000 : 1));
	}
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		switch (kinds[k]) {
		case LAT_HIST_ITER_RECORDED:
			lat_hist_iter_recorded_init(&it, &h);
			break;
		case LAT_HIST_ITER_ALL:
			lat_hist_iter_all_init(&it, &h);
			break;
		case LAT_HIST_ITER_PERCENTILE:
			lat_hist_iter_percentile_init(&it, &h, 5);
			break;
		case LAT_HIST_ITER_LINEAR:
			lat_hist_iter_linear_init(&it, &h, 100000000);
			break;
		case LAT_HIST_ITER_LOG:
			lat_hist_iter_log_init(&it, &h, 1000, 1.5);
			break;
		}
		sum = 0;
		last = -1;
		steps = 0;
		while (lat_hist_iter_next(&it)) {
			T_CHECK(it.value >= last);
			T_EQ_I64(it.cumulative_count, sum + it.count_added);
			last = it.value;
			sum += it.count_added;
			steps++;
		}
		T_EQ_I64(sum, h.total_count);
		T_CHECK(steps > 0);
		if (kinds[k] == LAT_HIST_ITER_ALL)
			T_EQ_I64(steps, h.counts_len);
		if (kinds[k] == LAT_HIST_ITER_PERCENTILE) {
			T_EQ_I64(last, lat_hist_max(&h));
			T_NEAR(it.percentile_level, 100.0, 0.0);
		}
	}
	lat_hist_destroy(&h);
}

int main(void)
{
	test_percentile_iter();
	test_percentile_huge_counts();
	test_recorded_and_all();
	test_linear_and_log();
	test_consistency();
	T_DONE();
}

/*
 * Description: lat_hist core against hand-computed HdrHistogram values:
 * layout and index math for d = 0, 1, 3, 5 and L = 1, 1000; equivalent
 * ranges (hdr-spec.md 1.5 worked examples); Java's percentile rounding;
 * min/max/mean/stddev; overflow counting; coordinated-omission
 * correction; add across layouts; recount; allocation failure.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hist/hist_int.h"
#include "latlab/hist.h"
#include "t_test.h"

static struct lat_hist t_hist(int64_t lowest, int64_t highest, int d)
{
	struct lat_hist h;
	int rc = lat_hist_init_any(&h, lowest, highest, d);

	if (rc) {
		fprintf(stderr, "init(%lld, %lld, %d): %s\n", (long long)lowest,
			(long long)highest, d, lat_strerror(rc));
		exit(T_EXIT_FAIL);
	}
	return h;
}

/* Slot of @v: lowest, highest, size and index, all at once. */
static void t_slot(const struct lat_hist *h, int64_t v, int64_t lowest,
		   int64_t highest, int32_t index)
{
	T_EQ_I64(lat_hist_lowest_equivalent(h, v), lowest);
	T_EQ_I64(lat_hist_highest_equivalent(h, v), highest);
	T_EQ_I64(lat_hist_equivalent_range(h, v), highest - lowest + 1);
	T_EQ_I64(lat_hist_next_non_equivalent(h, v), highest + 1);
	T_EQ_I64(lat_hist_median_equivalent(h, v),
		 lowest + (highest - lowest + 1) / 2);
	T_EQ_I64(lat_hist_index_of(h, v), index);
	T_EQ_I64(lat_hist_value_at_index(h, index), lowest);
}

static void test_layout_d3(void)
{
	/* 1 ns .. 1 h: S = 2048, 32 buckets, 33,792 slots (spec 6.3). */
	struct lat_hist h = t_hist(1, 3600000000000LL, 3);

	T_EQ_I64(h.sub_bucket_count, 2048);
	T_EQ_I64(h.unit_magnitude, 0);
	T_EQ_I64(h.bucket_count, 32);
	T_EQ_I64(h.counts_len, 33792);
	T_EQ_I64(lat_hist_mem_size(&h), sizeof(h) + 270336);
	T_EQ_I64(lat_hist_mem_size_for(1, 3600000000000LL, 3),
		 sizeof(h) + 270336);
	/* Bucket 0: unit resolution up to 2047. */
	t_slot(&h, 0, 0, 0, 0);
	t_slot(&h, 2047, 2047, 2047, 2047);
	/* Bucket 1: steps of 2 at indices 2048..3071. */
	t_slot(&h, 2048, 2048, 2049, 2048);
	t_slot(&h, 2049, 2048, 2049, 2048);
	t_slot(&h, 4095, 4094, 4095, 3071);
	/* Bucket 2: steps of 4 from 4096, index 3072. */
	t_slot(&h, 4096, 4096, 4099, 3072);
	/* The worked example: 1 h in ns, size 2^31. */
	t_slot(&h, 3600000000000LL, 3599182594048LL, 3601330077695LL,
	       lat_hist_index_of(&h, 3600000000000LL));
	T_EQ_I64(lat_hist_equivalent_range(&h, 3600000000000LL),
		 (int64_t)1 << 31);
	T_CHECK(lat_hist_values_equivalent(&h, 2048, 2049));
	T_CHECK(!lat_hist_values_equivalent(&h, 2049, 2050));
	/* Values above H but inside the last slot are accepted (Java). */
	T_CHECK(lat_hist_record(&h, 3601330077695LL));
	T_EQ_I64(lat_hist_max(&h), 3601330077695LL);
	lat_hist_destroy(&h);
	h = t_hist(1, 3600000000LL, 3); /* 1 us .. 1 h in us (~185 KB) */
	T_EQ_I64(h.counts_len, 23552);
	lat_hist_destroy(&h);
}

static void test_layout_d1_d5(void)
{
	struct lat_hist h = t_hist(1, 3600000000000LL, 1);

	/* S = 32: unit up to 31, then steps of 2 (32..63), 4 (64..127). */
	T_EQ_I64(h.sub_bucket_count, 32);
	T_EQ_I64(h.counts_len, 624);
	t_slot(&h, 31, 31, 31, 31);
	t_slot(&h, 33, 32, 33, 32);
	t_slot(&h, 63, 62, 63, 47);
	t_slot(&h, 64, 64, 67, 48);
	t_slot(&h, 101, 100, 103, 57);
	lat_hist_destroy(&h);

	h = t_hist(1, 3600000000000LL, 5);
	T_EQ_I64(h.sub_bucket_count, 262144);
	T_EQ_I64(h.counts_len, 3407872);
	t_slot(&h, 262143, 262143, 262143, 262143);
	t_slot(&h, 262145, 262144, 262145, 262144);
	/* 1e6 is in [2^19, 2^20): bucket 2, steps of 4. */
	t_slot(&h, 1000002, 1000000, 1000003, 2 * 131072 + 250000);
	lat_hist_destroy(&h);
}

static void test_layout_l1000(void)
{
	/* u = 9: resolution 512 in bucket 0 (values 0 .. 2^20 - 1). */
	struct lat_hist h = t_hist(1000, 3600000000000LL, 3);

	T_EQ_I64(h.unit_magnitude, 9);
	T_EQ_I64(h.counts_len, 24576);
	t_slot(&h, 0, 0, 511, 0);
	t_slot(&h, 511, 0, 511, 0);
	t_slot(&h, 1000, 512, 1023, 1);
	t_slot(&h, 1500, 1024, 1535, 2); /* spec: lowest 1024, size 512 */
	t_slot(&h, (int64_t)2048 << 9, (int64_t)2048 << 9,
	       ((int64_t)2048 << 9) + 1023, 2048);
	/* Java: recording 0 leaves max 0, recording 5 gives 511. */
	lat_hist_record(&h, 0);
	T_EQ_I64(lat_hist_max(&h), 0);
	lat_hist_record(&h, 5);
	T_EQ_I64(lat_hist_max(&h), 511);
	T_EQ_I64(lat_hist_min(&h), 0);
	T_EQ_I64(lat_hist_min_nonzero(&h), INT64_MAX);
	lat_hist_record(&h, 700);
	T_EQ_I64(lat_hist_max(&h), 1023);
	T_EQ_I64(lat_hist_min_nonzero(&h), 512);
	lat_hist_reset(&h);
	T_EQ_I64(lat_hist_min(&h), 0);
	lat_hist_record(&h, 700);
	T_EQ_I64(lat_hist_min(&h), 512);
	lat_hist_destroy(&h);
}

static void test_layout_d0(void)
{
	/* S = 2: every bucket has one slot of its own. */
	struct lat_hist h;

	T_EQ_I64(lat_hist_init(&h, 1, 1000, 0), -EINVAL);
	T_CHECK(h.counts == NULL);
	h = t_hist(1, 1000, 0);
	T_EQ_I64(h.sub_bucket_count, 2);
	T_EQ_I64(h.bucket_count, 10);
	T_EQ_I64(h.counts_len, 11);
	t_slot(&h, 1, 1, 1, 1);
	t_slot(&h, 3, 2, 3, 2);
	t_slot(&h, 5, 4, 7, 3);
	t_slot(&h, 1000, 512, 1023, 10);
	T_CHECK(lat_hist_record(&h, 1023));
	T_CHECK(!lat_hist_record(&h, 1024));
	lat_hist_destroy(&h);
}

static void test_init_errors(void)
{
	struct lat_hist h;

	T_EQ_I64(lat_hist_init(&h, 0, 100, 3), -EINVAL);
	T_EQ_I64(lat_hist_init(&h, 10, 19, 3), -EINVAL);
	T_EQ_I64(lat_hist_init(&h, 1, 100, 6), -EINVAL);
	T_EQ_I64(lat_hist_init_any(&h, 1, 100, -1), -EINVAL);
	T_EQ_I64(lat_hist_init(&h, INT64_MAX / 2 + 1, INT64_MAX, 1), -EINVAL);
	/* u + m = 52 + 11 > 62. */
	T_EQ_I64(lat_hist_init(&h, (int64_t)1 << 52, (int64_t)1 << 60, 3),
		 -EINVAL);
	T_EQ_I64(lat_hist_init(&h, (int64_t)1 << 51, (int64_t)1 << 60, 3), 0);
	lat_hist_destroy(&h);
	T_EQ_I64(lat_hist_mem_size_for(0, 100, 3), 0);
	lat_hist_destroy(&h); /* twice is fine */
	lat_hist_free(NULL);
}

static int t_alloc_calls, t_alloc_fail_at;

static void *t_failing_calloc(size_t n, size_t size)
{
	if (++t_alloc_calls == t_alloc_fail_at)
		return NULL;
	return calloc(n, size);
}

static void test_alloc_failure(void)
{
	struct lat_hist h, zero;
	struct lat_hist *hp;
	int at, rc;

	memset(&zero, 0, sizeof(zero));
	lat_hist_calloc_hook = t_failing_calloc;
	t_alloc_calls = 0;
	t_alloc_fail_at = 1;
	memset(&h, 0xa5, sizeof(h));
	T_EQ_I64(lat_hist_init(&h, 1, INT64_MAX, 5), -ENOMEM);
	T_CHECK(memcmp(&h, &zero, sizeof(h)) == 0);
	lat_hist_destroy(&h);
	/* create: fail the struct, then the counts; never leak (ASan). */
	for (at = 1; at <= 3; at++) {
		t_alloc_calls = 0;
		t_alloc_fail_at = at;
		hp = (struct lat_hist *)&zero;
		rc = lat_hist_create(1, 1000000, 3, &hp);
		if (at <= 2) {
			T_EQ_I64(rc, -ENOMEM);
			T_CHECK(hp == NULL);
		} else {
			T_EQ_I64(rc, 0);
			T_CHECK(hp != NULL && lat_hist_record(hp, 5));
		}
		lat_hist_free(hp);
	}
	lat_hist_calloc_hook = NULL;
}

static void test_overflow(void)
{
	/* H = 1000 at d = 3: one bucket of 2048 unit slots. */
	struct lat_hist h = t_hist(1, 1000, 3);

	T_EQ_I64(h.counts_len, 2048);
	T_CHECK(lat_hist_record(&h, 2047));
	T_CHECK(!lat_hist_record(&h, 2048));
	T_CHECK(!lat_hist_record(&h, -1));
	T_CHECK(!lat_hist_record(&h, INT64_MIN));
	T_CHECK(!lat_hist_record_n(&h, INT64_MAX, 10));
	T_CHECK(!lat_hist_record_n(&h, 5, 0)); /* caller error: no change */
	T_CHECK(!lat_hist_record_n(&h, 5, -3));
	T_EQ_I64(h.overflow_count, 13);
	T_EQ_I64(h.total_count, 1);
	T_EQ_I64(lat_hist_max(&h), 2047);
	T_EQ_I64(lat_hist_count_at_value(&h, 5), 0);
	/* count_at_value beyond the array reads the last slot (Java). */
	T_EQ_I64(lat_hist_count_at_value(&h, 1 << 20), 1);
	T_EQ_I64(lat_hist_count_at_value(&h, -5), 0);
	lat_hist_reset(&h);
	T_EQ_I64(h.overflow_count, 0);
	T_EQ_I64(h.total_count, 0);
	T_EQ_I64(lat_hist_max(&h), 0);
	lat_hist_destroy(&h);
}

static void test_huge_values(void)
{
	struct lat_hist h = t_hist(1, INT64_MAX, 3);
	int64_t v62 = (int64_t)1 << 62;

	T_EQ_I64(h.bucket_count, 53);
	T_EQ_I64(h.counts_len, 55296);
	T_CHECK(lat_hist_record_n(&h, v62, 3));
	T_CHECK(lat_hist_record(&h, INT64_MAX));
	T_EQ_I64(lat_hist_max(&h), INT64_MAX);
	T_EQ_I64(lat_hist_min(&h), v62);
	T_EQ_I64(lat_hist_index_of(&h, INT64_MAX), h.counts_len - 1);
	T_EQ_I64(lat_hist_highest_equivalent(&h, INT64_MAX), INT64_MAX);
	T_EQ_I64(lat_hist_next_non_equivalent(&h, INT64_MAX), INT64_MIN);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 50), v62 + ((int64_t)1 << 52) - 1);
	lat_hist_destroy(&h);
	/* 2^62 x 3: Java's mean is 2^62 + 2^51 (median of a 2^52 slot). */
	h = t_hist(1, INT64_MAX, 3);
	lat_hist_record_n(&h, v62, 3);
	T_NEAR(lat_hist_mean(&h), 4613937818241073152.0, 0.0);
	T_NEAR(lat_hist_stddev(&h), 0.0, 0.0);
	lat_hist_destroy(&h);
	h = t_hist(1, ((int64_t)1 << 62) - 1, 3);
	T_EQ_I64(h.counts_len, 54272);
	lat_hist_destroy(&h);
}

static void test_percentiles(void)
{
	struct lat_hist h = t_hist(1, 3600000000000LL, 3);

	T_EQ_I64(lat_hist_value_at_percentile(&h, 50), 0);
	lat_hist_record(&h, 1);
	lat_hist_record(&h, 2);
	lat_hist_record(&h, 3);
	/* Java: ceil with the one-ulp nudge (C's +0.5 gives 1 and 2). */
	T_EQ_I64(lat_hist_value_at_percentile(&h, 40), 2);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 66.67), 3);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 100.0 / 3.0), 1);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 0), 1);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 100), 3);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 1000), 3);
	T_EQ_I64(lat_hist_value_at_percentile(&h, NAN), 1);
	T_NEAR(lat_hist_percentile_at_value(&h, 2), 200.0 / 3.0, 1e-12);
	lat_hist_destroy(&h);

	/* L = 1000: p0 is the lowest equivalent, p < 0 the highest. */
	h = t_hist(1000, 3600000000000LL, 3);
	lat_hist_record(&h, 1500);
	lat_hist_record(&h, 5000);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 0), 1024);
	T_EQ_I64(lat_hist_value_at_percentile(&h, -5), 1535);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 50), 1535);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 50.0001), 5119);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 100), lat_hist_max(&h));
	lat_hist_destroy(&h);

	/* 1..10000 once each, d = 3: exact below 2048, then steps of 2/4/8. */
	h = t_hist(1, 3600000000000LL, 3);
	for (int64_t v = 1; v <= 10000; v++)
		lat_hist_record(&h, v);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 10), 1000);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 50), 5003);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 99), 9903);
	T_EQ_I64(lat_hist_value_at_percentile(&h, 99.99), 9999);
	T_EQ_I64(lat_hist_min(&h), 1);
	T_EQ_I64(lat_hist_max(&h), 10007);
	lat_hist_destroy(&h);
}

static void test_mean_stddev(void)
{
	/* Values below 2048 have slots of size 1: median = value. */
	static const int64_t values[] = { 3, 17, 17, 250, 999, 1024, 2047, 0 };
	struct lat_hist h = t_hist(1, 3600000000000LL, 3);
	double sum = 0, mean, sq = 0;
	size_t i, n = sizeof(values) / sizeof(values[0]);

	T_NEAR(lat_hist_mean(&h), 0.0, 0.0);
	T_NEAR(lat_hist_stddev(&h), 0.0, 0.0);
	for (i = 0; i < n; i++) {
		lat_hist_record(&h, values[i]);
		sum += (double)values[i];
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += ((double)values[i] - mean) * ((double)values[i] - mean);
	T_NEAR(lat_hist_mean(&h), mean, 1e-9);
	T_NEAR(lat_hist_stddev(&h), sqrt(sq / (double)n), 1e-9);
	/* A wide slot counts at its median: 4096..4099 -> 4098. */
	lat_hist_reset(&h);
	lat_hist_record_n(&h, 4096, 4);
	T_NEAR(lat_hist_mean(&h), 4098.0, 0.0);
	lat_hist_destroy(&h);
}

static void test_corrected(void)
{
	struct lat_hist h = t_hist(1, 3600000000000LL, 3);
	struct lat_hist ref = t_hist(1, 3600000000000LL, 3);
	int64_t v;

	/* (95000, 10000): 95000, 85000, ..., 15000 (spec 2, Java). */
	T_CHECK(lat_hist_record_corrected(&h, 95000, 10000));
	T_EQ_I64(h.total_count, 9);
	for (v = 15000; v <= 95000; v += 10000)
		T_EQ_I64(lat_hist_count_at_value(&h, v), 1);
	T_EQ_I64(lat_hist_count_at_value(&h, 5000), 0);
	T_EQ_I64(lat_hist_min(&h), 15000);
	lat_hist_reset(&h);
	T_CHECK(lat_hist_record_corrected(&h, 1999999, 1000000));
	T_EQ_I64(h.total_count, 1);
	T_CHECK(lat_hist_record_corrected(&h, 5, 0));
	T_CHECK(lat_hist_record_corrected(&h, 5, -7));
	T_EQ_I64(h.total_count, 3);

	/* Runs sharing a slot are added at once: same counts as one by one. */
	lat_hist_reset(&h);
	T_CHECK(lat_hist_record_n_corrected(&h, 123456789, 3, 7));
	lat_hist_record_n(&ref, 123456789, 3);
	for (v = 123456789 - 7; v >= 7; v -= 7)
		lat_hist_record_n(&ref, v, 3);
	T_EQ_I64(h.total_count, ref.total_count);
	T_CHECK(memcmp(h.counts, ref.counts,
		       (size_t)h.counts_len * sizeof(int64_t)) == 0);
	T_EQ_I64(lat_hist_min(&h), lat_hist_min(&ref));
	T_EQ_I64(lat_hist_max(&h), lat_hist_max(&ref));
	lat_hist_destroy(&h);
	lat_hist_destroy(&ref);

	/* Overflowing synthetic values are counted, the rest recorded. */
	h = t_hist(1, 1000, 3); /* slots up to 2047 */
	T_CHECK(!lat_hist_record_corrected(&h, 10000, 100));
	/* 10000 .. 2100 overflow (80 values), 2000 .. 100 recorded (20). */
	T_EQ_I64(h.overflow_count, 80);
	T_EQ_I64(h.total_count, 20);
	T_EQ_I64(lat_hist_max(&h), 2000);
	T_EQ_I64(lat_hist_min(&h), 100);
	/* Huge value and tiny interval: bounded by slots, not value/step. */
	lat_hist_reset(&h);
	T_CHECK(!lat_hist_record_corrected(&h, INT64_MAX, 1));
	T_EQ_I64(h.total_count, 2047);
	T_EQ_I64(h.overflow_count, INT64_MAX - 2047);
	lat_hist_destroy(&h);
}

/* Every value recorded in @src, re-recorded at its lowest equivalent. */
static void test_add(void)
{
	struct lat_hist a = t_hist(1, 3600000000000LL, 3);
	struct lat_hist b = t_hist(1, 3600000000000LL, 3);
	struct lat_hist c = t_hist(1000, 1000000000LL, 2);
	struct lat_hist ref = t_hist(1000, 1000000000LL, 2);
	struct lat_hist small = t_hist(1, 10000, 3);
	int64_t v, refused;

	for (v = 1; v < 5000000; v = v * 3 + 1) {
		lat_hist_record(&a, v);
		lat_hist_record_n(&b, v * 2, 2);
		lat_hist_record(&ref, lat_hist_lowest_equivalent(&a, v));
	}
	a.start_ms = 2000;
	a.end_ms = 3000;
	b.start_ms = 1000;
	b.end_ms = 2500;
	/* Same layout: index by index. */
	T_EQ_I64(lat_hist_add(&b, &a), 0);
	T_EQ_I64(b.total_count, 3 * a.total_count);
	T_EQ_I64(lat_hist_max(&b), lat_hist_max(&a) * 2 + 1);
	T_EQ_I64(lat_hist_min(&b), 1);
	T_EQ_I64(b.start_ms, 1000);
	T_EQ_I64(b.end_ms, 3000);
	/* Different layout: each slot's lowest value re-recorded. */
	T_EQ_I64(lat_hist_add(&c, &a), 0);
	T_EQ_I64(c.total_count, a.total_count);
	T_CHECK(memcmp(c.counts, ref.counts,
		       (size_t)c.counts_len * sizeof(int64_t)) == 0);
	T_EQ_I64(lat_hist_max(&c), lat_hist_max(&ref));
	T_EQ_I64(lat_hist_min(&c), lat_hist_min(&ref));
	T_EQ_I64(c.start_ms, 2000);
	/* A smaller range: what does not fit is counted, nothing vanishes. */
	small.overflow_count = 1;
	a.overflow_count = 5;
	refused = lat_hist_add(&small, &a);
	T_CHECK(refused > 0);
	T_EQ_I64(small.total_count + refused, a.total_count);
	T_EQ_I64(small.overflow_count, 1 + refused + 5);
	T_EQ_I64(lat_hist_max(&small), lat_hist_value_at_percentile(&small, 100));
	/* Adding an empty histogram changes nothing; empty stays empty. */
	lat_hist_reset(&ref);
	lat_hist_reset(&c);
	T_EQ_I64(lat_hist_add(&c, &ref), 0);
	T_EQ_I64(lat_hist_max(&c), 0);
	T_EQ_I64(lat_hist_min_nonzero(&c), INT64_MAX);
	lat_hist_destroy(&a);
	lat_hist_destroy(&b);
	lat_hist_destroy(&c);
	lat_hist_destroy(&ref);
	lat_hist_destroy(&small);
}

/*
 * Regression: merging two histograms whose counts sum beyond INT64_MAX
 * (two intervals of a hostile .hlog) wrapped total_count (signed
 * overflow). The counts that do not fit are refused and tallied.
 */
static void test_add_count_overflow(void)
{
	const int64_t big = (int64_t)3 << 61;
	struct lat_hist a = t_hist(1, 1000000, 3);
	struct lat_hist b = t_hist(1, 1000000, 3);
	struct lat_hist other = t_hist(1, 1000000000, 2);
	int64_t refused;

	lat_hist_record_n(&a, 100, big);
	lat_hist_record_n(&b, 100, big);
	lat_hist_record(&b, 7);
	refused = lat_hist_add(&a, &b);         /* same layout */
	T_EQ_I64(refused, big);
	T_EQ_I64(a.total_count, big + 1);
	T_EQ_I64(lat_hist_max(&a), 100);
	T_EQ_I64(lat_hist_min(&a), 7);
	T_EQ_I64(a.overflow_count, big);
	a.overflow_count = 0; /* the carry-over is test_add's business */
	T_EQ_I64(lat_hist_add(&other, &a), 0);  /* other layout */
	refused = lat_hist_add(&other, &a);
	T_EQ_I64(refused, big);
	T_EQ_I64(other.total_count, big + 2);
	T_CHECK(other.total_count > 0);
	T_EQ_I64(other.overflow_count, big);
	/* the tally saturates rather than wraps */
	T_EQ_I64(lat_hist_add(&other, &a), big);
	T_EQ_I64(lat_hist_add(&other, &a), big);
	T_EQ_I64(other.overflow_count, INT64_MAX);
	/* correction runs: n * count beyond int64 is refused, not wrapped */
	lat_hist_reset(&other);
	T_CHECK(!lat_hist_record_n_corrected(&other, 1000000, big, 10));
	T_CHECK(other.total_count >= big);
	T_CHECK(other.overflow_count > 0);
	lat_hist_destroy(&a);
	lat_hist_destroy(&b);
	lat_hist_destroy(&other);
}

static void test_add_corrected(void)
{
	/* Java post-correction uses each slot's highest equivalent: 95000
	 * is in slot 94976..95039, so 95039, 85039, ..., 15039. */
	struct lat_hist src = t_hist(1, 3600000000000LL, 3);
	struct lat_hist dst = t_hist(1, 3600000000000LL, 3);

	lat_hist_record(&src, 95000);
	T_EQ_I64(lat_hist_add_corrected(&dst, &src, 10000), 0);
	T_EQ_I64(dst.total_count, 9);
	T_EQ_I64(lat_hist_min(&dst), 15032);
	T_EQ_I64(lat_hist_count_at_value(&dst, 15039), 1);
	lat_hist_destroy(&src);
	lat_hist_destroy(&dst);
}

static void test_recount(void)
{
	struct lat_hist h = t_hist(1000, 3600000000000LL, 3);

	/* As a decoder would: fill counts, then recount (Java semantics). */
	h.counts[0] = 4;
	T_EQ_I64(lat_hist_recount(&h), 0);
	T_EQ_I64(h.total_count, 4);
	T_EQ_I64(lat_hist_max(&h), 511); /* Java: highestEquivalent(0) */
	T_EQ_I64(lat_hist_min(&h), 0);
	h.counts[2] = 1;
	h.counts[3000] = 2;
	T_EQ_I64(lat_hist_recount(&h), 0);
	T_EQ_I64(h.total_count, 7);
	T_EQ_I64(lat_hist_min_nonzero(&h), 1024);
	T_EQ_I64(lat_hist_max(&h),
		 lat_hist_highest_equivalent(&h, lat_hist_value_at_index(&h, 3000)));
	h.counts[0] = 0;
	T_EQ_I64(lat_hist_recount(&h), 0);
	T_EQ_I64(lat_hist_min(&h), 1024);
	h.counts[5] = -1;
	T_EQ_I64(lat_hist_recount(&h), -EINVAL);
	T_EQ_I64(h.total_count, 0);
	T_EQ_I64(lat_hist_max(&h), 0);
	h.counts[5] = INT64_MAX;
	T_EQ_I64(lat_hist_recount(&h), -EOVERFLOW);
	lat_hist_destroy(&h);
}

/*
 * --dump: replay the cases of tests/interop_hist_java.java from stdin and
 * print the same report as its dump(), for tests/interop_hist_java.sh.
 */
static const double dump_ps[] = { 0, 0.1, 1, 10, 25, 100.0 / 3, 40, 50,
	66.67, 75, 90, 99, 99.9, 99.99, 99.999, 100, 150, -1 };

static uint64_t t_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static void dump_one(const struct lat_hist *h)
{
	struct lat_hist_iter it;
	uint64_t hash = 0;
	int64_t rows = 0;
	size_t i;

	printf("total %" PRId64 " min %" PRId64 " max %" PRId64
	       " minnz %" PRId64 "\n", h->total_count, lat_hist_min(h),
	       lat_hist_max(h), lat_hist_min_nonzero(h));
	printf("mean %" PRIx64 " stddev %" PRIx64 "\n",
	       t_bits(lat_hist_mean(h)), t_bits(lat_hist_stddev(h)));
	for (i = 0; i < sizeof(dump_ps) / sizeof(dump_ps[0]); i++)
		printf("p %" PRIx64 " %" PRId64 "\n", t_bits(dump_ps[i]),
		       lat_hist_value_at_percentile(h, dump_ps[i]));
	lat_hist_iter_percentile_init(&it, h, 5);
	while (lat_hist_iter_next(&it))
		printf("pi %" PRId64 " %" PRIx64 " %" PRId64 "\n", it.value,
		       t_bits(it.percentile_level), it.cumulative_count);
	lat_hist_iter_recorded_init(&it, h);
	while (lat_hist_iter_next(&it))
		printf("ri %" PRId64 " %" PRId64 " %" PRId64 "\n", it.value,
		       it.count_at_value, it.value_from);
	lat_hist_iter_linear_init(&it, h, lat_hist_max(h) / 7 + 1);
	while (lat_hist_iter_next(&it))
		printf("li %" PRId64 " %" PRId64 " %" PRIx64 "\n", it.value,
		       it.count_added, t_bits(it.percentile));
	lat_hist_iter_log_init(&it, h, 1000, 1.7);
	while (lat_hist_iter_next(&it))
		printf("gi %" PRId64 " %" PRId64 "\n", it.value,
		       it.count_added);
	lat_hist_iter_all_init(&it, h);
	while (lat_hist_iter_next(&it)) {
		rows++;
		hash = hash * 31 + (uint64_t)it.value;
		hash = hash * 31 + (uint64_t)it.count_at_value;
	}
	printf("all %" PRId64 " %" PRId64 "\n", rows, (int64_t)hash);
}

static int dump_cases(void)
{
	long long lo, hi, interval, lo2, hi2, v, c;
	int d, d2;
	char line[256];
	struct lat_hist h, t;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "hist %lld %lld %d %lld %lld %lld %d", &lo,
			   &hi, &d, &interval, &lo2, &hi2, &d2) != 7)
			return T_EXIT_FAIL;
		h = t_hist(lo, hi, d);
		while (fgets(line, sizeof(line), stdin) &&
		       strncmp(line, "end", 3) != 0) {
			if (sscanf(line, "%lld %lld", &v, &c) != 2)
				return T_EXIT_FAIL;
			if (interval > 0)
				lat_hist_record_corrected(&h, v, interval);
			else
				lat_hist_record_n(&h, v, c);
		}
		dump_one(&h);
		t = t_hist(lo2, hi2, d2);
		lat_hist_add(&t, &h);
		lat_hist_add(&t, &h);
		printf("add\n");
		dump_one(&t);
		lat_hist_destroy(&h);
		lat_hist_destroy(&t);
	}
	return T_EXIT_PASS;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--dump") == 0)
		return dump_cases();
	test_layout_d3();
	test_layout_d1_d5();
	test_layout_l1000();
	test_layout_d0();
	test_init_errors();
	test_alloc_failure();
	test_overflow();
	test_huge_values();
	test_percentiles();
	test_mean_stddev();
	test_corrected();
	test_add();
	test_add_count_overflow();
	test_add_corrected();
	test_recount();
	T_DONE();
}

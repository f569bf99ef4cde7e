/*
 * Description: the last-level cache this process gets (lat_mem_llc_*):
 * the hit-fraction model on exact values and on a synthetic curve whose
 * capacity is known, the lap-by-lap drift's bookkeeping on a small
 * buffer (not its timings), its refusals, and the changed/steady call
 * on synthetic laps.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "latlab/clock.h"
#include "latlab/mem.h"
#include "t_test.h"

static void test_model(void)
{
	uint64_t s[32];
	double y[32];
	const double l3 = 13, dram = 150, cap = 6u << 20;
	int n = lat_mem_sizes(1u << 20, 64u << 20, 4, s, 32);

	/* all hits, all misses, half */
	T_NEAR(lat_mem_llc_effective(8u << 20, 13, l3, dram), 8u << 20, 1);
	T_NEAR(lat_mem_llc_effective(8u << 20, 150, l3, dram), 0, 1);
	T_NEAR(lat_mem_llc_effective(8u << 20, 81.5, l3, dram), 4u << 20, 1);
	/* faster than the cache / slower than DRAM: clamped */
	T_NEAR(lat_mem_llc_effective(8u << 20, 5, l3, dram), 8u << 20, 1);
	T_NEAR(lat_mem_llc_effective(8u << 20, 400, l3, dram), 0, 1);
	/* levels that make no sense */
	T_CHECK(isnan(lat_mem_llc_effective(1u << 20, 20, 150, 13)));
	T_CHECK(isnan(lat_mem_llc_effective(1u << 20, 20, 0, 13)));
	T_CHECK(isnan(lat_mem_llc_effective(1u << 20, NAN, l3, dram)));

	/* a curve that holds 6 MiB and then hits on cap / W of its loads:
	 * the capacity found is 6 MiB, whichever sizes the sweep has */
	T_CHECK(n > 20 && n <= 32);
	for (int i = 0; i < n; i++) {
		double hit = s[i] <= cap ? 1 : cap / (double)s[i];

		y[i] = l3 + (1 - hit) * (dram - l3);
	}
	T_NEAR(lat_mem_llc_curve_capacity(s, y, n, 0, l3, dram), cap,
	       1e-6 * cap);
	/* points before @first are not read */
	y[0] = l3 / 2;
	T_NEAR(lat_mem_llc_curve_capacity(s, y, n, 1, l3, dram), cap,
	       1e-6 * cap);
	T_CHECK(isnan(lat_mem_llc_curve_capacity(s, y, n, 0, dram, l3)));
	T_CHECK(isnan(lat_mem_llc_curve_capacity(s, y, 0, 0, l3, dram)));
}

static void test_drift_run(void)
{
	static uint32_t scratch[(1u << 20) / LAT_CACHELINE];
	struct lat_mem_buf b;
	struct lat_clock_cal cal = { 0 };
	struct lat_mem_llc_drift d;

	lat_clock_cal_from_ratio(&cal, 2.5);
	T_EQ_I64(lat_mem_buf_map(&b, 1u << 20, false), 0);
	T_EQ_I64(lat_mem_llc_drift_run(&b, scratch, 256u << 10, 13, 150,
				       0.05, &cal, NULL, NULL, &d), 0);
	T_EQ_I64(d.bytes, 256u << 10);
	T_CHECK(d.laps >= 1 && d.laps <= LAT_MEM_LLC_MAX_LAPS);
	T_CHECK(!d.interrupted);
	T_CHECK(d.seconds > 0);
	T_CHECK(d.lap_min_ns > 0 && d.lap_min_ns <= d.lap_p10_ns &&
		d.lap_p10_ns <= d.lap_p50_ns && d.lap_p50_ns <= d.lap_p90_ns &&
		d.lap_p90_ns <= d.lap_max_ns);
	T_CHECK(d.cap_min >= 0 && d.cap_min <= d.cap_p10 &&
		d.cap_p10 <= d.cap_p50 && d.cap_p50 <= d.cap_p90 &&
		d.cap_p90 <= d.cap_max && d.cap_max <= (double)d.bytes);
	/* the chain it laid is one cycle over every line */
	T_CHECK(lat_mem_chase(b.base, (256u << 10) / LAT_CACHELINE) ==
		b.base);
	/* refused: under one chunk of lines, beyond the buffer, no time,
	 * levels upside down */
	T_EQ_I64(lat_mem_llc_drift_run(&b, scratch, 32u << 10, 13, 150, 0.05,
				       &cal, NULL, NULL, &d), -EINVAL);
	T_EQ_I64(lat_mem_llc_drift_run(&b, scratch, 2u << 20, 13, 150, 0.05,
				       &cal, NULL, NULL, &d), -EINVAL);
	T_EQ_I64(lat_mem_llc_drift_run(&b, scratch, 256u << 10, 13, 150, 0,
				       &cal, NULL, NULL, &d), -EINVAL);
	T_EQ_I64(lat_mem_llc_drift_run(&b, scratch, 256u << 10, 150, 13,
				       0.05, &cal, NULL, NULL, &d), -EINVAL);
	lat_mem_buf_unmap(&b);
}

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

static void test_drift_stop(void)
{
	static uint32_t scratch[(256u << 10) / LAT_CACHELINE];
	struct lat_mem_buf b;
	struct lat_clock_cal cal = { 0 };
	struct lat_mem_llc_drift d;

	lat_clock_cal_from_ratio(&cal, 2.5);
	T_EQ_I64(lat_mem_buf_map(&b, 256u << 10, false), 0);
	T_EQ_I64(lat_mem_llc_drift_run(&b, scratch, 256u << 10, 13, 150, 10,
				       &cal, stop_now, NULL, &d), 0);
	T_EQ_I64(d.laps, 0);
	T_CHECK(d.interrupted);
	T_CHECK(!lat_mem_llc_drift_changes(&d));
	lat_mem_buf_unmap(&b);
}

static void test_drift_changes(void)
{
	struct lat_mem_llc_drift d = { .laps = 100, .llc_ns = 15,
				       .dram_ns = 155 };

	/* laps from 20 ns to 140 ns: most of the cache, then nearly none */
	d.lap_p10_ns = 20;
	d.lap_p90_ns = 140;
	T_CHECK(lat_mem_llc_drift_changes(&d));
	/* 10% of DRAM-level jitter near DRAM level: not a change, although
	 * the capacities it implies differ 3x */
	d.lap_p10_ns = 135;
	d.lap_p90_ns = 149;
	T_CHECK(!lat_mem_llc_drift_changes(&d));
	d.laps = 0;
	d.lap_p10_ns = 20;
	d.lap_p90_ns = 140;
	T_CHECK(!lat_mem_llc_drift_changes(&d));
}

int main(void)
{
	test_model();
	test_drift_run();
	test_drift_stop();
	test_drift_changes();
	T_DONE();
}

/*
 * Description: the cycle clock's fixed-point conversion (exact for exact
 * ratios, < 1 ns / < 1 ppm over an hour for any ratio, both directions),
 * argument checks, and calibration plausibility against
 * CLOCK_MONOTONIC_RAW (a 0.1 % bound on 100 ms: a sanity check of the
 * fit, not a timing assertion), and the clock report as data and text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/clock.h"
#include "latlab/json.h"
#include "t_test.h"

/* The ratios the design names: 1 GHz, EPYC here, 3 GHz, aarch64 24 MHz. */
static const double ratios[] = { 1.0, 2.096, 3.0, 0.024, 0.0625, 2.5,
				 1.8999999, 4.2 };
#define N_RATIOS (sizeof(ratios) / sizeof(ratios[0]))
#define HOUR_NS 3600e9
#define HOUR_NS_INT 3600000000000ull

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
	/* xorshift64*: fixed seed, so every run checks the same counts. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717u;
}

static void test_exact_ratios(void)
{
	struct lat_clock_cal cal;

	/* Ratios a double holds exactly: whole-ns counts convert exactly. */
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 3.0), 0);
	T_EQ_I64(lat_clock_to_ns(&cal, 3000000000000ull), 1000000000000ll);
	T_EQ_I64(lat_clock_to_ns(&cal, 3 * 12345678901ull), 12345678901ll);
	T_EQ_I64(lat_clock_to_ns(&cal, 2), 0);
	T_EQ_I64(lat_clock_to_ns(&cal, 0), 0);
	T_EQ_I64(lat_clock_from_ns(&cal, 1000000000), 3000000000ll);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 1.0), 0);
	T_EQ_I64(lat_clock_to_ns(&cal, UINT64_MAX >> 1), INT64_MAX);
	T_EQ_I64(lat_clock_from_ns(&cal, 777), 777);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 0.5), 0);
	T_EQ_I64(lat_clock_to_ns(&cal, 1000), 2000);
	T_EQ_I64(lat_clock_from_ns(&cal, 2001), 1000);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 2.0), 0);
	T_EQ_I64(lat_clock_to_ns(&cal, 7200000000000ull), 3600000000000ll);
	T_CHECK(cal.cycles_per_ns == 2.0);
}

/*
 * Every ratio, counts up to one hour (and a few beyond): the result is
 * within 1 ns of the exact quotient (long double has 64 bits on x86_64
 * and 113 on aarch64, more than the 53 of the ratio), so the relative
 * error over an hour is ~3e-13, far under 1 ppm. The ppm check is also
 * made explicitly at exactly one hour.
 */
static void test_any_ratio(void)
{
	for (size_t r = 0; r < N_RATIOS; r++) {
		struct lat_clock_cal cal;
		long double ratio = ratios[r];
		uint64_t hour_cycles = (uint64_t)(HOUR_NS * ratios[r]);
		long double exact, got, err_ppm;

		T_EQ_I64(lat_clock_cal_from_ratio(&cal, ratios[r]), 0);
		T_CHECK(cal.mult > (1ull << 62) && cal.mult <= (1ull << 63));
		for (int i = 0; i < 20000; i++) {
			uint64_t c = rng_next() % (hour_cycles * 4);
			uint64_t ns = rng_next() % (uint64_t)(HOUR_NS * 4);

			exact = floorl((long double)c / ratio);
			got = lat_clock_to_ns(&cal, c);
			T_CHECK(got >= exact && got <= exact + 1);
			exact = floorl((long double)ns * ratio);
			got = lat_clock_from_ns(&cal, ns);
			T_CHECK(got >= exact - 1 && got <= exact);
		}
		exact = (long double)hour_cycles / ratio;
		got = lat_clock_to_ns(&cal, hour_cycles);
		err_ppm = fabsl(got - exact) / exact * 1e6L;
		T_CHECK(err_ppm < 1.0L);
		/* Round trip ns -> cycles -> ns loses at most one cycle. */
		got = lat_clock_to_ns(&cal,
				      lat_clock_from_ns(&cal, HOUR_NS_INT));
		T_NEAR(got, 3600000000000.0, 1.0 / ratios[r] + 1);
	}
}

static void test_bad_args(void)
{
	struct lat_clock_cal cal, before;

	memset(&cal, 0xab, sizeof(cal));
	before = cal;
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 0), -EINVAL);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, -2.0), -EINVAL);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, NAN), -EINVAL);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, INFINITY), -EINVAL);
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 1e9), -EINVAL);
	T_CHECK(!memcmp(&cal, &before, sizeof(cal)));
	T_EQ_I64(lat_clock_calibrate(&cal, 0), -EINVAL);
	T_EQ_I64(lat_clock_calibrate_fit(&cal, 0), -EINVAL);
	T_EQ_I64(lat_clock_calibrate(&cal, 60001), -EINVAL);
}

static void test_info(void)
{
	struct lat_clock_info info;

	T_EQ_I64(lat_clock_info(&info), 0);
	T_CHECK(info.clocksource[0] != '\0');
	T_CHECK(info.source[0] != '\0');
	T_CHECK(memchr(info.clocksource, '\n', sizeof(info.clocksource)) ==
		NULL);
#if defined(__aarch64__)
	T_CHECK(info.invariant && info.hw_hz > 0);
#endif
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/*
 * A calibration must describe the counter: converted to ns, a 100 ms
 * stretch must agree with CLOCK_MONOTONIC_RAW within 0.1 % (1000 ppm,
 * ~1000x the error a correct fit has here). A wrong shift, a slope
 * inverted or a units mistake misses by orders of magnitude.
 */
static void test_calibration_plausible(void)
{
	struct lat_clock_info info;
	struct lat_clock_cal cal;
	struct lat_clock_pair a, b;
	double ns_counter, ns_raw;

	lat_clock_info(&info);
	if (!info.invariant)
		T_SKIP("counter not invariant: calibration not meaningful");
	T_EQ_I64(lat_clock_calibrate_fit(&cal, 100), 0);
	T_CHECK(cal.cycles_per_ns > 1e-3 && cal.cycles_per_ns < 100);
	T_CHECK(cal.windows >= 2);
	/* Bracket noise over 10 ms windows is ppm, not per mille. */
	T_CHECK(cal.spread_ppm >= 0 && cal.spread_ppm < 1000);
	T_CHECK(!cal.from_hardware);
	T_EQ_I64(lat_clock_calibrate(&cal, 100), 0);

	lat_clock_pair_read(&a, 16);
	sleep_ms(100);
	lat_clock_pair_read(&b, 16);
	T_CHECK(b.cycles > a.cycles && b.raw_ns > a.raw_ns);
	ns_counter = (double)lat_clock_to_ns(&cal, b.cycles - a.cycles);
	ns_raw = (double)(b.raw_ns - a.raw_ns);
	T_NEAR(ns_counter / ns_raw, 1.0, 1e-3);
}

/*
 * The checks `latlab clock` prints, through the library: every kind of
 * read has a cost or says why not, pairs are accounted (kept + backwards),
 * repeated calibrations agree with their own median, bad input refused.
 */
static void test_clock_checks(void)
{
	struct lat_clock_cost c[LAT_CLOCK_READ_KINDS];
	struct lat_clock_repeat rep;
	struct lat_clock_drift d;
	struct lat_clock_cal cal;

	T_EQ_I64(lat_clock_cal_from_ratio(&cal, 1.0), 0);
	T_EQ_I64(lat_clock_read_costs(&cal, 10, c), -EINVAL);
	T_EQ_I64(lat_clock_read_costs(&cal, 2000, c), 0);
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++) {
		T_CHECK(c[k].key && c[k].how);
		if (!c[k].available) {
			T_EQ_I64(k, LAT_CLOCK_READ_RDTSCP);
			T_EQ_I64(c[k].pairs, 0);
			continue;
		}
		T_EQ_I64(c[k].pairs, 2000);
		T_CHECK(c[k].backwards <= c[k].pairs);
		if (c[k].backwards < c[k].pairs) {
			T_CHECK(c[k].p50_ns >= 0);
			T_CHECK(c[k].p99_ns >= c[k].p50_ns);
		}
	}
	T_EQ_I64(lat_clock_drift(&cal, 0, &d), -EINVAL);
	T_EQ_I64(lat_clock_calibrate_repeat(&rep, 0, 20), -EINVAL);
	T_EQ_I64(lat_clock_calibrate_repeat(&rep, 3, 20), 0);
	T_CHECK(rep.cal[0].cycles_per_ns > 0);
	T_CHECK(rep.spread_ppm >= 0);
	T_EQ_I64(rep.stable, rep.spread_ppm <= LAT_CLOCK_STABLE_PPM);
	T_CHECK(rep.use.cycles_per_ns > 0);
	T_EQ_I64(lat_clock_drift(&rep.use, 0.01, &d), 0);
	T_CHECK(d.seconds >= 0.009);
	T_CHECK(d.uncertainty_ppm >= 0);
	T_CHECK(isfinite(d.ppm));
}

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

/*
 * The report latlab clock prints, through the public API: a stopped run
 * says so as data (the DRIFT_SHORT bit, 1000 pairs measured of the 5000
 * asked), its sentence carries the numbers, and both printers write
 * what the data holds.
 */
static void test_clock_report(void)
{
	static struct lat_clock_report r;
	char buf[160], *text = NULL, *json = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *f;

	T_EQ_I64(lat_clock_report_calibrate(&r, 10), 0);
	T_EQ_I64(r.calib_ms, 10);
	T_CHECK(r.cal.use.cycles_per_ns > 0);
	T_EQ_I64(lat_clock_report_measure(&r, 0.01, 5000, stop_now, NULL), 0);
	T_CHECK(r.warnings & LAT_CLOCK_WARN_DRIFT_SHORT);
	T_EQ_I64(r.pairs, 5000);
	T_EQ_I64(r.costs[LAT_CLOCK_READ_RAW].pairs, 1000);
	T_CHECK(strstr(lat_clock_warning_text(&r, LAT_CLOCK_WARN_DRIFT_SHORT,
					      buf, sizeof(buf)),
		       "not the 0.01 s asked") != NULL);
	f = open_memstream(&text, &tlen);
	T_EQ_I64(lat_clock_report_write(f, false, &r), 0);
	fclose(f);
	T_CHECK(strstr(text, "from 5000 back-to-back pairs") != NULL);
	T_CHECK(strstr(text, "warning: interrupted") != NULL);
	f = open_memstream(&json, &jlen);
	T_EQ_I64(lat_clock_report_write(f, true, &r), 0);
	fclose(f);
	T_CHECK(json[0] == '{');
	T_CHECK(strstr(json, "\"calib_ms\":10,") != NULL);
	T_CHECK(strstr(json, "\"interrupted: the drift") != NULL);
	f = fopen("/dev/full", "w"); /* every write fails: ENOSPC */
	if (f) {
		T_EQ_I64(lat_clock_report_write(f, true, &r), -EIO);
		fclose(f);
	}
	free(text);
	free(json);
}

int main(void)
{
	test_clock_report();
	test_clock_checks();
	test_exact_ratios();
	test_any_ratio();
	test_bad_args();
	test_info();
	test_calibration_plausible();
	T_DONE();
}

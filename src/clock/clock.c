/*
 * lat_clock: fixed-point conversion and calibration of the cycle counter
 * against CLOCK_MONOTONIC_RAW. See include/latlab/clock.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latlab/clock.h"
#include "latlab/stats.h"

/* A window shorter than this is mostly bracket noise (~tens of ns). */
#define CAL_MIN_WINDOW_MS 10
#define CAL_MAX_WINDOWS 16
#define CAL_MIN_WINDOWS 3
#define CAL_BRACKET_TRIES 16
#define CAL_MAX_MS 60000

int lat_clock_cal_from_ratio(struct lat_clock_cal *cal, double cycles_per_ns)
{
	double frac;
	int e;
	uint64_t m;
	lat_u128 num;

	if (!(cycles_per_ns >= LAT_CLOCK_MIN_CYCLES_PER_NS &&
	      cycles_per_ns <= LAT_CLOCK_MAX_CYCLES_PER_NS))
		return -EINVAL;
	/*
	 * Work from the double's exact value r = m * 2^(e-53), m in
	 * [2^52, 2^53), so that ratios like 3.0 give the best multiplier
	 * there is, not one already rounded through 1.0 / r in double.
	 * 1/r * 2^shift = 2^(shift - e + 53) / m; with shift = 62 + e the
	 * quotient lies in (2^62, 2^63]. Rounding it up makes the product
	 * never fall short, so whole results come out exact, and the excess
	 * stays below one ns for cycles < 2^shift (intervals < 2^62 ns).
	 */
	frac = frexp(cycles_per_ns, &e);
	m = (uint64_t)ldexp(frac, 53);
	num = (lat_u128)1 << 115;
	cal->mult = (uint64_t)((num + m - 1) / m);
	cal->shift = (unsigned)(62 + e);
	/* cycles = ns * r = ns * (m << 10) >> (63 - e): exact, then floored. */
	cal->to_cycles_mult = m << 10;
	cal->to_cycles_shift = (unsigned)(63 - e);
	cal->cycles_per_ns = cycles_per_ns;
	return 0;
}

static int64_t raw_ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lat_clock_pair_read(struct lat_clock_pair *p, unsigned tries)
{
	p->width = UINT64_MAX;
	if (tries == 0)
		tries = 1;
	for (unsigned i = 0; i < tries; i++) {
		lat_cycles_t c0 = lat_clock_start();
		int64_t ns = raw_ns_now();
		lat_cycles_t c1 = lat_clock_end();

		/* Backwards (migrated between unsynced CPUs): junk. */
		if (c1 < c0 || c1 - c0 >= p->width)
			continue;
		p->width = c1 - c0;
		p->cycles = c0 + p->width / 2;
		p->raw_ns = ns;
	}
	if (p->width == UINT64_MAX) {
		/* Every try went backwards: keep the last, say it is wide. */
		p->cycles = lat_clock_start();
		p->raw_ns = raw_ns_now();
	}
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000,
			       .tv_nsec = ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Median of @n values; sorts a copy, leaves @v alone. n <= MAX+1. */
static double median(const double *v, int n)
{
	double tmp[CAL_MAX_WINDOWS + 1];

	memcpy(tmp, v, (size_t)n * sizeof(*v));
	return lat_median_sort(tmp, (size_t)n);
}

/*
 * Points far from the median line are rejected: a bracket that never got
 * a quiet moment in CAL_BRACKET_TRIES tries, or a counter that jumped.
 * The threshold is generous (several median deviations, at least a few
 * bracket widths) because a good point is off the line only by noise.
 */
static void reject_outliers(const double *x, const double *y, int n,
			    double slope, const double *width, bool *keep)
{
	double resid[CAL_MAX_WINDOWS + 1], dev[CAL_MAX_WINDOWS + 1];
	double mid, mad, limit;

	for (int i = 0; i < n; i++)
		resid[i] = y[i] - slope * x[i];
	mid = median(resid, n);
	for (int i = 0; i < n; i++)
		dev[i] = fabs(resid[i] - mid);
	mad = median(dev, n);
	limit = 5 * mad;
	for (int i = 0; i < n; i++) {
		double floor_cycles = 4 * width[i] + 64;

		keep[i] = dev[i] <= fmax(limit, floor_cycles);
	}
}

static double least_squares_slope(const double *x, const double *y,
				  const bool *keep, int n, int *used)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, mx, my;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (keep[i])
			sx += x[i], sy += y[i], k++;
	*used = k;
	if (k < 2)
		return 0;
	mx = sx / k;
	my = sy / k;
	for (int i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	return sxx > 0 ? sxy / sxx : 0;
}

int lat_clock_calibrate_fit(struct lat_clock_cal *cal, unsigned window_ms)
{
	double x[CAL_MAX_WINDOWS + 1], y[CAL_MAX_WINDOWS + 1];
	double width[CAL_MAX_WINDOWS + 1], slopes[CAL_MAX_WINDOWS];
	bool keep[CAL_MAX_WINDOWS + 1];
	struct lat_clock_pair first, p;
	int windows, used, n_slopes = 0;
	double fit, lo = INFINITY, hi = -INFINITY;
	int64_t step_ns;
	int rc;

	if (window_ms == 0 || window_ms > CAL_MAX_MS)
		return -EINVAL;
	windows = (int)(window_ms / CAL_MIN_WINDOW_MS);
	if (windows > CAL_MAX_WINDOWS)
		windows = CAL_MAX_WINDOWS;
	if (windows < CAL_MIN_WINDOWS)
		windows = CAL_MIN_WINDOWS;
	step_ns = (int64_t)window_ms * 1000000 / windows;

	lat_clock_pair_read(&first, CAL_BRACKET_TRIES);
	x[0] = 0;
	y[0] = 0;
	width[0] = (double)first.width;
	for (int i = 1; i <= windows; i++) {
		sleep_ns(step_ns);
		lat_clock_pair_read(&p, CAL_BRACKET_TRIES);
		/* Relative to the first point: small numbers, exact doubles. */
		x[i] = (double)(p.raw_ns - first.raw_ns);
		y[i] = (double)(int64_t)(p.cycles - first.cycles);
		width[i] = (double)p.width;
	}
	for (int i = 1; i <= windows; i++)
		slopes[i - 1] = x[i] > x[i - 1] ?
			(y[i] - y[i - 1]) / (x[i] - x[i - 1]) : 0;
	reject_outliers(x, y, windows + 1, median(slopes, windows), width,
			keep);
	fit = least_squares_slope(x, y, keep, windows + 1, &used);
	if (!(fit > 0))
		return -LAT_EUNSUPP;
	rc = lat_clock_cal_from_ratio(cal, fit);
	if (rc)
		return -LAT_EUNSUPP;
	for (int i = 1; i <= windows; i++) {
		if (!keep[i] || !keep[i - 1])
			continue;
		n_slopes++;
		lo = slopes[i - 1] < lo ? slopes[i - 1] : lo;
		hi = slopes[i - 1] > hi ? slopes[i - 1] : hi;
	}
	cal->spread_ppm = n_slopes ? (hi - lo) / fit * 1e6 : 0;
	cal->windows = used - 1;
	cal->from_hardware = false;
	return 0;
}

#if defined(__aarch64__)
static double counter_hz(void)
{
	uint64_t hz;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
	return (double)hz;
}
#endif

int lat_clock_calibrate(struct lat_clock_cal *cal, unsigned window_ms)
{
	if (window_ms == 0 || window_ms > CAL_MAX_MS)
		return -EINVAL;
#if defined(__aarch64__)
	/*
	 * The generic timer's frequency is architectural and firmware sets
	 * cntfrq_el0 to it; fitting would only add bracket noise. A zero
	 * (broken firmware) falls back to measuring.
	 */
	if (counter_hz() > 0 &&
	    lat_clock_cal_from_ratio(cal, counter_hz() / 1e9) == 0) {
		cal->spread_ppm = 0;
		cal->windows = 0;
		cal->from_hardware = true;
		return 0;
	}
#endif
	return lat_clock_calibrate_fit(cal, window_ms);
}

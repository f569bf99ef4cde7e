/*
 * Checking the clock: repeated calibrations and their spread, and the
 * drift of the calibrated counter against CLOCK_MONOTONIC_RAW.
 */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "latlab/clock.h"
#include "latlab/stats.h"

int lat_clock_calibrate_repeat(struct lat_clock_repeat *r, int n,
			       unsigned window_ms)
{
	double ratios[LAT_CLOCK_MAX_REPEATS];
	struct lat_clock_info info;
	int rc;

	if (!r || n < 1 || n > LAT_CLOCK_MAX_REPEATS)
		return -EINVAL;
	r->n = n;
	for (int i = 0; i < n; i++) {
		rc = lat_clock_calibrate_fit(&r->cal[i], window_ms);
		if (rc)
			return rc;
		ratios[i] = r->cal[i].cycles_per_ns;
	}
	r->median_cycles_per_ns = lat_median_sort(ratios, (size_t)n);
	r->spread_ppm = (ratios[n - 1] - ratios[0]) /
			r->median_cycles_per_ns * 1e6;
	r->stable = r->spread_ppm <= LAT_CLOCK_STABLE_PPM;
	r->use = r->cal[0];
	lat_clock_info(&info);
	/* a frequency the hardware states beats any fit (aarch64) */
	return lat_clock_cal_from_ratio(&r->use, info.hw_hz > 0
					? info.hw_hz / 1e9
					: r->median_cycles_per_ns);
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - floor(s)) * 1e9) };

	/* a signal the caller catches ends the sleep early (Ctrl-C): the
	 * interval is then shorter, and measured, not assumed */
	int e; /* clock_nanosleep returns its error; errno is not set */

	while ((e = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) != 0 &&
	       e != EINTR)
		;
}

int lat_clock_drift(const struct lat_clock_cal *cal, double seconds,
		    struct lat_clock_drift *out)
{
	struct lat_clock_pair a, b;
	double raw, counter;

	if (!cal || !out || !(cal->cycles_per_ns > 0) ||
	    !(seconds >= 0.001 && seconds <= 3600))
		return -EINVAL;
	lat_clock_pair_read(&a, 64);
	sleep_s(seconds);
	lat_clock_pair_read(&b, 64);
	raw = (double)(b.raw_ns - a.raw_ns);
	counter = (double)(int64_t)(b.cycles - a.cycles) / cal->cycles_per_ns;
	out->seconds = raw / 1e9;
	out->ppm = (counter - raw) / raw * 1e6;
	out->uncertainty_ppm = ((double)a.width + (double)b.width) / 2 /
			       cal->cycles_per_ns / raw * 1e6;
	return 0;
}

/*
 * The whole check of the cycle clock that `latlab clock` shows, as data:
 * repeated calibrations, drift, the cost of each kind of read, and the
 * warnings they call for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "latlab/clock.h"

int lat_clock_report_calibrate(struct lat_clock_report *r, unsigned calib_ms)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->calib_ms = calib_ms;
	lat_clock_info(&r->info);
	r->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	r->rdtscp_works = lat_clock_rdtscp_works();
	if (!r->info.invariant)
		r->warnings |= LAT_CLOCK_WARN_NOT_INVARIANT;
	rc = lat_clock_calibrate_repeat(&r->cal, LAT_CLOCK_REPORT_CALS,
					calib_ms);
	if (!rc && !r->cal.stable)
		r->warnings |= LAT_CLOCK_WARN_UNSTABLE;
	return rc;
}

int lat_clock_report_measure(struct lat_clock_report *r, double drift_s,
			     uint64_t pairs, bool (*stop)(void *ctx),
			     void *ctx)
{
	bool stopped;
	int rc;

	r->drift_asked_s = drift_s;
	r->pairs = pairs;
	rc = lat_clock_drift(&r->cal.use, drift_s, &r->drift);
	if (rc)
		return rc;
	stopped = stop && stop(ctx);
	if (stopped)
		r->warnings |= LAT_CLOCK_WARN_DRIFT_SHORT;
	/* stopped: a short measure, not the full one */
	rc = lat_clock_read_costs(&r->cal.use, stopped ? 1000 : pairs,
				  r->costs);
	if (rc)
		return rc;
	for (int k = 0; k < LAT_CLOCK_READ_KINDS; k++)
		if (r->costs[k].backwards)
			r->warnings |= LAT_CLOCK_WARN_BACKWARDS;
	return 0;
}

const char *lat_clock_warning_text(const struct lat_clock_report *r,
				   enum lat_clock_warn w, char *buf,
				   size_t len)
{
	switch (w) {
	case LAT_CLOCK_WARN_NOT_INVARIANT:
		return "the cycle counter is NOT invariant here: its rate "
		       "changes with power states or frequency, so cycles are "
		       "not time; use clock_gettime for durations";
	case LAT_CLOCK_WARN_UNSTABLE:
		return "the three calibrations differ by more than 100 ppm: "
		       "the counter's rate is not steady here";
	case LAT_CLOCK_WARN_DRIFT_SHORT:
		snprintf(buf, len, "interrupted: the drift was measured over "
			 "%.3f s, not the %g s asked", r->drift.seconds,
			 r->drift_asked_s);
		return buf;
	case LAT_CLOCK_WARN_BACKWARDS:
		return "some read pairs went backwards (a migration between "
		       "CPUs whose counters differ); they are counted and "
		       "left out of the percentiles";
	}
	return "";
}

/*
 * lat_pace: schedule set-up. The hot path is inline in
 * include/latlab/pace.h; this file turns a rate into a 64.64 interval.
 */
#include <errno.h>
#include <math.h>

#include "latlab/pace.h"

const char *lat_pace_kind_name(enum lat_pace_kind kind)
{
	switch (kind) {
	case LAT_PACE_FIXED: return "fixed";
	case LAT_PACE_POISSON: return "poisson";
	case LAT_PACE_BURSTY: return "bursty";
	}
	return "unknown";
}

int lat_pace_init(struct lat_pace *p, enum lat_pace_kind kind,
		  double rate_per_s, uint32_t burst,
		  const struct lat_clock_cal *cal, lat_cycles_t start,
		  uint64_t seed)
{
	double interval, step, whole;

	if (kind != LAT_PACE_FIXED && kind != LAT_PACE_POISSON &&
	    kind != LAT_PACE_BURSTY)
		return -EINVAL;
	if (!(rate_per_s > 0) || !isfinite(rate_per_s) ||
	    !(cal->cycles_per_ns > 0))
		return -EINVAL;
	if (kind == LAT_PACE_BURSTY ? burst < 1 || burst > (1u << 31) :
				      burst > 1)
		return -EINVAL;
	if (kind != LAT_PACE_BURSTY)
		burst = 1;
	interval = 1e9 / rate_per_s * cal->cycles_per_ns;
	if (!(interval <= LAT_PACE_MAX_INTERVAL_CYCLES))
		return -EINVAL;
	/*
	 * The one rounding of the schedule is here: interval (and burst *
	 * interval) to a double, relative error 2^-53, i.e. the rate is off
	 * by 1e-16 and stays off by exactly that. Converting the double to
	 * 64.64 below is exact (its ulp is >= 2^-64 cycles for any step
	 * >= 2^-11), and every later step is an exact integer addition.
	 */
	step = interval * burst;
	if (!(step <= 0x1p62))
		return -EINVAL;
	whole = floor(step);
	p->kind = kind;
	p->start = start;
	p->seq = 0;
	p->off_int = 0;
	p->off_frac = 0;
	p->step_int = (uint64_t)whole;
	p->step_frac = (uint64_t)ldexp(step - whole, 64);
	p->burst = burst;
	p->burst_left = burst;
	p->interval_cycles = interval;
	p->rate_per_s = rate_per_s;
	p->rng = seed;
	return 0;
}

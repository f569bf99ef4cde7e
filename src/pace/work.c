/*
 * Calibrated busy work. See work.h for why the chain cannot be folded.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/work.h"
#include "latlab/stats.h"

/* Odd 64-bit constant with well-mixed bits (2^64 / golden ratio). */
#define WORK_MULT 0x9e3779b97f4a7c15ULL

__attribute__((noinline)) uint64_t lat_work_run(uint64_t steps, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t i = 0; i < steps; i++) {
		x = (x * WORK_MULT) ^ (x >> 29);
		/* opaque to the optimizer: x may be anything after this, so
		 * no step can be merged with the next or hoisted */
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

/*
 * Time @reps calls as a pipeline stage times them; return the median, and
 * in *@mid_mean the mean of the middle half. The counter ticks in steps
 * (~10 ns in some VMs), so a median sits on a step; the middle mean does
 * not, and the fit uses it. Cycles.
 */
static double timed_calls(uint64_t steps, int reps, double *mid_mean)
{
	enum { MAX_REPS = 512 };
	uint64_t d[MAX_REPS];
	volatile uint64_t sink = 0;
	double sum = 0;
	int n = 0;

	if (reps > MAX_REPS)
		reps = MAX_REPS;
	for (int i = 0; i < reps; i++) {
		lat_cycles_t a = lat_clock_start();

		sink = lat_work_run(steps, (uint64_t)i + sink);
		d[i] = lat_clock_end() - a;
	}
	qsort(d, (size_t)reps, sizeof(d[0]), lat_cmp_u64);
	for (int i = reps / 4; i < reps - reps / 4; i++, n++)
		sum += (double)d[i];
	if (mid_mean)
		*mid_mean = n ? sum / n : (double)d[reps / 2];
	return (double)d[reps / 2];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Timed calls at the target length: fewer for long work, at least 15. */
static int reps_at(double target_ns, int reps)
{
	double budget = 0.5e9 / (target_ns > 1 ? target_ns : 1);

	return budget >= reps ? reps : budget > 15 ? (int)budget : 15;
}

double lat_work_calibrate_cost_ns(double target_ns)
{
	/* the three fixed lengths are ~4 us at most; then two lengths at
	 * the target (the correction and the check) */
	return 3e6 + 2.0 * reps_at(target_ns, 401) * target_ns;
}

/*
 * timed_calls, polling @stop between calls; for long work the median of
 * the calls made. Returns -EINTR when stopped (then *@p50 is unset).
 */
static int timed_calls_until(uint64_t steps, int reps, double *p50,
			     double *mid_mean, bool (*stop)(void *ctx),
			     void *ctx)
{
	enum { MAX_REPS = 512 };
	double part[MAX_REPS], sum = 0;
	int n = 0, k = 0;

	if (!stop) {
		*p50 = timed_calls(steps, reps, mid_mean);
		return 0;
	}
	/* one call at a time, the stop polled between them (not inside
	 * the timed region): a long call is then the longest wait */
	while (n < reps && n < MAX_REPS) {
		part[n++] = timed_calls(steps, 1, NULL);
		if (stop(ctx))
			return -EINTR;
	}
	qsort(part, (size_t)n, sizeof(part[0]), cmp_double);
	for (int i = n / 4; i < n - n / 4; i++, k++)
		sum += part[i];
	*p50 = part[n / 2];
	if (mid_mean)
		*mid_mean = k ? sum / k : part[n / 2];
	return 0;
}

int lat_work_calibrate_until(struct lat_work *w, double target_ns,
			     const struct lat_clock_cal *cal,
			     bool (*stop)(void *ctx), void *ctx)
{
	enum { REPS = 401, SHORT = 200, LONG = 4000 };
	double cpn, base, at_short, at_long, slope, steps, got, p50;
	int reps = reps_at(target_ns, REPS);

	if (!w || !cal || !(target_ns >= 0 && target_ns <= 1e9) ||
	    !(cal->cycles_per_ns > 0))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->target_ns = target_ns;
	cpn = cal->cycles_per_ns;
	/* warm the code and the frequency governor before measuring */
	timed_calls(LONG, 64, NULL);
	timed_calls(0, REPS, &base);
	timed_calls(SHORT, REPS, &at_short);
	timed_calls(LONG, REPS, &at_long);
	slope = (at_long - at_short) / (LONG - SHORT);
	if (!(slope > 0))
		slope = 1; /* a clock that did not move: keep going sanely */
	w->overhead_ns = base / cpn;
	w->ns_per_step = slope / cpn;
	if (target_ns <= 0)
		return 0;
	/* the line through the two working points, then one correction
	 * measured at the chosen length: short work overlaps the stamps'
	 * fences, so the empty pair is not the line's intercept */
	steps = SHORT + (target_ns * cpn - at_short) / slope;
	if (steps < 0)
		steps = 0;
	if (stop && stop(ctx))
		return -EINTR;
	if (timed_calls_until((uint64_t)llround(steps), reps, &p50, &got,
			      stop, ctx))
		return -EINTR;
	steps += (target_ns * cpn - got) / slope;
	w->steps = steps > 0 ? (uint64_t)llround(steps) : 0;
	if (timed_calls_until(w->steps, reps, &p50, NULL, stop, ctx))
		return -EINTR;
	w->check_p50_ns = p50 / cpn;
	w->check_error = w->check_p50_ns / target_ns - 1;
	return 0;
}

int lat_work_calibrate(struct lat_work *w, double target_ns,
		       const struct lat_clock_cal *cal)
{
	return lat_work_calibrate_until(w, target_ns, cal, NULL, NULL);
}

enum lat_work_verdict lat_work_check(const struct lat_work *w)
{
	if (!(w->target_ns > 0) || fabs(w->check_error) <= LAT_WORK_TOLERANCE)
		return LAT_WORK_OK;
	return w->target_ns < w->overhead_ns ? LAT_WORK_BELOW_OVERHEAD
					     : LAT_WORK_MISSED;
}

enum lat_work_verdict lat_work_check_print(FILE *f, const struct lat_work *w)
{
	enum lat_work_verdict v = lat_work_check(w);
	char a[LAT_FMT_LEN], b[LAT_FMT_LEN], c[64];

	if (v == LAT_WORK_OK)
		return v;
	fprintf(f, "work calibrated to %s for %s asked (%+.0f%%): %s\n",
		lat_fmt_ns(a, sizeof(a), w->check_p50_ns),
		lat_fmt_ns(b, sizeof(b), w->target_ns), 100 * w->check_error,
		v == LAT_WORK_BELOW_OVERHEAD
			? (snprintf(c, sizeof(c), "below the stamp pair's own "
				    "%.0f ns", w->overhead_ns), c)
			: "the CPU was busy during calibration");
	return v;
}

const char *lat_work_verdict_name(enum lat_work_verdict v)
{
	switch (v) {
	case LAT_WORK_OK:
		return "ok";
	case LAT_WORK_BELOW_OVERHEAD:
		return "below_overhead";
	case LAT_WORK_MISSED:
		return "missed";
	}
	return "?";
}

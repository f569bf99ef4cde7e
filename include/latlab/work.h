/*
 * lat_work: calibrated busy work that the compiler cannot delete or fold.
 *
 * Why not "a loop of N multiply-adds on one accumulator": that is a linear
 * recurrence (x = a*x + b), which optimizers collapse into a closed form of
 * a couple of instructions, so a "100 ns" loop measures ~10 ns. Here every
 * step is x = (x * M) ^ (x >> 29): the shift-xor makes the map non-linear
 * over the integers, so no closed form exists, and an empty asm statement
 * that "modifies" x after every step forbids the compiler from reasoning
 * about x across steps at all. Each step depends on the previous one, so
 * the time per step is the chain latency (multiply + shift + xor), stable
 * and independent of how wide the core is.
 *
 * Invariants:
 *  - lat_work_run() never allocates or makes a syscall; its result depends
 *    on every step, and callers must use it (store it somewhere visible).
 *  - Calibration times the work between the same two stamps the pipeline
 *    stage uses (lat_clock_start before, lat_clock_end after), and fits
 *    steps = (target - overhead) / slope, so the delta the pipeline
 *    reports as "work" lands on the target, stamp overhead included.
 */
#ifndef LATLAB_WORK_H
#define LATLAB_WORK_H

#include <stdint.h>

#include "latlab/clock.h"

struct lat_work {
	double target_ns;     /* what was asked for */
	uint64_t steps;       /* chain steps per lat_work_run call */
	double ns_per_step;   /* fitted slope */
	double overhead_ns;   /* fitted intercept: the stamp pair, no work */
	double check_p50_ns;  /* median of a verification run at @steps */
	double check_error;   /* check_p50_ns / target_ns - 1 */
};

/* How far the startup check may miss the target before it is reported. */
#define LAT_WORK_TOLERANCE 0.2

/* What the startup check says about a calibration (lat_work_check). */
enum lat_work_verdict {
	LAT_WORK_OK,             /* no work asked, or within tolerance */
	LAT_WORK_BELOW_OVERHEAD, /* missed: the target is below the stamp
				  * pair's own cost (overhead_ns), so no
				  * number of steps can reach it */
	LAT_WORK_MISSED,         /* missed for another reason: the CPU was
				  * busy while calibrating */
};

/*
 * Judge @w: the check run (check_p50_ns) missed target_ns by more than
 * LAT_WORK_TOLERANCE, and why. Pure; any thread.
 */
enum lat_work_verdict lat_work_check(const struct lat_work *w);

/* "ok", "below_overhead", "missed": stable names for JSON. */
const char *lat_work_verdict_name(enum lat_work_verdict v);

/*
 * Run @steps steps of the chain from @seed and return the final value.
 * Not inline on purpose: one call, like a real stage's function call.
 * Any thread; no allocation, no syscall.
 */
uint64_t lat_work_run(uint64_t steps, uint64_t seed);

/*
 * Calibrate @w for @target_ns (0 .. 1e9; 0 means no work, steps = 0) on
 * the calling thread, using @cal to convert. Takes a few milliseconds
 * (median of a few hundred timed calls at three lengths). A target below
 * the stamp overhead gives steps = 0 and a check_p50_ns above the target:
 * callers should say so. Returns 0 or -EINVAL (bad target or NULL).
 */
int lat_work_calibrate(struct lat_work *w, double target_ns,
		       const struct lat_clock_cal *cal);

#endif

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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/*
 * When lat_work_check(@w) is not LAT_WORK_OK, one line on @f saying what
 * the calibration reached, for what target, and why it missed ("work
 * calibrated to 80ns for 50ns asked (+60%): below the stamp pair's own
 * 70 ns"); nothing when it is OK. Returns the verdict.
 */
enum lat_work_verdict lat_work_check_print(FILE *f, const struct lat_work *w);

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

/*
 * As lat_work_calibrate, polling @stop (may be NULL) between timed calls:
 * true ends the calibration with -EINTR. Long work (--work-ns 100ms) is
 * timed fewer times (at least 15, about 0.5 s per length), so the whole
 * calibration takes about lat_work_calibrate_cost_ns(@target_ns).
 */
int lat_work_calibrate_until(struct lat_work *w, double target_ns,
			     const struct lat_clock_cal *cal,
			     bool (*stop)(void *ctx), void *ctx);

/* Roughly how long calibrating @target_ns takes, in ns (for a progress
 * line before a long one). */
double lat_work_calibrate_cost_ns(double target_ns);

/* ---- work-time distributions -------------------------------------------
 *
 * A stage whose work varies from event to event (the cached query and the
 * unindexed one) makes the service time a random variable with a chosen
 * coefficient of variation c_s. The times are drawn once, before the run,
 * into a table of step counts (struct lat_work_table): the hot path reads
 * table[seq & mask] and runs that many chain steps, so it draws no random
 * number, calls no libm and allocates nothing. Every distribution keeps
 * the mean the stage was asked for (--work-ns), so utilization is set the
 * same way whatever the shape.
 */
enum lat_work_dist_kind {
	LAT_WORK_DET,       /* every event the same (zero, the default) */
	LAT_WORK_EXP,       /* exponential, cv 1 */
	LAT_WORK_LOGNORMAL, /* lognormal with a given cv */
	LAT_WORK_BIMODAL,   /* p slow events of slow_ns, the rest fast */
};

struct lat_work_dist {
	enum lat_work_dist_kind kind;
	double cv;          /* lognormal */
	double p_slow;      /* bimodal: fraction of slow events, (0, 1) */
	double slow_ns;     /* bimodal: their work time */
	char name[48];      /* "det", "exp", "lognormal:1.5", "bimodal:..." */
};

/*
 * Parse "det", "exp", "lognormal:CV" (0 < CV <= 10) or
 * "bimodal:P:SLOW" (0 < P < 1; SLOW a duration with a unit, up to 1 s).
 * CV, P and SLOW are read as latlab/parse.h reads every setting (plain
 * decimals; SLOW's units ns, us, ms, s, ...). Returns 0 or -EINVAL. A
 * zeroed struct is det.
 */
int lat_work_dist_parse(struct lat_work_dist *d, const char *spec);

/* "det", "exp", "lognormal:1.5", ...: @d's name as parsed, "det" for a
 * zeroed struct (which has none). */
const char *lat_work_dist_name(const struct lat_work_dist *d);

/*
 * Whether @d can have mean @mean_ns: bimodal needs SLOW above the mean and
 * P * SLOW below it (the fast events take (mean - P SLOW) / (1 - P)).
 * Returns 0, or -EINVAL with *@why (may be NULL) a static message.
 */
int lat_work_dist_check(const struct lat_work_dist *d, double mean_ns,
			const char **why);

/* The exact coefficient of variation of @d at mean @mean_ns. */
double lat_work_dist_cv(const struct lat_work_dist *d, double mean_ns);

#define LAT_WORK_TABLE_LEN (1u << 16)

/*
 * The pre-drawn step counts of one stage. The intended time of an entry
 * is target + (steps - w->steps) * ns_per_step: the calibrated det steps
 * land the measured work on the target, and every step more or fewer
 * moves it by the fitted slope. A draw below the stamp overhead cannot be
 * run (steps would be negative): it is raised to 0 steps and counted.
 */
struct lat_work_table {
	uint64_t *steps;        /* LAT_WORK_TABLE_LEN entries */
	double mean_ns;         /* mean of the intended times (= target
				 * unless draws were raised) */
	double cv;              /* cv of the intended times */
	uint64_t raised;        /* draws raised to 0 steps */
	size_t checked;         /* entries timed by the check */
	double check_mean_ns;   /* their intended mean + the median miss */
	double check_error;     /* median (measured - intended) / their
				 * intended mean: the systematic miss, not
				 * the preemptions a mean would add */
};

/*
 * Draw @d at mean w->target_ns from @seed (splitmix64: the same seed gives
 * the same table), convert to steps with calibration @w, then time the
 * first entries (about 50 ms worth, 256 to all of them) between the
 * pipeline's stamps and compare them with their intended times (median
 * miss, see check_error). Allocates 512 KiB, and 1 MiB while drawing. Returns 0, -EINVAL (bad @d for that mean, a target
 * of 0, NULL) or -ENOMEM. Call on the CPU the stage will run on.
 */
int lat_work_table_init(struct lat_work_table *t,
			const struct lat_work_dist *d,
			const struct lat_work *w, uint64_t seed,
			const struct lat_clock_cal *cal);

/* Free the table. Safe on a zeroed or destroyed table. */
void lat_work_table_destroy(struct lat_work_table *t);

/* Steps for event @i: one load, no branch. */
static inline uint64_t lat_work_table_steps(const struct lat_work_table *t,
					    uint64_t i)
{
	return t->steps[i & (LAT_WORK_TABLE_LEN - 1)];
}

#endif

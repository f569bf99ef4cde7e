/*
 * Internals shared by the lab's judge (lab_judge.c) and its comparisons
 * (lab_compare.c). Not a public header.
 */
#ifndef LATLAB_LAB_INT_H
#define LATLAB_LAB_INT_H

#include <stdbool.h>

#include "latlab/lab.h"
#include "latlab/stats.h"

/* An arm's baselines: a least-squares line through (run index, ln v). */
struct lab_trend {
	int n;
	double spread; /* max/min of the residuals (window_range) */
	double drift;  /* the line's change from first to last baseline */
};

/* A value a ratio can be taken of: finite and above 0. */
bool lab_usable(double v);

/* Row @r is a baseline of arm @a that ran to the end. */
bool lab_judged_baseline(const struct lat_lab_row *r, enum lat_lab_arm a);

/* Row @r is a run of experiment @e that ran to the end where it could
 * show (share-line: its writers' CPUs on two host cores). */
bool lab_exp_row(const struct lat_lab_row *r, enum lat_lab_exp e);

/* Trend and spread of arm @a's baselines over statistic @v (per row). */
void lab_arm_trend(const struct lat_lab_row *rows, int n, enum lat_lab_arm a,
		   const double *v, struct lab_trend *t);

/*
 * The baselines of row @i's arm just before and after it with a usable
 * @v; -1 when none.
 */
void lab_neighbours(const struct lat_lab_row *rows, int n, int i,
		    const double *v, int *before, int *after);

/* Set @c's tolerance and effect from its ratio, spread and drift. */
void lab_classify(struct lat_lab_cmp *c);

#endif

/*
 * What the chase sweep's report (mem_chase_report.c) and its last-level
 * cache analysis (mem_chase_llc.c) share: the curve names, what "within
 * one step" of a cache's size means, and the analysis's entry points.
 */
#ifndef LATLAB_MEM_CHASE_INT_H
#define LATLAB_MEM_CHASE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/json.h"
#include "latlab/mem.h"

enum {
	V_RANDOM = LAT_MEM_CHASE_RANDOM,
	V_HUGE = LAT_MEM_CHASE_HUGE,
	V_SEQ = LAT_MEM_CHASE_SEQ,
	V_PAGED = LAT_MEM_CHASE_PAGED,
	V_N = LAT_MEM_CHASE_VARIANTS,
};

/* "Within one step": sizes are rounded to whole lines, so a size one
 * step from a cache's can be 1.0003 steps away on paper. */
#define ONE_STEP 1.01

/* Each curve's JSON key: "random", "random_huge", "sequential",
 * "page_local". */
extern const char *const lat_mem_chase_key[V_N];

/* "match" or "early by 6 steps" for a plateau with an edge, in @buf. */
const char *lat_mem_chase_off_text(char *buf, size_t len,
				   const struct lat_mem_plateau *p);

/*
 * The last-level cache on every random curve (r->vpl found): whether a
 * curve shows it at its sysfs size, and when none does, the effective
 * capacity; fills r->llc_* and r->llc_note.
 */
void lat_mem_chase_llc_analyse(struct lat_mem_chase_sweep *r);

/*
 * After lat_mem_chase_llc_analyse, when no curve shows the last-level
 * cache at its sysfs size: the drift run (lat_mem_llc_drift_run) at the
 * size half-way to DRAM, its figures and what they say appended to
 * r->llc_note. Returns 0 (also when not run) or the run's error.
 */
int lat_mem_chase_llc_drift(struct lat_mem_chase_sweep *r, uint32_t *scratch,
			    const struct lat_clock_cal *cal,
			    bool (*stop)(void *ctx), void *ctx);

/* The "llc" member of the chase object open in @j. */
void lat_mem_chase_llc_json(struct lat_json *j,
			    const struct lat_mem_chase_sweep *r);

#endif

/*
 * lat_lab: turn the numbers of several pipeline runs into the lab's
 * verdicts. Each run is summarised as a row (e2e percentiles, mean of each
 * stage delta, rate, counters); the baseline runs give a reference and
 * their run-to-run spread; each experiment is then described against it
 * in one line ("tail disease: p99.9 x8.0, p50 x1.1; allocations +20000
 * (1.00/event); 93% of the mean e2e growth in work1").
 *
 * Invariants:
 *  - Every word of a verdict is derived from the rows given: a change
 *    counts only when it exceeds the baseline's own run-to-run spread (and
 *    at least LAT_LAB_MIN_RATIO), so noise is not called a disease.
 *  - A counter that is n/a in either row is never compared.
 *  - Pure functions of their inputs: no allocation, no I/O, thread-safe.
 */
#ifndef LATLAB_LAB_H
#define LATLAB_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAT_LAB_MAX_PARTS 32
#define LAT_LAB_NAME_LEN 32
/*
 * A ratio counts when it exceeds both LAT_LAB_MIN_RATIO and the baseline's
 * spread (max/min over its runs) times LAT_LAB_SPREAD_MARGIN.
 */
#define LAT_LAB_MIN_RATIO 1.25
#define LAT_LAB_SPREAD_MARGIN 1.1

enum lat_lab_metric {
	LAT_LAB_CTX_SWITCHES,
	LAT_LAB_MIGRATIONS,
	LAT_LAB_PAGE_FAULTS,     /* minor + major */
	LAT_LAB_ALLOCATIONS,
	LAT_LAB_RUN_DELAY,       /* ns */
	LAT_LAB_NMETRICS
};

struct lat_lab_row {
	char name[LAT_LAB_NAME_LEN];   /* "baseline 1", "alloc", ... */
	bool baseline;
	uint64_t events;               /* recorded samples */
	double p50, p99, p999, max;    /* e2e, ns */
	double e2e_mean;               /* ns */
	int n_parts;                   /* stage deltas: pace, q1+wake, ... */
	char part[LAT_LAB_MAX_PARTS][16];
	double part_mean[LAT_LAB_MAX_PARTS]; /* ns */
	double offered_rate, achieved_rate; /* events/s */
	double wall_s;
	uint64_t metric[LAT_LAB_NMETRICS];
	bool has_metric[LAT_LAB_NMETRICS];
	double ipc;                    /* < 0: n/a */
};

/* The reference the baseline runs make. */
struct lat_lab_base {
	int runs;
	double p50, p99, p999, max, e2e_mean; /* medians over the runs */
	double spread_p50, spread_p99, spread_p999, spread_max; /* max/min */
	double achieved_lo;                   /* slowest run's events/s */
	int n_parts;
	double part_mean[LAT_LAB_MAX_PARTS];  /* medians */
	uint64_t metric_lo[LAT_LAB_NMETRICS], metric_hi[LAT_LAB_NMETRICS];
	bool has_metric[LAT_LAB_NMETRICS];    /* in every baseline run */
};

/*
 * Build the reference from the rows with baseline set (rows may hold
 * experiments too; they are ignored). Returns the number of baseline
 * rows used; 0 means no reference (@b is zeroed).
 */
int lat_lab_base_init(struct lat_lab_base *b, const struct lat_lab_row *rows,
		      int n);

/*
 * The stage delta where @r's mean e2e growth over @b concentrated: its
 * index into r->part, with *@share (may be NULL) its fraction of the e2e
 * mean growth. Returns -1 when the e2e mean did not grow beyond the
 * baseline's spread or the parts differ from the baseline's.
 */
int lat_lab_where(const struct lat_lab_base *b, const struct lat_lab_row *r,
		  double *share);

/*
 * Write @r's fingerprint against @b into @buf (always NUL-terminated,
 * truncated to @len). Returns the length it wanted, as snprintf.
 */
int lat_lab_fingerprint(const struct lat_lab_base *b,
			const struct lat_lab_row *r, char *buf, size_t len);

/* Short metric name: "ctx switches", "page faults", ... */
const char *lat_lab_metric_name(enum lat_lab_metric m);

#endif

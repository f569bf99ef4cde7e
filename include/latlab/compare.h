/*
 * lat_compare: is run B's latency really different from run A's, or is the
 * difference inside what A and B vary by on their own?
 *
 * A latency log (.hlog) is a series of intervals (1 s each for latlab's
 * pipeline). Each interval has its own p50, p99, ...; how much they move
 * from one interval to the next is the run's own noise at that
 * percentile. lat_compare puts two runs' merged percentiles side by side
 * with their ratio and a verdict:
 *
 *   band       the middle of a file's per-interval values at one
 *              percentile: sorted, with a tenth of them (rounded down)
 *              dropped at each end, so with fewer than 10 intervals it is
 *              their min..max and in a long log a few odd intervals do
 *              not widen it.
 *   noise      the two bands overlap: the change is inside the spread.
 *   higher     every value of B's band is above A's band.
 *   lower      every value of B's band is below A's band.
 *   no spread  a side has fewer than 2 non-empty intervals (an .hgrm
 *              file, a short run): only the ratio is known.
 *
 * The data come from lat_hlog_load() with interval_pcts set; the
 * percentiles are lat_hlog_pcts[] (p50 .. p99.99 and max).
 *
 * Nothing here prints or allocates beyond a scratch copy per band.
 */
#ifndef LATLAB_COMPARE_H
#define LATLAB_COMPARE_H

#include <stddef.h>

#include "latlab/hist_io.h"

enum lat_compare_verdict {
	LAT_COMPARE_BASELINE,   /* the file the others are compared with */
	LAT_COMPARE_NOISE,
	LAT_COMPARE_HIGHER,
	LAT_COMPARE_LOWER,
	LAT_COMPARE_NO_SPREAD,
};

/* Fewest non-empty intervals that give a band. */
#define LAT_COMPARE_MIN_INTERVALS 2

/* One file's tag at one percentile, against the baseline's. */
struct lat_compare_cell {
	double value_ns;        /* merged value at the percentile */
	double lo_ns, hi_ns;    /* its band; NAN without a spread */
	double ratio;           /* value / the baseline's (NAN if that is 0) */
	enum lat_compare_verdict verdict;
};

/*
 * The band of @t at lat_hlog_pcts[@k], in ns (@ns_per_value: the file's
 * unit, > 0). Returns 0, -ENODATA (fewer than LAT_COMPARE_MIN_INTERVALS
 * kept intervals: *lo and *hi are NAN), -EINVAL, -ENOMEM.
 */
int lat_compare_band(const struct lat_hlog_tag *t, int k, double ns_per_value,
		     double *lo, double *hi);

/*
 * Compare @t (unit @ns) with the baseline @base (unit @base_ns) at
 * lat_hlog_pcts[@k]. @t == @base gives the baseline's own cell. Returns 0,
 * -EINVAL (k out of range, an empty histogram), -ENOMEM.
 */
int lat_compare_cell(const struct lat_hlog_tag *base, double base_ns,
		     const struct lat_hlog_tag *t, double ns, int k,
		     struct lat_compare_cell *out);

/* "baseline", "noise", "higher", "lower", "no spread". */
const char *lat_compare_verdict_name(enum lat_compare_verdict v);

/*
 * The tags that lat_compare works on in @d: its tags, or for an .hgrm
 * file (no tags) its total, as one untagged entry. *n gets the count.
 */
const struct lat_hlog_tag *lat_compare_tags(const struct lat_hlog_data *d,
					    int *n);

/*
 * Check that the @n files hold the same tags (in any order), so that
 * every tag has a counterpart. Returns 0, or -LAT_ECOMPAT with a
 * one-line reason naming the first file and the tag that differ in
 * @why (@names: the files' names for it).
 */
int lat_compare_same_tags(const struct lat_hlog_data *const *d,
			  const char *const *names, size_t n, char *why,
			  size_t why_len);

/* The tag named @name in @d (as lat_compare_tags lists them), or NULL. */
const struct lat_hlog_tag *lat_compare_find_tag(const struct lat_hlog_data *d,
						const char *name);

#endif

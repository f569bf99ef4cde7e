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
 * lat_compare_load() reads a file once into both: the merged histograms
 * (lat_hlog_load's) and the per-interval values.
 * The percentiles are the summary row's and max (lat_compare_level).
 *
 * Nothing prints except the printers below, to the FILE * they are
 * given. Not for a hot path: reading and bands allocate.
 */
#ifndef LATLAB_COMPARE_H
#define LATLAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/*
 * The percentiles compared: the summary row's (lat_hist_summary_levels,
 * p50 .. p99.99), then max: k = LAT_HIST_SUMMARY_N.
 */
#define LAT_COMPARE_NPCTS (LAT_HIST_SUMMARY_N + 1)

/* Level of percentile @k (100 for max) and its name ("p99.9", "max"). */
double lat_compare_level(int k);
const char *lat_compare_level_name(int k);

/* Each non-empty interval of one tag at every level, in file units. */
struct lat_compare_spread {
	char tag[64];             /* "" = untagged */
	int64_t *v;               /* v[i * LAT_COMPARE_NPCTS + k] */
	int64_t n;                /* intervals kept */
};

/* Every tag's spread in one .hlog. Large: keep it off small stacks. */
struct lat_compare_spreads {
	struct lat_compare_spread tags[LAT_HLOG_MAX_TAGS];
	int ntags;
	char why[512];            /* on failure: one line naming the file */
};

/*
 * Load @path as lat_hlog_load(@path, @tag, @scale, @d) does and, in the
 * same pass, keep each selected interval's values at every level, per tag
 * (an .hgrm keeps none: its spread is unknown). One open, one read: a
 * FIFO or a pipe works. Returns 0 or lat_hlog_load's codes (also -ENOMEM
 * for the spreads), with @d->why and @s->why set. Release both with
 * lat_hlog_data_free and lat_compare_spreads_free (also after a failure).
 */
int lat_compare_load(const char *path, const char *tag, double scale,
		     struct lat_hlog_data *d, struct lat_compare_spreads *s);

/*
 * The spreads alone, in a pass of its own over @path (an .hlog; a FIFO
 * has no second pass: load it with lat_compare_load): each interval's
 * values at every level, per tag (@tag: NULL for every tag, else only
 * that one). Returns 0, or a negative code with @s->why set: -errno (open),
 * the reader's codes (with the line), -LAT_EFORMAT (more than
 * LAT_HLOG_MAX_TAGS tags), -ENOMEM. Release with
 * lat_compare_spreads_free (also after a failure).
 */
int lat_compare_read_spreads(const char *path, const char *tag,
			     struct lat_compare_spreads *s);
void lat_compare_spreads_free(struct lat_compare_spreads *s);

/* The spread of @tag in @s, or NULL. */
const struct lat_compare_spread *
lat_compare_find_spread(const struct lat_compare_spreads *s, const char *tag);

/* One file's tag as compared: merged histogram, unit, spread. */
struct lat_compare_side {
	const struct lat_hist *hist;            /* merged intervals */
	double ns_per_value;                    /* > 0 */
	const struct lat_compare_spread *spread; /* NULL: none known */
};

/* One file's tag at one percentile, against the baseline's. */
struct lat_compare_cell {
	double value_ns;        /* merged value at the percentile */
	double lo_ns, hi_ns;    /* its band; NAN without a spread */
	double ratio;           /* value / the baseline's (NAN if that is 0) */
	enum lat_compare_verdict verdict;
};

/*
 * The band of @s at lat_compare_level(@k), in ns. Returns 0, -ENODATA
 * (no spread, or fewer than LAT_COMPARE_MIN_INTERVALS intervals: *lo and
 * *hi are NAN), -EINVAL, -ENOMEM.
 */
int lat_compare_band(const struct lat_compare_side *s, int k, double *lo,
		     double *hi);

/*
 * Compare @t with the baseline @base at lat_compare_level(@k). @t == @base
 * gives the baseline's own cell. Returns 0, -EINVAL (k out of range, an
 * empty histogram), -ENOMEM.
 */
int lat_compare_cell(const struct lat_compare_side *base,
		     const struct lat_compare_side *t, int k,
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

/* ---- several files against the first (`latlab report --compare`) ---- */

/* Files one comparison or one chart may hold. */
#define LAT_COMPARE_MAX_FILES 16

/*
 * One file of a comparison or a report: lat_compare_files_load fills it,
 * or zero it, load it with lat_compare_load (data and spreads in one
 * pass), then set path and ns_per_value.
 */
struct lat_compare_file {
	const char *path;
	const struct lat_hlog_data *data;   /* lat_compare_load's */
	double ns_per_value;                /* lat_hlog_ns_per_value */
	struct lat_compare_spreads spreads; /* lat_compare_load's; none
					     * for an .hgrm */
	struct lat_hlog_data *loaded;       /* = data when
					     * lat_compare_files_load made it:
					     * freed by the release */
};

/*
 * Load the @n (1..LAT_COMPARE_MAX_FILES) files at @paths into @f, in
 * order, each read once: with lat_compare_load when @spreads (for a
 * comparison), else lat_hlog_load; @tag and @ns_per_value as there; path
 * and ns_per_value set. Returns 0 or the first file's failure with one
 * line naming it in @why: the load's codes, -ENOTSUP when @tag is given
 * and the file is an .hgrm (it has no tags), -ENOMEM, -EINVAL (bad @n).
 * Release with lat_compare_files_release, also after a failure.
 */
int lat_compare_files_load(struct lat_compare_file *f, int n,
			   const char *const *paths, const char *tag,
			   double ns_per_value, bool spreads, char *why,
			   size_t len);

/*
 * Check that the @n (1..LAT_COMPARE_MAX_FILES) files hold the same tags
 * (lat_compare_same_tags). Returns 0, -LAT_ECOMPAT with one line in
 * @why, or -EINVAL.
 */
int lat_compare_files_check(const struct lat_compare_file *f, int n,
			    char *why, size_t len);

/* Free every file's spreads, and the data lat_compare_files_load made. */
void lat_compare_files_release(struct lat_compare_file *f, int n);

/*
 * For people on @out: the files and their non-empty intervals, what a
 * band is, then per tag and file a table of every percentile beside the
 * first file's, with both bands, the ratio and the verdict. Returns 0 or
 * lat_compare_cell's error (the table stops there).
 */
int lat_compare_print(FILE *out, const struct lat_compare_file *f, int n);

/*
 * The same as one JSON object into @j (the caller owns lat_json_init /
 * lat_json_finish): files[] {file, intervals}, tags[] {tag,
 * percentiles[] {name, level, files[] {value_ns, band_lo_ns, band_hi_ns,
 * ratio, verdict}}}. Returns 0 or lat_compare_cell's error.
 */
struct lat_json;
int lat_compare_json(struct lat_json *j, const struct lat_compare_file *f,
		     int n);

/*
 * What `latlab report` writes on stdout for @n loaded files: with
 * @compare, lat_compare_print (or, with @json, lat_compare_json as one
 * document); else each file's lat_hlog_print, or with @json one document:
 * lat_hlog_json's object for one file, {"files": [...]} of them for
 * several. Returns 0, lat_compare_cell's error, or -EIO / -EINVAL when
 * the output failed.
 */
int lat_compare_files_write(FILE *out, const struct lat_compare_file *f,
			    int n, bool compare, bool json);

/* How many lines lat_compare_svg draws for @f: every tag of every file. */
int lat_compare_svg_lines(const struct lat_compare_file *f, int n);

/*
 * Every tag of every file as one percentile spectrum (lat_svg_percentiles)
 * on @out: one line per file and tag, colour by tag when a file has
 * several, dash pattern by file; @linear: a linear latency axis. Returns
 * 0, -E2BIG (more than LAT_SVG_MAX_CURVES lines) or the writer's error.
 */
int lat_compare_svg(FILE *out, const struct lat_compare_file *f, int n,
		    bool linear);

#endif

/*
 * lat_compare: merged percentiles side by side, judged against each
 * file's own interval-to-interval spread (see the header for the rule).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/compare.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}


double lat_compare_level(int k)
{
	return k < LAT_HIST_SUMMARY_N ? lat_hist_summary_levels[k] : 100;
}

const char *lat_compare_level_name(int k)
{
	return k < LAT_HIST_SUMMARY_N ? lat_hist_summary_names[k] : "max";
}

int lat_compare_band(const struct lat_compare_side *s, int k, double *lo,
		     double *hi)
{
	const struct lat_compare_spread *sp = s->spread;
	int64_t *col;

	*lo = *hi = NAN;
	if (k < 0 || k >= LAT_COMPARE_NPCTS || !(s->ns_per_value > 0))
		return -EINVAL;
	if (!sp || sp->n < LAT_COMPARE_MIN_INTERVALS)
		return -ENODATA;
	col = malloc((size_t)sp->n * sizeof(*col));
	if (!col)
		return -ENOMEM;
	for (int64_t i = 0; i < sp->n; i++)
		col[i] = sp->v[i * LAT_COMPARE_NPCTS + k];
	qsort(col, (size_t)sp->n, sizeof(*col), cmp_i64);
	/* a tenth off each end, rounded down: all of fewer than 10 */
	*lo = (double)col[sp->n / 10] * s->ns_per_value;
	*hi = (double)col[sp->n - 1 - sp->n / 10] * s->ns_per_value;
	free(col);
	return 0;
}

static double value_at(const struct lat_compare_side *s, int k)
{
	return (double)lat_hist_value_at_percentile(s->hist,
						    lat_compare_level(k)) *
	       s->ns_per_value;
}

int lat_compare_cell(const struct lat_compare_side *base,
		     const struct lat_compare_side *t, int k,
		     struct lat_compare_cell *out)
{
	double blo, bhi, base_v;
	int rb, rt;

	memset(out, 0, sizeof(*out));
	if (k < 0 || k >= LAT_COMPARE_NPCTS || !base->hist || !t->hist ||
	    !base->hist->total_count || !t->hist->total_count ||
	    !(base->ns_per_value > 0) || !(t->ns_per_value > 0))
		return -EINVAL;
	base_v = value_at(base, k);
	out->value_ns = value_at(t, k);
	out->ratio = base_v > 0 ? out->value_ns / base_v : NAN;
	rt = lat_compare_band(t, k, &out->lo_ns, &out->hi_ns);
	if (rt && rt != -ENODATA)
		return rt;
	if (t == base) {
		out->verdict = LAT_COMPARE_BASELINE;
		return 0;
	}
	rb = lat_compare_band(base, k, &blo, &bhi);
	if (rb && rb != -ENODATA)
		return rb;
	if (rb || rt)
		out->verdict = LAT_COMPARE_NO_SPREAD;
	else if (out->lo_ns > bhi)
		out->verdict = LAT_COMPARE_HIGHER;
	else if (out->hi_ns < blo)
		out->verdict = LAT_COMPARE_LOWER;
	else
		out->verdict = LAT_COMPARE_NOISE;
	return 0;
}

const char *lat_compare_verdict_name(enum lat_compare_verdict v)
{
	switch (v) {
	case LAT_COMPARE_BASELINE: return "baseline";
	case LAT_COMPARE_NOISE: return "noise";
	case LAT_COMPARE_HIGHER: return "higher";
	case LAT_COMPARE_LOWER: return "lower";
	case LAT_COMPARE_NO_SPREAD: return "no spread";
	}
	return "?";
}

const struct lat_hlog_tag *lat_compare_tags(const struct lat_hlog_data *d,
					    int *n)
{
	*n = d->is_hgrm ? 1 : d->ntags;
	return d->is_hgrm ? &d->total : d->tags;
}

const struct lat_hlog_tag *lat_compare_find_tag(const struct lat_hlog_data *d,
						const char *name)
{
	int n;
	const struct lat_hlog_tag *t = lat_compare_tags(d, &n);

	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* The first tag of @a that @b lacks, or NULL. */
static const char *missing_tag(const struct lat_hlog_data *a,
			       const struct lat_hlog_data *b)
{
	int n;
	const struct lat_hlog_tag *t = lat_compare_tags(a, &n);

	for (int i = 0; i < n; i++)
		if (!lat_compare_find_tag(b, t[i].name))
			return t[i].name;
	return NULL;
}

int lat_compare_same_tags(const struct lat_hlog_data *const *d,
			  const char *const *names, size_t n, char *why,
			  size_t why_len)
{
	for (size_t i = 1; i < n; i++) {
		const char *tag;
		size_t has = 0, lacks = i;

		tag = missing_tag(d[0], d[i]);
		if (!tag) {
			tag = missing_tag(d[i], d[0]);
			has = i;
			lacks = 0;
		}
		if (tag) {
			snprintf(why, why_len, "'%s' and '%s' hold different "
				 "tags: '%s' has %s%s%s, '%s' has not",
				 names[0], names[i], names[has],
				 *tag ? "'" : "", *tag ? tag : "untagged "
				 "intervals", *tag ? "'" : "", names[lacks]);
			return -LAT_ECOMPAT;
		}
	}
	return 0;
}

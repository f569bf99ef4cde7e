/*
 * The summary row every latlab report prints (count, min, p50 .. p99.99,
 * max, mean, stddev), and the growing merge that builds the histograms it
 * summarises.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "latlab/hist_io.h"

const double lat_hist_summary_levels[LAT_HIST_SUMMARY_N] = {
	50, 90, 99, 99.9, 99.99,
};
const char *const lat_hist_summary_names[LAT_HIST_SUMMARY_N] = {
	"p50", "p90", "p99", "p99.9", "p99.99",
};
const char *const lat_hist_summary_keys[LAT_HIST_SUMMARY_N] = {
	"p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns",
};

void lat_hist_summarize(const struct lat_hist *h, double scale,
			struct lat_hist_summary *s)
{
	s->count = h->total_count;
	s->min = (double)lat_hist_min(h) * scale;
	s->max = (double)lat_hist_max(h) * scale;
	s->mean = lat_hist_mean(h) * scale;
	s->stddev = lat_hist_stddev(h) * scale;
	for (int i = 0; i < LAT_HIST_SUMMARY_N; i++)
		s->pct[i] = (double)lat_hist_value_at_percentile(
			h, lat_hist_summary_levels[i]) * scale;
}

void lat_hist_summary_write_json(struct lat_json *j,
				 const struct lat_hist_summary *s)
{
	/* lat_json_double writes NaN as null */
	double none = s->count ? 0 : NAN;

	lat_json_int(j, "count", s->count);
	lat_json_double(j, "min_ns", s->min + none);
	for (int i = 0; i < LAT_HIST_SUMMARY_N; i++)
		lat_json_double(j, lat_hist_summary_keys[i], s->pct[i] + none);
	lat_json_double(j, "max_ns", s->max + none);
	lat_json_double(j, "mean_ns", s->mean + none);
	lat_json_double(j, "stddev_ns", s->stddev + none);
}

/* An empty histogram with @like's precision, up to @highest. */
static int new_like(const struct lat_hist *like, int64_t highest,
		    struct lat_hist **out)
{
	struct lat_hist *h = calloc(1, sizeof(*h));
	int rc;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	rc = lat_hist_init_any(h, like->lowest_discernible, highest,
			       like->sig_figs);
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

static bool same_layout(const struct lat_hist *a, const struct lat_hist *b)
{
	return a->sig_figs == b->sig_figs &&
	       a->unit_magnitude == b->unit_magnitude;
}

int lat_hist_merge_grow(struct lat_hist **acc, const struct lat_hist *src,
			int64_t *refused, bool *mixed)
{
	int64_t need = src->highest_trackable;
	struct lat_hist *h = *acc, *grown;
	int rc;

	if (lat_hist_max(src) > need)
		need = lat_hist_max(src);
	/* an empty accumulator's layout means nothing: take the data's */
	if (h && !h->total_count && !same_layout(h, src)) {
		rc = new_like(src, need, &grown);
		if (rc)
			return rc;
		lat_hist_free(h);
		*acc = h = grown;
	} else if (!h) {
		rc = new_like(src, need, &h);
		if (rc)
			return rc;
		*acc = h;
	} else if (need > h->highest_trackable) {
		rc = new_like(h, need, &grown);
		if (rc)
			return rc;
		*refused += lat_hist_add(grown, h);
		lat_hist_free(h);
		*acc = h = grown;
	}
	if (mixed && src->total_count && !same_layout(h, src))
		*mixed = true;
	*refused += lat_hist_add(h, src);
	return 0;
}

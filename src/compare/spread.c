/*
 * The per-interval percentiles of an .hlog, per tag: lat_compare_load
 * keeps them in the same pass as lat_hlog_load_each merges the file (the
 * merge forgets how the intervals differed, and that difference is the
 * noise a comparison must be judged against); lat_compare_read_spreads
 * is that pass alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/compare.h"

static struct lat_compare_spread *find_or_add(struct lat_compare_spreads *s,
					      const char *tag)
{
	struct lat_compare_spread *t;

	for (int i = 0; i < s->ntags; i++)
		if (!strcmp(s->tags[i].tag, tag))
			return &s->tags[i];
	if (s->ntags == LAT_HLOG_MAX_TAGS)
		return NULL;
	t = &s->tags[s->ntags++];
	snprintf(t->tag, sizeof(t->tag), "%s", tag);
	return t;
}

/* Keep @h's values at every level (an empty interval has none). */
static int keep(struct lat_compare_spread *t, const struct lat_hist *h)
{
	int64_t *row;

	if (!h->total_count)
		return 0;
	/* grow by doubling: n a power of two means the array is full */
	if (!(t->n & (t->n - 1))) {
		size_t cap = t->n ? (size_t)t->n * 2 : 1;
		int64_t *grown = realloc(t->v, cap * LAT_COMPARE_NPCTS *
					 sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		t->v = grown;
	}
	row = t->v + t->n++ * LAT_COMPARE_NPCTS;
	for (int k = 0; k < LAT_COMPARE_NPCTS; k++)
		row[k] = lat_hist_value_at_percentile(h, lat_compare_level(k));
	return 0;
}

/* One interval: kept under its tag when @tag (NULL: any) selects it. */
static int keep_interval(struct lat_compare_spreads *s, const char *tag,
			 const struct lat_hlog_interval *iv)
{
	struct lat_compare_spread *t;

	if (tag && strcmp(tag, iv->tag))
		return 0;
	t = find_or_add(s, iv->tag);
	return t ? keep(t, iv->hist) : -LAT_EFORMAT;
}

static int keep_each(void *ctx, const struct lat_hlog_interval *iv)
{
	/* lat_hlog_load_each passes only the intervals @tag selects */
	return keep_interval(ctx, NULL, iv);
}

int lat_compare_load(const char *path, const char *tag, double scale,
		     struct lat_hlog_data *d, struct lat_compare_spreads *s)
{
	int rc;

	memset(s, 0, sizeof(*s));
	rc = lat_hlog_load_each(path, tag, scale, d, keep_each, s);
	if (rc)
		snprintf(s->why, sizeof(s->why), "%s", d->why);
	return rc;
}

int lat_compare_read_spreads(const char *path, const char *tag,
			     struct lat_compare_spreads *s)
{
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = lat_hlog_reader_open(path, &r);
	if (rc) {
		snprintf(s->why, sizeof(s->why), "cannot open '%s': %s", path,
			 lat_strerror(rc));
		return rc;
	}
	while ((rc = lat_hlog_reader_next(r, &iv)) == 1) {
		rc = keep_interval(s, tag, &iv);
		lat_hist_free(iv.hist);
		if (rc < 0)
			break;
	}
	if (rc < 0)
		snprintf(s->why, sizeof(s->why), "'%s' line %lld: %s", path,
			 (long long)lat_hlog_reader_line(r),
			 rc == -LAT_EFORMAT && s->ntags == LAT_HLOG_MAX_TAGS ?
			 "too many tags" : lat_strerror(rc));
	lat_hlog_reader_close(r);
	return rc < 0 ? rc : 0;
}

void lat_compare_spreads_free(struct lat_compare_spreads *s)
{
	for (int i = 0; i < s->ntags; i++)
		free(s->tags[i].v);
	memset(s, 0, sizeof(*s));
}

const struct lat_compare_spread *
lat_compare_find_spread(const struct lat_compare_spreads *s, const char *tag)
{
	for (int i = 0; i < s->ntags; i++)
		if (!strcmp(s->tags[i].tag, tag))
			return &s->tags[i];
	return NULL;
}

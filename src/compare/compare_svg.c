/*
 * Every file's percentile spectrum in one picture (`latlab report
 * --svg`). Colour tells the tags apart, the dash pattern the files, so
 * two runs of a five-tag pipeline log stay readable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "latlab/compare.h"
#include "latlab/svg.h"

static const char *const dashes[] = { NULL, "8 4", "2 3", "12 3 2 3" };
#define NDASHES (sizeof(dashes) / sizeof(dashes[0]))

/* Colour by the tag's position among the tags seen so far. */
static const char *tag_color(const char *names[], size_t *n, const char *tag)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], tag))
			return lat_svg_palette(i);
	if (*n < LAT_SVG_MAX_CURVES)
		names[(*n)++] = tag;
	return lat_svg_palette(i);
}

/* The line's label: the tag for one file, the file for one tag, else both
 * (a long one is cut: it is a legend, not data). */
static int label(char *buf, size_t len, const struct lat_compare_file *f,
		  int n, bool many_tags, const char *tag)
{
	char base[4096], tb[LAT_HLOG_LABEL_LEN];
	const char *tl = lat_hlog_tag_label(tag, tb, sizeof(tb));

	snprintf(base, sizeof(base), "%s", f->path);
	if (n == 1)
		return snprintf(buf, len, "%s", tl);
	if (!many_tags)
		return snprintf(buf, len, "%s", basename(base));
	return snprintf(buf, len, "%s: %s", basename(base), tl);
}

int lat_compare_svg_lines(const struct lat_compare_file *f, int n)
{
	int lines = 0;

	for (int i = 0; i < n; i++) {
		int nt;

		lat_compare_tags(f[i].data, &nt);
		lines += nt;
	}
	return lines;
}

int lat_compare_svg(FILE *out, const struct lat_compare_file *f, int n,
		    bool linear)
{
	char labels[LAT_SVG_MAX_CURVES][2 * LAT_HLOG_LABEL_LEN];
	struct lat_svg_curve c[LAT_SVG_MAX_CURVES];
	const char *seen[LAT_SVG_MAX_CURVES];
	size_t nc = 0, nseen = 0;
	bool many_tags = false;
	char title[256];

	for (int i = 0; i < n; i++) {
		int nt;

		lat_compare_tags(f[i].data, &nt);
		many_tags |= nt > 1;
	}
	if (lat_compare_svg_lines(f, n) > LAT_SVG_MAX_CURVES)
		return -E2BIG;
	for (int i = 0; i < n; i++) {
		int nt;
		const struct lat_hlog_tag *t = lat_compare_tags(f[i].data, &nt);

		for (int k = 0; k < nt; k++) {
			(void)label(labels[nc], sizeof(labels[nc]), &f[i], n,
				    many_tags, t[k].name);
			c[nc] = (struct lat_svg_curve){
				.label = labels[nc], .hist = t[k].hist,
				.ns_per_value = f[i].ns_per_value,
				.dash = dashes[i % NDASHES],
				.color = many_tags ? tag_color(seen, &nseen,
							       t[k].name) :
					 NULL,
			};
			nc++;
		}
	}
	if (n == 1)
		snprintf(title, sizeof(title), "latency by percentile: %s",
			 f[0].path);
	else
		snprintf(title, sizeof(title), "latency by percentile: %d "
			 "files", n);
	return lat_svg_percentiles(out, &(struct lat_svg_spectrum_opts){
					   .title = title, .linear = linear },
				   c, nc);
}

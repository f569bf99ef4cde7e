/*
 * latlab report --svg: every file's percentile spectrum in one picture.
 * Colour tells the tags apart, the dash pattern the files, so two runs of
 * a five-tag pipeline log stay readable.
 */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latlab/compare.h"
#include "latlab/svg.h"
#include "out_file.h"
#include "report.h"

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

void report_svg(const struct report_opts *o, struct lat_hlog_data *const *d)
{
	static char labels[LAT_SVG_MAX_CURVES][160];
	struct lat_svg_curve c[LAT_SVG_MAX_CURVES];
	const char *seen[LAT_SVG_MAX_CURVES];
	size_t n = 0, nseen = 0;
	bool many_tags = false;
	char title[256];
	FILE *f;

	for (int i = 0; i < o->npaths; i++) {
		int nt;

		lat_compare_tags(d[i], &nt);
		many_tags |= nt > 1;
	}
	for (int i = 0; i < o->npaths; i++) {
		int nt;
		const struct lat_hlog_tag *t = lat_compare_tags(d[i], &nt);
		char base[4096];

		snprintf(base, sizeof(base), "%s", o->paths[i]);
		for (int k = 0; k < nt; k++) {
			if (n == LAT_SVG_MAX_CURVES)
				cli_usage_error("report", "--svg draws at "
						    "most %d lines; pick one "
						    "with --tag",
						    LAT_SVG_MAX_CURVES);
			if (o->npaths == 1)
				snprintf(labels[n], sizeof(labels[n]), "%s",
					 report_tag_label(t[k].name));
			else if (!many_tags)
				snprintf(labels[n], sizeof(labels[n]), "%s",
					 basename(base));
			else
				snprintf(labels[n], sizeof(labels[n]), "%s: %s",
					 basename(base),
					 report_tag_label(t[k].name));
			c[n] = (struct lat_svg_curve){
				.label = labels[n], .hist = t[k].hist,
				.ns_per_value = report_ns_per_value(o, d[i]),
				.dash = dashes[i % NDASHES],
				.color = many_tags ? tag_color(seen, &nseen,
							       t[k].name) :
					 NULL,
			};
			n++;
		}
	}
	if (o->npaths == 1)
		snprintf(title, sizeof(title), "latency by percentile: %s",
			 o->path);
	else
		snprintf(title, sizeof(title), "latency by percentile: %d "
			 "files", o->npaths);
	f = cli_out_open("report", o->svg_out);
	cli_out_close("report", o->svg_out, f, lat_svg_percentiles(f,
		      &(struct lat_svg_spectrum_opts){ .title = title,
						       .linear = o->linear },
		      c, n));
}

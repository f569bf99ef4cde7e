/*
 * Several files compared with the first, as `latlab report --compare`
 * shows them: each file's percentiles beside the
 * baseline's with their bands, ratio and verdict, as a table for people
 * or one JSON object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/compare.h"
#include "latlab/fmt.h"
#include "latlab/json.h"

int lat_compare_files_check(const struct lat_compare_file *f, int n,
			    char *why, size_t len)
{
	const struct lat_hlog_data *d[LAT_COMPARE_MAX_FILES];
	const char *names[LAT_COMPARE_MAX_FILES];

	if (n < 1 || n > LAT_COMPARE_MAX_FILES)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		d[i] = f[i].data;
		names[i] = f[i].path;
	}
	return lat_compare_same_tags(d, names, (size_t)n, why, len);
}

/* File @i's tag @tag at percentile @k against the first file's. */
static int cell(const struct lat_compare_file *f, int i, const char *tag,
		int k, struct lat_compare_cell *c)
{
	struct lat_compare_side s[2];

	for (int n = 0; n < 2; n++) {
		const struct lat_compare_file *x = &f[n ? i : 0];

		s[n] = (struct lat_compare_side){
			.hist = lat_compare_find_tag(x->data, tag)->hist,
			.ns_per_value = x->ns_per_value,
			.spread = lat_compare_find_spread(&x->spreads, tag),
		};
	}
	if (!s[0].hist->total_count || !s[1].hist->total_count) {
		*c = (struct lat_compare_cell){ NAN, NAN, NAN, NAN,
						LAT_COMPARE_NO_SPREAD };
		return 0;
	}
	return lat_compare_cell(&s[0], i ? &s[1] : &s[0], k, c);
}

static void put_ns(FILE *out, double ns, int width)
{
	char b[LAT_FMT_LEN];

	lat_fmt_pad(out, isfinite(ns) ? lat_fmt_ns(b, sizeof(b), ns) : "-",
		    width);
}

static void put_band(FILE *out, const struct lat_compare_cell *c)
{
	char lo[LAT_FMT_LEN], hi[LAT_FMT_LEN], both[2 * LAT_FMT_LEN + 4];

	if (isfinite(c->lo_ns))
		snprintf(both, sizeof(both), "%s..%s",
			 lat_fmt_ns(lo, sizeof(lo), c->lo_ns),
			 lat_fmt_ns(hi, sizeof(hi), c->hi_ns));
	else
		snprintf(both, sizeof(both), "(no spread)");
	lat_fmt_pad(out, both, 21);
}

static int print_pair(FILE *out, const struct lat_compare_file *f, int i,
		      const char *tag)
{
	char label[LAT_HLOG_LABEL_LEN];
	int rc = 0;

	fprintf(out, "\n%s: %s against %s\n",
		lat_hlog_tag_label(tag, label, sizeof(label)), f[i].path,
		f[0].path);
	fprintf(out, "%-7s %9s %21s %9s %21s %7s  %s\n", "", "baseline",
		"its band", "this", "its band", "ratio", "verdict");
	for (int k = 0; k < LAT_COMPARE_NPCTS && !rc; k++) {
		struct lat_compare_cell b, c;

		rc = cell(f, 0, tag, k, &b);
		if (!rc)
			rc = cell(f, i, tag, k, &c);
		if (rc)
			break;
		fprintf(out, "%-7s ", lat_compare_level_name(k));
		put_ns(out, b.value_ns, 9);
		fputc(' ', out);
		put_band(out, &b);
		fputc(' ', out);
		put_ns(out, c.value_ns, 9);
		fputc(' ', out);
		put_band(out, &c);
		if (isfinite(c.ratio))
			fprintf(out, c.ratio >= 0.01 ? " %6.2fx" : " %6.1ex",
				c.ratio);
		else
			fprintf(out, " %7s", "-");
		fprintf(out, "  %s\n", lat_compare_verdict_name(c.verdict));
	}
	return rc;
}

int lat_compare_print(FILE *out, const struct lat_compare_file *f, int n)
{
	int nt, rc = 0;
	const struct lat_hlog_tag *t = lat_compare_tags(f[0].data, &nt);

	fprintf(out, "compare: %d files against %s\n", n, f[0].path);
	for (int i = 0; i < n; i++) {
		const struct lat_compare_spreads *sp = &f[i].spreads;
		int64_t most = 0;
		int ntags;

		lat_compare_tags(f[i].data, &ntags);
		for (int k = 0; k < sp->ntags; k++)
			if (sp->tags[k].n > most)
				most = sp->tags[k].n;
		fprintf(out, "  %s: %s, %lld non-empty interval%s%s\n",
			f[i].path, f[i].data->is_hgrm ? ".hgrm" : ".hlog",
			(long long)most, most == 1 ? "" : "s",
			ntags > 1 ? " per tag" : "");
	}
	fprintf(out, "band: a file's per-interval values, a tenth dropped at "
		"each end; 'noise' when the two bands\noverlap, "
		"'higher'/'lower' when they do not, 'no spread' with fewer "
		"than %d intervals\n", LAT_COMPARE_MIN_INTERVALS);
	for (int k = 0; k < nt && !rc; k++)
		for (int i = 1; i < n && !rc; i++)
			rc = print_pair(out, f, i, t[k].name);
	return rc;
}

static void json_cell(struct lat_json *j, const struct lat_compare_cell *c)
{
	lat_json_obj_begin(j, NULL);
	lat_json_double(j, "value_ns", c->value_ns);
	lat_json_double(j, "band_lo_ns", c->lo_ns);
	lat_json_double(j, "band_hi_ns", c->hi_ns);
	lat_json_double(j, "ratio", c->ratio);
	lat_json_str(j, "verdict", lat_compare_verdict_name(c->verdict));
	lat_json_obj_end(j);
}

/* One tag's percentiles, each with one cell per file in the order given. */
static int json_tag(struct lat_json *j, const struct lat_compare_file *f,
		    int n, const char *tag)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "tag", tag);
	lat_json_arr_begin(j, "percentiles");
	for (int p = 0; p < LAT_COMPARE_NPCTS; p++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", lat_compare_level_name(p));
		lat_json_double(j, "level", lat_compare_level(p));
		lat_json_arr_begin(j, "files");
		for (int i = 0; i < n; i++) {
			struct lat_compare_cell c;
			int rc = cell(f, i, tag, p, &c);

			if (rc)
				return rc;
			json_cell(j, &c);
		}
		lat_json_arr_end(j);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_end(j);
	return 0;
}

int lat_compare_json(struct lat_json *j, const struct lat_compare_file *f,
		     int n)
{
	int nt, rc = 0;
	const struct lat_hlog_tag *t = lat_compare_tags(f[0].data, &nt);

	lat_json_obj_begin(j, NULL);
	lat_json_arr_begin(j, "files");
	for (int i = 0; i < n; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "file", f[i].path);
		lat_json_int(j, "intervals", f[i].data->total.intervals);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_arr_begin(j, "tags");
	for (int k = 0; k < nt && !rc; k++)
		rc = json_tag(j, f, n, t[k].name);
	lat_json_arr_end(j);
	lat_json_obj_end(j);
	return rc;
}

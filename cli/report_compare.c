/*
 * latlab report --compare: every file's percentiles against the first's,
 * judged by lat_compare (the files' own interval-to-interval spread).
 * This file only arranges the library's cells as a table or JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latlab/compare.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "report.h"

/* The compared side of file @i's tag @tag (spread NULL for an .hgrm). */
static struct lat_compare_side side(const struct report_opts *o,
				    struct lat_hlog_data *const *d,
				    const struct lat_compare_spreads *sp, int i,
				    const char *tag)
{
	return (struct lat_compare_side){
		.hist = lat_compare_find_tag(d[i], tag)->hist,
		.ns_per_value = report_ns_per_value(o, d[i]),
		.spread = lat_compare_find_spread(&sp[i], tag),
	};
}

static void cell(const struct report_opts *o, struct lat_hlog_data *const *d,
		 const struct lat_compare_spreads *sp, int file,
		 const char *tag, int k, struct lat_compare_cell *c)
{
	struct lat_compare_side b = side(o, d, sp, 0, tag);
	struct lat_compare_side t = side(o, d, sp, file, tag);
	int rc;

	if (!t.hist->total_count || !b.hist->total_count) {
		*c = (struct lat_compare_cell){ NAN, NAN, NAN, NAN,
						LAT_COMPARE_NO_SPREAD };
		return;
	}
	rc = lat_compare_cell(&b, file ? &t : &b, k, c);
	if (rc)
		cli_fail("report", "--compare: %s", lat_strerror(rc));
}

static void put_ns(double ns, int width)
{
	char b[LAT_FMT_LEN];

	lat_fmt_pad(stdout, isfinite(ns) ? lat_fmt_ns(b, sizeof(b), ns) : "-",
		    width);
}

static void put_band(const struct lat_compare_cell *c)
{
	char lo[LAT_FMT_LEN], hi[LAT_FMT_LEN], both[2 * LAT_FMT_LEN + 4];

	if (isfinite(c->lo_ns))
		snprintf(both, sizeof(both), "%s..%s",
			 lat_fmt_ns(lo, sizeof(lo), c->lo_ns),
			 lat_fmt_ns(hi, sizeof(hi), c->hi_ns));
	else
		snprintf(both, sizeof(both), "(no spread)");
	lat_fmt_pad(stdout, both, 21);
}

static void print_pair(const struct report_opts *o,
		       struct lat_hlog_data *const *d,
		       const struct lat_compare_spreads *sp, int file,
		       const char *tag)
{
	printf("\n%s: %s against %s\n", report_tag_label(tag),
	       o->paths[file], o->paths[0]);
	printf("%-7s %9s %21s %9s %21s %7s  %s\n", "", "baseline", "its band",
	       "this", "its band", "ratio", "verdict");
	for (int k = 0; k < LAT_COMPARE_NPCTS; k++) {
		struct lat_compare_cell b, c;

		cell(o, d, sp, 0, tag, k, &b);
		cell(o, d, sp, file, tag, k, &c);
		printf("%-7s ", lat_compare_level_name(k));
		put_ns(b.value_ns, 9);
		putchar(' ');
		put_band(&b);
		putchar(' ');
		put_ns(c.value_ns, 9);
		putchar(' ');
		put_band(&c);
		if (isfinite(c.ratio))
			printf(c.ratio >= 0.01 ? " %6.2fx" : " %6.1ex",
			       c.ratio);
		else
			printf(" %7s", "-");
		printf("  %s\n", lat_compare_verdict_name(c.verdict));
	}
}

static void print_text(const struct report_opts *o,
		       struct lat_hlog_data *const *d,
		       const struct lat_compare_spreads *sp)
{
	int nt;
	const struct lat_hlog_tag *t = lat_compare_tags(d[0], &nt);

	printf("compare: %d files against %s\n", o->npaths, o->path);
	for (int i = 0; i < o->npaths; i++) {
		int n;
		int64_t most = 0;

		lat_compare_tags(d[i], &n);
		for (int k = 0; k < sp[i].ntags; k++)
			if (sp[i].tags[k].n > most)
				most = sp[i].tags[k].n;
		printf("  %s: %s, %lld non-empty interval%s%s\n", o->paths[i],
		       d[i]->is_hgrm ? ".hgrm" : ".hlog", (long long)most,
		       most == 1 ? "" : "s", n > 1 ? " per tag" : "");
	}
	printf("band: a file's per-interval values, a tenth dropped at each "
	       "end; 'noise' when the two bands\noverlap, 'higher'/'lower' "
	       "when they do not, 'no spread' with fewer than %d intervals\n",
	       LAT_COMPARE_MIN_INTERVALS);
	for (int k = 0; k < nt; k++)
		for (int i = 1; i < o->npaths; i++)
			print_pair(o, d, sp, i, t[k].name);
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

static void print_json(const struct report_opts *o,
		       struct lat_hlog_data *const *d,
		       const struct lat_compare_spreads *sp)
{
	int nt;
	const struct lat_hlog_tag *t = lat_compare_tags(d[0], &nt);
	struct lat_json j;

	lat_json_init(&j, stdout);
	lat_json_obj_begin(&j, NULL);
	lat_json_arr_begin(&j, "files");
	for (int i = 0; i < o->npaths; i++) {
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "file", o->paths[i]);
		lat_json_int(&j, "intervals", d[i]->total.intervals);
		lat_json_obj_end(&j);
	}
	lat_json_arr_end(&j);
	lat_json_arr_begin(&j, "tags");
	for (int k = 0; k < nt; k++) {
		lat_json_obj_begin(&j, NULL);
		lat_json_str(&j, "tag", t[k].name);
		lat_json_arr_begin(&j, "percentiles");
		for (int p = 0; p < LAT_COMPARE_NPCTS; p++) {
			lat_json_obj_begin(&j, NULL);
			lat_json_str(&j, "name", lat_compare_level_name(p));
			lat_json_double(&j, "level", lat_compare_level(p));
			/* one cell per file, in the order given */
			lat_json_arr_begin(&j, "files");
			for (int i = 0; i < o->npaths; i++) {
				struct lat_compare_cell c;

				cell(o, d, sp, i, t[k].name, p, &c);
				json_cell(&j, &c);
			}
			lat_json_arr_end(&j);
			lat_json_obj_end(&j);
		}
		lat_json_arr_end(&j);
		lat_json_obj_end(&j);
	}
	lat_json_arr_end(&j);
	lat_json_obj_end(&j);
	if (lat_json_finish(&j))
		cli_fail("report", "internal error: bad JSON nesting");
}

struct lat_compare_spreads *report_compare_load(const struct report_opts *o,
						struct lat_hlog_data *const *d)
{
	const struct lat_hlog_data *cd[REPORT_MAX_FILES];
	struct lat_compare_spreads *sp;
	char why[512];

	for (int i = 0; i < o->npaths; i++)
		cd[i] = d[i];
	if (lat_compare_same_tags(cd, o->paths, (size_t)o->npaths, why,
				  sizeof(why)))
		cli_usage_error("report", "--compare: %s", why);
	sp = calloc((size_t)o->npaths, sizeof(*sp));
	if (!sp)
		cli_fail("report", "out of memory");
	for (int i = 0; i < o->npaths; i++)
		if (!d[i]->is_hgrm &&
		    lat_compare_read_spreads(o->paths[i], o->tag, &sp[i]))
			cli_usage_error("report", "%s", sp[i].why);
	return sp;
}

void report_compare(const struct report_opts *o,
		    struct lat_hlog_data *const *d,
		    const struct lat_compare_spreads *sp)
{
	if (o->json)
		print_json(o, d, sp);
	else
		print_text(o, d, sp);
}

void report_compare_free(const struct report_opts *o,
			 struct lat_compare_spreads *sp)
{
	if (!sp)
		return;
	for (int i = 0; i < o->npaths; i++)
		lat_compare_spreads_free(&sp[i]);
	free(sp);
}

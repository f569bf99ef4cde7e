/*
 * A loaded .hlog or .hgrm as `latlab report` shows it: the summary row
 * per tag and in total, as a table for people or one JSON object.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/hist_io.h"
#include "latlab/json.h"

const char *lat_hlog_tag_label(const char *name, char *buf, size_t len)
{
	size_t n = 0;

	if (!*name) {
		snprintf(buf, len, "(untagged)");
		return buf;
	}
	/* tags come from files: control bytes (escape sequences) are shown
	 * as \xNN, never sent to a terminal */
	for (const unsigned char *p = (const unsigned char *)name;
	     *p && n + 5 < len; p++) {
		if (*p < 0x20 || *p == 0x7f)
			n += (size_t)snprintf(buf + n, 5, "\\x%02x", *p);
		else
			buf[n++] = (char)*p;
	}
	buf[n] = '\0';
	return buf;
}

double lat_hlog_ns_per_value(const struct lat_hlog_data *d, double asked)
{
	/* .hgrm values were scaled to ns while reading; hlog values not */
	return d->is_hgrm ? 1 : (asked > 0 ? asked : 1);
}

/* Column widths wide enough for the longest tag and the largest count. */
struct widths {
	int label, count;
};

static void print_row(FILE *out, const struct widths *w, const char *label,
		      const struct lat_hist_summary *s)
{
	char b[LAT_FMT_LEN];

	fprintf(out, "%-*s %*lld", w->label, label, w->count,
		(long long)s->count);
	if (!s->count) {
		fprintf(out, "  (no values)\n");
		return;
	}
	fprintf(out, " %9s", lat_fmt_ns(b, sizeof(b), s->min));
	for (int i = 0; i < LAT_HIST_SUMMARY_N; i++)
		fprintf(out, " %9s", lat_fmt_ns(b, sizeof(b), s->pct[i]));
	fprintf(out, " %9s", lat_fmt_ns(b, sizeof(b), s->max));
	fprintf(out, " %9s\n", lat_fmt_ns(b, sizeof(b), s->mean));
}

static void widths(const struct lat_hlog_data *d, struct widths *w)
{
	char n[32], label[LAT_HLOG_LABEL_LEN];

	w->label = 12;
	w->count = snprintf(n, sizeof(n), "%lld",
			    (long long)d->total.hist->total_count);
	if (w->count < 10)
		w->count = 10;
	for (int i = 0; i < d->ntags; i++) {
		int len = (int)strlen(lat_hlog_tag_label(d->tags[i].name,
							 label,
							 sizeof(label)));

		if (len > w->label)
			w->label = len;
	}
}

void lat_hlog_print(FILE *out, const char *path, const struct lat_hlog_data *d,
		    double ns_per_value)
{
	char label[LAT_HLOG_LABEL_LEN];
	struct lat_hist_summary s;
	struct widths w;

	if (d->is_hgrm)
		fprintf(out, "%s: .hgrm, %d row%s, %d significant digit%s\n",
			path, d->hgrm.rows, d->hgrm.rows == 1 ? "" : "s",
			d->hgrm.sig_figs, d->hgrm.sig_figs == 1 ? "" : "s");
	else
		fprintf(out, "%s: %lld interval%s, %d tag%s, %.3f s\n", path,
			(long long)d->total.intervals,
			d->total.intervals == 1 ? "" : "s", d->ntags,
			d->ntags == 1 ? "" : "s",
			d->total.last_end_s - d->total.first_start_s);
	widths(d, &w);
	fprintf(out, "%-*s %*s %9s", w.label, "tag", w.count, "count", "min");
	for (int i = 0; i < LAT_HIST_SUMMARY_N; i++)
		fprintf(out, " %9s", lat_hist_summary_names[i]);
	fprintf(out, " %9s %9s\n", "max", "mean");
	for (int i = 0; i < d->ntags; i++) {
		lat_hlog_summarize(d, d->tags[i].hist, ns_per_value, &s);
		print_row(out, &w, lat_hlog_tag_label(d->tags[i].name, label,
						      sizeof(label)), &s);
	}
	lat_hlog_summarize(d, d->total.hist, ns_per_value, &s);
	print_row(out, &w, "(all)", &s);
}

void lat_hlog_json(struct lat_json *j, const char *path,
		   const struct lat_hlog_data *d, double ns_per_value)
{
	struct lat_hist_summary s;

	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "file", path);
	lat_json_str(j, "format", d->is_hgrm ? "hgrm" : "hlog");
	lat_json_double(j, "ns_per_value", ns_per_value);
	lat_json_int(j, "refused_counts", d->refused);
	if (d->is_hgrm) {
		lat_json_int(j, "rows", d->hgrm.rows);
		lat_json_int(j, "sig_figs", d->hgrm.sig_figs);
	} else {
		lat_json_int(j, "intervals", d->total.intervals);
		if (isfinite(d->start_time_s))
			lat_json_double(j, "start_time_s", d->start_time_s);
	}
	lat_json_arr_begin(j, "tags");
	for (int i = 0; i < d->ntags; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "tag", d->tags[i].name);
		lat_json_int(j, "intervals", d->tags[i].intervals);
		lat_hlog_summarize(d, d->tags[i].hist, ns_per_value, &s);
		lat_hist_summary_write_json(j, &s);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_obj_begin(j, "total");
	lat_hlog_summarize(d, d->total.hist, ns_per_value, &s);
	lat_hist_summary_write_json(j, &s);
	lat_json_obj_end(j);
	lat_json_obj_end(j);
}

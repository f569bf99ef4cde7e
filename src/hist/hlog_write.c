/*
 * .hlog writer, format 1.3, as Java's HistogramLogWriter writes it:
 *
 *   #[<comment>]                                   (optional)
 *   #[Histogram log format version 1.3]
 *   #[StartTime: <s.ms> (seconds since epoch), <date>]
 *   #[BaseTime: <s.ms> (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   [Tag=<tag>,]<start>,<length>,<max>,<base64 of the compressed V2>
 *
 * Each line is flushed as soon as it is written, so a run stopped by a
 * signal between two intervals leaves a complete, readable log.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/jfmt_int.h"
#include "latlab/hist_io.h"

struct lat_hlog_writer {
	FILE *f;
	bool owns_file;
	int error;               /* first write error, sticky */
	double max_unit_ratio;
};

/* Flush the line just written; remember the first failure. */
static int flush_line(struct lat_hlog_writer *w)
{
	if (fflush(w->f) || ferror(w->f)) {
		if (!w->error)
			w->error = -EIO;
	}
	return w->error;
}

/* Java's Date.toString(): "Tue Nov 14 22:13:20 UTC 2023", local time. */
static void java_date(char *buf, size_t cap, double epoch_s)
{
	time_t t = (time_t)floor(epoch_s);
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, cap, "%a %b %d %H:%M:%S %Z %Y", &tm))
		snprintf(buf, cap, "?");
}

static int write_header(struct lat_hlog_writer *w,
			const struct lat_hlog_writer_opts *opts)
{
	double start = opts && opts->start_time_s > 0 ? opts->start_time_s : 0;
	char secs[64], date[64];

	if (start == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		start = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	}
	/* Java writes milliseconds: keep the same resolution */
	start = floor(start * 1000.0) / 1000.0;
	lat_jfmt_fixed(secs, sizeof(secs), start, 3);
	java_date(date, sizeof(date), start);
	if (opts && opts->comment)
		fprintf(w->f, "#[%s]\n", opts->comment);
	fprintf(w->f, "#[Histogram log format version 1.3]\n");
	fprintf(w->f, "#[StartTime: %s (seconds since epoch), %s]\n", secs,
		date);
	fprintf(w->f, "#[BaseTime: %s (seconds since epoch)]\n", secs);
	fprintf(w->f, "\"StartTimestamp\",\"Interval_Length\","
		"\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
	return flush_line(w);
}

static bool comment_ok(const char *s)
{
	return !s || !strpbrk(s, "\r\n");
}

int lat_hlog_writer_open_stream(FILE *f,
				const struct lat_hlog_writer_opts *opts,
				struct lat_hlog_writer **out)
{
	struct lat_hlog_writer *w;
	int rc;

	*out = NULL;
	if (!f || (opts && (!comment_ok(opts->comment) ||
			    opts->max_unit_ratio < 0 ||
			    !isfinite(opts->start_time_s) ||
			    opts->start_time_s < 0)))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->f = f;
	w->max_unit_ratio = opts && opts->max_unit_ratio > 0 ?
		opts->max_unit_ratio : 1e6;
	rc = write_header(w, opts);
	if (rc) {
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int lat_hlog_writer_open(const char *path,
			 const struct lat_hlog_writer_opts *opts,
			 struct lat_hlog_writer **out)
{
	FILE *f;
	int rc;

	*out = NULL;
	if (!path)
		return -EINVAL;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	rc = lat_hlog_writer_open_stream(f, opts, out);
	if (rc) {
		fclose(f);
		return rc;
	}
	(*out)->owns_file = true;
	return 0;
}

static bool tag_ok(const char *tag)
{
	size_t n = strlen(tag);

	return n < sizeof(((struct lat_hist *)0)->tag) &&
	       !strpbrk(tag, ", \t\r\n");
}

int lat_hlog_writer_write_interval(struct lat_hlog_writer *w, const char *tag,
				   double start_s, double length_s,
				   const struct lat_hist *h)
{
	char start[64], length[64], max[400];
	char *b64;
	size_t b64_len;
	int rc;

	if (!w || !h || (tag && !tag_ok(tag)) || !isfinite(start_s) ||
	    !isfinite(length_s) || start_s < 0 || length_s < 0 ||
	    start_s > 1e15 || length_s > 1e15)
		return -EINVAL;
	if (w->error)
		return w->error;
	rc = lat_hist_v2_encode_base64(h, 9, &b64, &b64_len);
	if (rc)
		return rc;
	lat_jfmt_fixed(start, sizeof(start), start_s, 3);
	lat_jfmt_fixed(length, sizeof(length), length_s, 3);
	lat_jfmt_fixed(max, sizeof(max),
		       (double)lat_hist_max(h) / w->max_unit_ratio, 3);
	if (tag && *tag)
		fprintf(w->f, "Tag=%s,", tag);
	fprintf(w->f, "%s,%s,%s,%s\n", start, length, max, b64);
	free(b64);
	return flush_line(w);
}

int lat_hlog_writer_comment(struct lat_hlog_writer *w, const char *text)
{
	if (!w || !text || !comment_ok(text))
		return -EINVAL;
	fprintf(w->f, "#%s\n", text);
	return flush_line(w);
}

int lat_hlog_writer_close(struct lat_hlog_writer *w)
{
	int rc;

	if (!w)
		return 0;
	flush_line(w);
	rc = w->error;
	if (w->owns_file && fclose(w->f) && !rc)
		rc = -errno;
	free(w);
	return rc;
}

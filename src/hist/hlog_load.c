/*
 * lat_hlog_load: a whole .hlog or .hgrm file, merged per tag (what
 * `latlab report` and `latlab queue --service-from` read). An .hgrm file
 * is recognised by its "Value" header line, anything else is read as an
 * .hlog. Intervals are merged with lat_hist_merge_grow, so no count is
 * dropped for range; counts refused anyway are counted. Intervals of
 * different precision are merged as Java's add() does, at the precision
 * of the first non-empty one; the tag says when that happened.
 */
#define _GNU_SOURCE /* fopencookie: the sniffed bytes put back in front */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "latlab/hist_io.h"

/* Largest .hgrm file read into memory. */
#define HLOG_MAX_HGRM (256u << 20)

static int tag_add(struct lat_hlog_tag *t, const struct lat_hist *src,
		   int64_t *refused)
{
	return lat_hist_merge_grow(&t->hist, src, refused,
				   &t->mixed_precision);
}

static void tag_note_time(struct lat_hlog_tag *t,
			  const struct lat_hlog_interval *iv)
{
	double end = iv->start_s + iv->length_s;

	if (!t->intervals || iv->start_s < t->first_start_s)
		t->first_start_s = iv->start_s;
	if (!t->intervals || end > t->last_end_s)
		t->last_end_s = end;
	t->intervals++;
}

static struct lat_hlog_tag *find_tag(struct lat_hlog_data *d, const char *name)
{
	for (int i = 0; i < d->ntags; i++)
		if (!strcmp(d->tags[i].name, name))
			return &d->tags[i];
	if (d->ntags == LAT_HLOG_MAX_TAGS)
		return NULL;
	struct lat_hlog_tag *t = &d->tags[d->ntags++];

	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

/* Finer: more significant digits, then a smaller unit. */
static bool finer(const struct lat_hist *a, const struct lat_hist *b)
{
	if (a->sig_figs != b->sig_figs)
		return a->sig_figs > b->sig_figs;
	return a->unit_magnitude < b->unit_magnitude;
}

/*
 * The total, built from the tags at the finest precision among them, so
 * a coarse tag cannot blur a fine one (Java has no cross-tag total). The
 * finest tag goes in first: tag_add() gives an empty accumulator the
 * layout of the first histogram added to it.
 */
static int merge_total(struct lat_hlog_data *d)
{
	const struct lat_hist *best = NULL;
	int rc = 0;

	for (int i = 0; i < d->ntags; i++) {
		const struct lat_hist *h = d->tags[i].hist;

		if (!best || (h->total_count && (!best->total_count ||
						 finer(h, best))))
			best = h;
	}
	if (!best)
		return 0;
	rc = tag_add(&d->total, best, &d->refused);
	for (int i = 0; !rc && i < d->ntags; i++)
		if (d->tags[i].hist != best)
			rc = tag_add(&d->total, d->tags[i].hist, &d->refused);
	return rc;
}

static int load_hlog(const char *path, FILE *f, const char *tag,
		     struct lat_hlog_data *d, lat_hlog_each_fn each,
		     void *ctx)
{
	char *why = d->why;
	size_t why_len = sizeof(d->why);
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	bool header = false;
	int rc;

	rc = lat_hlog_reader_open_stream(f, &r);
	if (rc) {
		snprintf(why, why_len, "cannot open '%s': %s", path,
			 lat_strerror(rc));
		return rc;
	}
	while ((rc = lat_hlog_reader_next(r, &iv)) == 1) {
		struct lat_hlog_tag *t;

		if (tag && strcmp(tag, iv.tag)) {
			lat_hist_free(iv.hist);
			continue;
		}
		t = find_tag(d, iv.tag);
		if (!t) {
			lat_hist_free(iv.hist);
			snprintf(why, why_len, "'%s' line %lld: more than %d "
				 "tags", path, (long long)iv.line,
				 LAT_HLOG_MAX_TAGS);
			rc = -LAT_EFORMAT;
			break;
		}
		tag_note_time(t, &iv);
		tag_note_time(&d->total, &iv);
		rc = tag_add(t, iv.hist, &d->refused);
		if (!rc && each)
			rc = each(ctx, &iv);
		lat_hist_free(iv.hist);
		if (rc) {
			snprintf(why, why_len, "'%s' line %lld: %s", path,
				 (long long)iv.line, lat_strerror(rc));
			break;
		}
	}
	/* a first line that is not an interval: this is no log at all */
	if (rc == -LAT_EFORMAT && !d->total.intervals && !*why)
		snprintf(why, why_len, "'%s' line %lld: malformed: not an .hlog "
			 "interval line (not an .hlog or .hgrm file?)", path,
			 (long long)lat_hlog_reader_line(r));
	if (rc < 0 && !*why)
		snprintf(why, why_len, "'%s' line %lld: %s", path,
			 (long long)lat_hlog_reader_line(r), lat_strerror(rc));
	header = !isnan(lat_hlog_reader_start_time(r)) ||
		 lat_hlog_reader_line(r) > 0;
	d->start_time_s = lat_hlog_reader_start_time(r);
	lat_hlog_reader_close(r);
	if (!rc)
		rc = merge_total(d);
	if (rc < 0 && !*why)
		snprintf(why, why_len, "'%s': %s", path, lat_strerror(rc));
	if (!rc && !d->total.intervals) {
		if (tag)
			snprintf(why, why_len, "'%s': no interval with tag "
				 "'%s'", path, tag);
		else if (header)
			snprintf(why, why_len, "'%s': an .hlog header with no "
				 "intervals (the run wrote none?)", path);
		else
			snprintf(why, why_len, "'%s': empty file (not an "
				 ".hlog or .hgrm file)", path);
		rc = -LAT_ETRUNC;
	}
	return rc < 0 ? rc : 0;
}

/*
 * The rest of @f after the @n bytes already in @head, into memory
 * (bounded), NUL terminated.
 */
static int slurp(FILE *f, const char *head, size_t n, char **text,
		 size_t *len)
{
	size_t cap = 1 << 16;
	char *buf;

	*text = NULL;
	while (cap < n + 2)
		cap *= 2;
	buf = malloc(cap);
	if (buf)
		memcpy(buf, head, n);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		if (cap >= HLOG_MAX_HGRM) {
			free(buf);
			return -EFBIG;
		}
		char *grown = realloc(buf, cap * 2);

		if (!grown)
			free(buf);
		buf = grown;
		cap *= 2;
	}
	if (!buf || ferror(f)) {
		free(buf);
		return buf ? -EIO : -ENOMEM;
	}
	if (memchr(buf, '\0', n)) {
		free(buf);
		return -LAT_EBINARY;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/*
 * The sniffed bytes served again in front of the rest of the stream, so
 * the file is opened and read once: a FIFO or a pipe (<(cmd)) has no
 * second reading.
 */
struct replay {
	FILE *f;
	const char *head;
	size_t n, off;
};

static ssize_t replay_read(void *cookie, char *buf, size_t size)
{
	struct replay *r = cookie;
	size_t k;

	if (r->off < r->n) {
		k = r->n - r->off < size ? r->n - r->off : size;
		memcpy(buf, r->head + r->off, k);
		r->off += k;
		return (ssize_t)k;
	}
	k = fread(buf, 1, size, r->f);
	return k || !ferror(r->f) ? (ssize_t)k : -1;
}

/* First line that is not blank or a comment starts with a Value header. */
static bool looks_like_hgrm(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
				   *p == '\n'))
			p++;
		if (p < end && *p == '#') {
			p = memchr(p, '\n', (size_t)(end - p));
			if (!p)
				return false;
			continue;
		}
		return (size_t)(end - p) >= 5 &&
		       (!strncmp(p, "Value", 5) || !strncmp(p, "\"Value\"", 7));
	}
	return false;
}

static int load_hgrm(const char *path, const char *text, size_t len,
		     double scale, struct lat_hlog_data *d)
{
	int rc = lat_hgrm_read(text, len, scale, &d->hgrm, &d->total.hist);
	char *why = d->why;
	size_t why_len = sizeof(d->why);

	if (rc) {
		snprintf(why, why_len, "'%s': not a readable .hgrm file: %s",
			 path, lat_strerror(rc));
		return rc;
	}
	d->is_hgrm = true;
	d->total.intervals = 1;
	d->hgrm_scale = scale > 0 ? scale :
		d->hgrm.ns_per_value > 0 ? d->hgrm.ns_per_value : 1;
	return 0;
}

int lat_hlog_load(const char *path, const char *tag, double scale,
		  struct lat_hlog_data *d)
{
	return lat_hlog_load_each(path, tag, scale, d, NULL, NULL);
}

int lat_hlog_load_each(const char *path, const char *tag, double scale,
		       struct lat_hlog_data *d, lat_hlog_each_fn each,
		       void *ctx)
{
	char *why = d->why;
	size_t why_len = sizeof(d->why);
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	FILE *f, *again;
	char head[4096];
	struct replay rp;
	size_t n;
	int rc;

	memset(d, 0, sizeof(*d));
	d->start_time_s = NAN;
	f = fopen(path, "rb");
	if (!f) {
		rc = -errno;
		snprintf(why, why_len, "cannot open '%s': %s", path,
			 lat_strerror(rc));
		return rc;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(why, why_len, "'%s' is a directory, not a file",
			 path);
		return -EISDIR;
	}
	n = fread(head, 1, sizeof(head), f);
	if (ferror(f)) {
		rc = errno ? -errno : -EIO;
		fclose(f);
		snprintf(why, why_len, "cannot read '%s': %s", path,
			 lat_strerror(rc));
		return rc;
	}
	/* a text format: a NUL byte is enough to refuse (/dev/zero) */
	if (memchr(head, '\0', n)) {
		fclose(f);
		snprintf(why, why_len, "'%s': binary data (a NUL byte in the "
			 "first %zu bytes), not an .hlog or .hgrm file", path,
			 n);
		return -LAT_EBINARY;
	}
	if (!looks_like_hgrm(head, n)) {
		rp = (struct replay){ .f = f, .head = head, .n = n };
		again = fopencookie(&rp, "r", (cookie_io_functions_t){
					    .read = replay_read });
		if (!again) {
			fclose(f);
			snprintf(why, why_len, "cannot read '%s': out of "
				 "memory", path);
			return -ENOMEM;
		}
		rc = load_hlog(path, again, tag, d, each, ctx);
		fclose(again);
		fclose(f);
		return rc;
	}
	rc = slurp(f, head, n, &text, &len);
	fclose(f);
	if (rc) {
		snprintf(why, why_len, "cannot read '%s': %s", path,
			 lat_strerror(rc));
		return rc;
	}
	rc = load_hgrm(path, text, len, scale, d);
	free(text);
	return rc;
}

void lat_hlog_summarize(const struct lat_hlog_data *d,
			const struct lat_hist *h, double ns_per_value,
			struct lat_hist_summary *s)
{
	lat_hist_summarize(h, ns_per_value, s);
	if (d->is_hgrm && d->hgrm.has_footer) {
		/* the footer is exact where the rebuilt histogram is not;
		 * it is in file units, the rebuilt histogram in ns */
		s->mean = d->hgrm.mean * d->hgrm_scale;
		s->stddev = d->hgrm.stddev * d->hgrm_scale;
		s->max = d->hgrm.max * d->hgrm_scale;
	}
}

void lat_hlog_data_free(struct lat_hlog_data *d)
{
	for (int i = 0; i < d->ntags; i++)
		lat_hist_free(d->tags[i].hist);
	lat_hist_free(d->total.hist);
	memset(d, 0, sizeof(*d));
}

/*
 * .hlog reader with Java's HistogramLogReader semantics (shared/docs/
 * hdr-spec.md 5.2),
 * robust where the C reference is not: comments, the legend and blank
 * lines are skipped anywhere, fields may be separated by commas or spaces,
 * and lines may be long (up to HLOG_MAX_LINE; longer is an error rather
 * than an unbounded allocation).
 */
#define _GNU_SOURCE /* getc_unlocked */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "latlab/hist_io.h"

#define HLOG_MAX_LINE (64u << 20)
#define HLOG_MAX_FIELDS 6
#define SECONDS_PER_YEAR (365 * 24 * 3600.0)

struct lat_hlog_reader {
	FILE *f;
	bool owns_file;
	char *line;
	size_t cap;
	int64_t lineno;
	bool unterminated;       /* the last line read had no newline */
	double start_time;       /* NAN until seen */
	double base_time;
	bool have_base;
	int64_t intervals;       /* interval lines parsed so far */
	double last_start;       /* of the previous interval line */
};

int lat_hlog_reader_open_stream(FILE *f, struct lat_hlog_reader **out)
{
	struct lat_hlog_reader *r;

	*out = NULL;
	if (!f)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->f = f;
	r->start_time = NAN;
	*out = r;
	return 0;
}

int lat_hlog_reader_open(const char *path, struct lat_hlog_reader **out)
{
	struct stat st;
	FILE *f;
	int rc;

	*out = NULL;
	if (!path)
		return -EINVAL;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* fopen() opens a directory; the first read would fail as EIO */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return -EISDIR;
	}
	rc = lat_hlog_reader_open_stream(f, out);
	if (rc) {
		fclose(f);
		return rc;
	}
	(*out)->owns_file = true;
	return 0;
}

void lat_hlog_reader_close(struct lat_hlog_reader *r)
{
	if (!r)
		return;
	if (r->owns_file)
		fclose(r->f);
	free(r->line);
	free(r);
}

double lat_hlog_reader_start_time(const struct lat_hlog_reader *r)
{
	return r->start_time;
}

double lat_hlog_reader_base_time(const struct lat_hlog_reader *r)
{
	return r->have_base ? r->base_time : 0;
}

int64_t lat_hlog_reader_line(const struct lat_hlog_reader *r)
{
	return r->lineno;
}

/*
 * Read one line into r->line (NUL terminated, newline and CR removed) and
 * its length into *len. Returns 1, 0 at end of file, or -LAT_EFORMAT (line
 * too long), -ENOMEM, -EIO.
 */
static int read_line(struct lat_hlog_reader *r, size_t *len)
{
	size_t n = 0;
	int c;

	/*
	 * Byte by byte so that every byte read counts toward the line's
	 * cap: a NUL is malformed here (text never holds one), so a stream
	 * of them (/dev/zero) is refused at once instead of read forever.
	 */
	for (;;) {
		if (r->cap - n < 2) {
			size_t ncap = r->cap ? r->cap * 2 : 256;
			char *grown;

			if (ncap > HLOG_MAX_LINE)
				return -LAT_EFORMAT;
			grown = realloc(r->line, ncap);
			if (!grown)
				return -ENOMEM;
			r->line = grown;
			r->cap = ncap;
		}
		/* the reader alone uses its stream: no lock per byte */
		c = getc_unlocked(r->f);
		if (c == EOF) {
			if (ferror(r->f))
				return -EIO;
			if (n == 0)
				return 0; /* end of file */
			break;
		}
		if (c == '\0') {
			r->lineno++;
			return -LAT_EBINARY;
		}
		r->line[n++] = (char)c;
		if (c == '\n')
			break;
	}
	r->lineno++;
	r->unterminated = !n || r->line[n - 1] != '\n';
	while (n && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
		n--;
	r->line[n] = '\0';
	*len = n;
	return 1;
}

static bool is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\r';
}

/* Split @s in place on runs of separators; returns the field count. */
static int split(char *s, char **fields, int max)
{
	int n = 0;

	while (*s) {
		while (is_sep(*s))
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return n; /* Java ignores the rest of the line */
		fields[n++] = s;
		while (*s && !is_sep(*s))
			s++;
	}
	return n;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*out);
}

/* "#[StartTime: 1700000000.000 (...)" and BaseTime: note the number. */
static void parse_comment(struct lat_hlog_reader *r, char *line)
{
	static const char start[] = "#[StartTime:", base[] = "#[BaseTime:";
	char *fields[2];
	double v;

	if (!strncmp(line, start, sizeof(start) - 1)) {
		if (split(line + sizeof(start) - 1, fields, 1) == 1 &&
		    parse_seconds(fields[0], &v))
			r->start_time = v;
	} else if (!strncmp(line, base, sizeof(base) - 1)) {
		if (split(line + sizeof(base) - 1, fields, 1) == 1 &&
		    parse_seconds(fields[0], &v)) {
			r->base_time = v;
			r->have_base = true;
		}
	}
}

static int parse_interval(struct lat_hlog_reader *r, char *line,
			  struct lat_hlog_interval *iv)
{
	char *f[HLOG_MAX_FIELDS];
	int n = split(line, f, HLOG_MAX_FIELDS), i = 0, rc;
	double ts, length, max;

	memset(iv, 0, sizeof(*iv));
	iv->line = r->lineno;
	if (n && !strncmp(f[0], "Tag=", 4)) {
		if (strlen(f[0] + 4) >= sizeof(iv->tag))
			return -LAT_EFORMAT;
		strcpy(iv->tag, f[0] + 4);
		i = 1;
	}
	if (n - i < 4)
		return -LAT_EFORMAT;
	if (!parse_seconds(f[i], &ts) || !parse_seconds(f[i + 1], &length) ||
	    !parse_seconds(f[i + 2], &max))
		return -LAT_EFORMAT;
	/* time runs forward: a negative stamp or length is not a log */
	if (ts < 0 || length < 0 || max < 0)
		return -LAT_EBADTIME;
	if (isnan(r->start_time))
		r->start_time = ts;
	if (!r->have_base) {
		/* relative stamps are far before an absolute StartTime */
		r->base_time = ts < r->start_time - SECONDS_PER_YEAR ?
			r->start_time : 0;
		r->have_base = true;
	}
	/* tags of one interval may share a stamp; going back is refused
	 * (checked before the decode: nothing to free on the way out) */
	if (r->intervals && ts + r->base_time < r->last_start - 1e-3)
		return -LAT_EBADTIME;
	r->last_start = ts + r->base_time;
	rc = lat_hist_v2_decode_base64(f[i + 3], strlen(f[i + 3]), &iv->hist);
	if (rc)
		return rc;
	iv->start_s = ts + r->base_time;
	iv->length_s = length;
	iv->max_field = max;
	strcpy(iv->hist->tag, iv->tag);
	if (fabs(iv->start_s) < 9e15 && fabs(length) < 9e15) {
		iv->hist->start_ms = (int64_t)(iv->start_s * 1000.0);
		iv->hist->end_ms = (int64_t)((iv->start_s + length) * 1000.0);
	}
	return 1;
}

int lat_hlog_reader_next(struct lat_hlog_reader *r,
			 struct lat_hlog_interval *iv)
{
	size_t len;
	int rc;

	memset(iv, 0, sizeof(*iv));
	while ((rc = read_line(r, &len)) == 1) {
		char *s = r->line;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			continue;
		if (*s == '#') {
			parse_comment(r, s);
			continue;
		}
		if (!strncmp(s, "\"StartTimestamp\"", 16))
			continue;
		rc = parse_interval(r, s, iv);
		/* a bad last line without its newline was cut short when
		 * it follows other lines or starts as an interval does;
		 * random bytes without a newline are just not a log */
		if (rc == -LAT_EFORMAT && r->unterminated &&
		    (r->lineno > 1 || (*s >= '0' && *s <= '9')))
			rc = -LAT_ETRUNC;
		if (rc == 1)
			r->intervals++;
		return rc;
	}
	return rc;
}

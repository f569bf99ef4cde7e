/*
 * .hgrm reader: rebuild a histogram from percentile-distribution text.
 *
 * The text keeps one (value, cumulative count) pair per percentile tick,
 * so the histogram is rebuilt by recording each row's count increment at
 * its value; what that loses is documented at lat_hgrm_read(). Input may
 * be hostile: lines are parsed in place within @len bytes, numbers are
 * range-checked, and the only allocation is the histogram, whose size is
 * bounded by the largest value.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist_io.h"

#define HGRM_MAX_FIELD 64
/*
 * Most rows read: 32 MiB of row structs. The densest output there is
 * (1000 ticks per half distance, up to 64 halvings) has at most 64k
 * rows; more is not a .hgrm file, and a 6-byte row must not cost 32
 * bytes of memory without a bound.
 */
#define HGRM_MAX_ROWS (1 << 20)

struct hgrm_row {
	double value;
	double percentile;
	int64_t count;
	int decimals;
};

/* The line [p, end) without its trailing CR. */
struct span {
	const char *p;
	const char *end;
};

static bool span_starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(s.end - s.p) >= n && !memcmp(s.p, prefix, n);
}

static struct span span_trim(struct span s)
{
	while (s.p < s.end && (*s.p == ' ' || *s.p == '\t'))
		s.p++;
	while (s.end > s.p && (s.end[-1] == ' ' || s.end[-1] == '\t' ||
			       s.end[-1] == '\r'))
		s.end--;
	return s;
}

/*
 * Split @s into up to @max fields on runs of spaces (or on commas when
 * @csv); copies each into @f (NUL terminated). Returns the field count,
 * or -1 when a field is too long or there are more than @max.
 */
static int split_fields(struct span s, bool csv, char f[][HGRM_MAX_FIELD],
			int max)
{
	int n = 0;
	const char *p = s.p;

	while (p < s.end) {
		const char *start;

		if (!csv)
			while (p < s.end && (*p == ' ' || *p == '\t'))
				p++;
		if (p >= s.end)
			break;
		start = p;
		while (p < s.end && (csv ? *p != ',' : *p != ' ' && *p != '\t'))
			p++;
		if (n >= max || p - start >= HGRM_MAX_FIELD)
			return -1;
		memcpy(f[n], start, (size_t)(p - start));
		f[n][p - start] = '\0';
		n++;
		if (csv && p < s.end)
			p++; /* the comma */
	}
	return n;
}

/* A finite decimal number filling the whole field. */
static bool parse_double(const char *s, double *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && isfinite(*out);
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

static int decimals_of(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (int)strlen(dot + 1) : 0;
}

static int parse_row(struct span s, bool csv, struct hgrm_row *row)
{
	char f[4][HGRM_MAX_FIELD];
	int n = split_fields(s, csv, f, 4);
	double inv;

	if (n < 3)
		return -LAT_EFORMAT;
	if (!parse_double(f[0], &row->value) || row->value < 0 ||
	    !parse_double(f[1], &row->percentile) ||
	    row->percentile < 0 || row->percentile > 1 ||
	    !parse_i64(f[2], &row->count))
		return -LAT_EFORMAT;
	if (n == 4 && strcmp(f[3], "Infinity") && !parse_double(f[3], &inv))
		return -LAT_EFORMAT;
	row->decimals = decimals_of(f[0]);
	return 0;
}

/*
 * "#[Key = number, Key2 = number]": the two numbers. When @b_int is not
 * NULL the second is a whole count, parsed exactly into it: a double
 * keeps only 53 bits, and the footer's total must equal the last row's.
 */
static int parse_footer_pair(struct span s, double *a, double *b,
			     int64_t *b_int)
{
	char buf[160];
	size_t n = (size_t)(s.end - s.p);
	char *eq1, *comma, *eq2, *close;

	if (n >= sizeof(buf))
		return -LAT_EFORMAT;
	memcpy(buf, s.p, n);
	buf[n] = '\0';
	eq1 = strchr(buf, '=');
	comma = eq1 ? strchr(eq1, ',') : NULL;
	eq2 = comma ? strchr(comma, '=') : NULL;
	close = eq2 ? strchr(eq2, ']') : NULL;
	if (!close)
		return -LAT_EFORMAT;
	*comma = '\0';
	*close = '\0';
	for (char *p = eq1 + 1; *p == ' '; p++)
		eq1 = p;
	for (char *p = eq2 + 1; *p == ' '; p++)
		eq2 = p;
	if (!parse_double(eq1 + 1, a) || !parse_double(eq2 + 1, b))
		return -LAT_EFORMAT;
	if (b_int && !parse_i64(eq2 + 1, b_int))
		return -LAT_EFORMAT;
	return 0;
}

static int parse_comment(struct span s, struct lat_hgrm_info *info)
{
	double a, b;

	if (span_starts(s, "#[Mean")) {
		if (parse_footer_pair(s, &a, &b, NULL))
			return -LAT_EFORMAT;
		info->mean = a;
		info->stddev = b;
		info->has_footer = true;
	} else if (span_starts(s, "#[Max")) {
		if (parse_footer_pair(s, &a, &b, &info->total_count))
			return -LAT_EFORMAT;
		info->max = a;
	} else if (span_starts(s, "#[Buckets")) {
		if (parse_footer_pair(s, &a, &b, NULL) || a < 0 || a > 64 ||
		    b < 0 || b > (1 << 20))
			return -LAT_EFORMAT;
		info->buckets = (int32_t)a;
		info->sub_buckets = (int32_t)b;
	} else if (span_starts(s, "#[Value unit:")) {
		char buf[64];
		size_t n = (size_t)(s.end - s.p) - 13;

		if (n >= sizeof(buf))
			return -LAT_EFORMAT;
		memcpy(buf, s.p + 13, n);
		buf[n] = '\0';
		a = strtod(buf, NULL);
		if (!(a > 0) || !isfinite(a))
			return -LAT_EFORMAT;
		info->ns_per_value = a;
	}
	return 0;
}

/* Significant digits from SubBuckets (S = 2^ceil(log2(2 * 10^d))). */
static int sig_figs_from(const struct lat_hgrm_info *info, int decimals)
{
	static const int32_t sub_buckets[] = { 2, 32, 256, 2048, 32768,
					       262144 };

	for (int d = 0; d <= 5; d++)
		if (info->sub_buckets == sub_buckets[d])
			return d;
	if (info->sub_buckets)
		return -1;
	return decimals <= 5 ? decimals : -1;
}

static int rebuild(const struct hgrm_row *rows, int32_t n, double scale,
		   int sig_figs, struct lat_hist **out)
{
	double top = n ? rows[n - 1].value * scale : 0;
	struct lat_hist *h;
	int64_t prev = 0;
	int rc;

	if (!(top < 9.2e18))
		return -ERANGE;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	rc = lat_hist_init_any(h, 1, top < 2 ? 2 : (int64_t)llround(top),
			       sig_figs);
	if (rc) {
		free(h);
		return rc;
	}
	for (int32_t i = 0; i < n; i++) {
		int64_t add = rows[i].count - prev;

		if (add > 0 &&
		    !lat_hist_record_n(h, llround(rows[i].value * scale), add)) {
			lat_hist_free(h);
			return -ERANGE;
		}
		prev = rows[i].count;
	}
	*out = h;
	return 0;
}

/* Check the rows are a cumulative distribution and agree with the footer. */
static int check_rows(const struct hgrm_row *rows, int32_t n,
		      const struct lat_hgrm_info *info)
{
	for (int32_t i = 1; i < n; i++)
		if (rows[i].count < rows[i - 1].count ||
		    rows[i].value < rows[i - 1].value ||
		    rows[i].percentile < rows[i - 1].percentile)
			return -LAT_EFORMAT;
	if (n && rows[0].count < 0)
		return -LAT_EFORMAT;
	if (info->has_footer &&
	    info->total_count != (n ? rows[n - 1].count : 0))
		return -LAT_EFORMAT;
	return 0;
}

int lat_hgrm_read(const char *text, size_t len, double scale,
		  struct lat_hgrm_info *info, struct lat_hist **out)
{
	const char *p = text, *end = text + len;
	struct hgrm_row *rows = NULL;
	int32_t nrows = 0, cap = 0;
	bool header = false;
	int decimals = -1, rc = 0, sig_figs;

	*out = NULL;
	memset(info, 0, sizeof(*info));
	info->mean = info->stddev = info->max = NAN;
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct span s = { p, nl ? nl : end };

		p = nl ? nl + 1 : end;
		s = span_trim(s);
		if (s.p == s.end)
			continue;
		if (*s.p == '#') {
			rc = parse_comment(s, info);
			continue;
		}
		if (!header) {
			info->csv = span_starts(s, "\"Value\"");
			if (!info->csv && !span_starts(s, "Value"))
				rc = -LAT_EFORMAT;
			header = true;
			continue;
		}
		if (nrows == cap) {
			int32_t ncap = cap ? cap * 2 : 64;
			struct hgrm_row *grown;

			if (ncap > HGRM_MAX_ROWS) {
				rc = -LAT_EFORMAT;
				break;
			}
			grown = realloc(rows, (size_t)ncap * sizeof(*rows));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			rows = grown;
			cap = ncap;
		}
		rc = parse_row(s, info->csv, &rows[nrows]);
		if (!rc) {
			if (decimals >= 0 && rows[nrows].decimals != decimals)
				rc = -LAT_EFORMAT;
			decimals = rows[nrows].decimals;
			nrows++;
		}
	}
	if (!rc && !header)
		rc = -LAT_EFORMAT;
	if (!rc && !nrows && !info->has_footer)
		rc = -LAT_ETRUNC;
	if (!rc)
		rc = check_rows(rows, nrows, info);
	sig_figs = sig_figs_from(info, decimals < 0 ? 3 : decimals);
	if (!rc && sig_figs < 0)
		rc = -LAT_EFORMAT;
	if (!rc && scale == 0)
		scale = info->ns_per_value > 0 ? info->ns_per_value : 1;
	if (!rc && (!(scale > 0) || !isfinite(scale)))
		rc = -EINVAL;
	if (!rc) {
		info->sig_figs = sig_figs;
		info->rows = nrows;
		if (!info->has_footer)
			info->total_count = nrows ? rows[nrows - 1].count : 0;
		for (int32_t i = 0; i < nrows; i++)
			if (rows[i].value != floor(rows[i].value))
				info->fractional_values = true;
		rc = rebuild(rows, nrows, scale, sig_figs, out);
	}
	free(rows);
	return rc;
}

/*
 * lat_lab: verdicts from run summaries. See include/latlab/lab.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"
#include "latlab/lab.h"
#include "latlab/stats.h"

const char *lat_lab_metric_name(enum lat_lab_metric m)
{
	switch (m) {
	case LAT_LAB_CTX_SWITCHES:
		return "ctx switches";
	case LAT_LAB_MIGRATIONS:
		return "migrations";
	case LAT_LAB_PAGE_FAULTS:
		return "page faults";
	case LAT_LAB_ALLOCATIONS:
		return "allocations";
	case LAT_LAB_RUN_DELAY:
		return "run-queue wait";
	case LAT_LAB_NMETRICS:
		break;
	}
	return "unknown";
}

/* Median of @n values (n <= 64 baseline runs is plenty); sorts a copy. */
static double median(const double *v, int n)
{
	double s[64];

	if (n > 64)
		n = 64;
	memcpy(s, v, (size_t)n * sizeof(double));
	return lat_median_sort(s, (size_t)n);
}

static double spread(const double *v, int n)
{
	double lo = v[0], hi = v[0];

	for (int i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return lo > 0 ? hi / lo : 1.0;
}

#define BASE_STAT(field)                                                     \
	do {                                                                 \
		for (int i = 0; i < k; i++)                                  \
			v[i] = base[i]->field;                               \
		b->field = median(v, k);                                     \
	} while (0)

int lat_lab_base_init(struct lat_lab_base *b, const struct lat_lab_row *rows,
		      int n)
{
	const struct lat_lab_row *base[64];
	double v[64];
	int k = 0;

	memset(b, 0, sizeof(*b));
	for (int i = 0; i < n && k < 64; i++)
		if (rows[i].baseline)
			base[k++] = &rows[i];
	if (k == 0)
		return 0;
	b->runs = k;
	BASE_STAT(p50);
	b->spread_p50 = spread(v, k);
	BASE_STAT(p99);
	b->spread_p99 = spread(v, k);
	BASE_STAT(p999);
	b->spread_p999 = spread(v, k);
	BASE_STAT(max);
	b->spread_max = spread(v, k);
	BASE_STAT(e2e_mean);
	b->achieved_lo = base[0]->achieved_rate;
	for (int i = 1; i < k; i++)
		if (base[i]->achieved_rate < b->achieved_lo)
			b->achieved_lo = base[i]->achieved_rate;
	b->n_parts = base[0]->n_parts;
	for (int p = 0; p < b->n_parts; p++)
		BASE_STAT(part_mean[p]);
	for (int m = 0; m < LAT_LAB_NMETRICS; m++) {
		b->has_metric[m] = true;
		b->metric_lo[m] = UINT64_MAX;
		for (int i = 0; i < k; i++) {
			uint64_t x = base[i]->metric[m];

			if (!base[i]->has_metric[m])
				b->has_metric[m] = false;
			if (x < b->metric_lo[m])
				b->metric_lo[m] = x;
			if (x > b->metric_hi[m])
				b->metric_hi[m] = x;
		}
		if (!b->has_metric[m])
			b->metric_lo[m] = b->metric_hi[m] = 0;
	}
	return k;
}

/* A throughput below this fraction of the slowest baseline run counts. */
#define THROUGHPUT_DROP 0.95

/*
 * How far a ratio must go to count: beyond the baseline's spread with a
 * margin (three runs estimate their spread loosely), and at least
 * LAT_LAB_MIN_RATIO.
 */
static double tolerance(double spread_of_baseline)
{
	double t = spread_of_baseline * LAT_LAB_SPREAD_MARGIN;

	return t > LAT_LAB_MIN_RATIO ? t : LAT_LAB_MIN_RATIO;
}

static double ratio(double x, double ref)
{
	return ref > 0 ? x / ref : (x > 0 ? 1e9 : 1.0);
}

static bool grew(double x, double ref, double spread_of_baseline)
{
	return ratio(x, ref) > tolerance(spread_of_baseline);
}

static bool shrank(double x, double ref, double spread_of_baseline)
{
	return ratio(x, ref) < 1.0 / tolerance(spread_of_baseline);
}

int lat_lab_where(const struct lat_lab_base *b, const struct lat_lab_row *r,
		  double *share)
{
	double growth = r->e2e_mean - b->e2e_mean, best = 0;
	int at = -1;

	if (share)
		*share = 0;
	if (b->runs == 0 || r->n_parts != b->n_parts || growth <= 0)
		return -1;
	/* the mean e2e is the sum of the parts' means: growth adds up */
	if (!grew(r->e2e_mean, b->e2e_mean, 1.0) &&
	    !grew(r->p999, b->p999, b->spread_p999) &&
	    !grew(r->p50, b->p50, b->spread_p50))
		return -1;
	for (int p = 0; p < r->n_parts; p++) {
		double g = r->part_mean[p] - b->part_mean[p];

		if (g > best) {
			best = g;
			at = p;
		}
	}
	if (at >= 0 && share)
		*share = best / growth > 1.0 ? 1.0 : best / growth;
	return at;
}

/* snprintf that appends at *used and keeps counting past the end. */
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*used < len ? buf + *used : NULL,
		      *used < len ? len - *used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n;
}

static void append_latency(char *buf, size_t len, size_t *used,
			   const struct lat_lab_base *b,
			   const struct lat_lab_row *r)
{
	double r50 = ratio(r->p50, b->p50), r999 = ratio(r->p999, b->p999);
	double rmax = ratio(r->max, b->max);

	if (grew(r->p50, b->p50, b->spread_p50))
		append(buf, len, used, "body shift: p50 ×%.1f, p99.9 ×%.1f",
		       r50, r999);
	else if (grew(r->p999, b->p999, b->spread_p999) ||
		 grew(r->p99, b->p99, b->spread_p99))
		append(buf, len, used, "tail disease: p99.9 ×%.1f, p99 ×%.1f, "
		       "p50 ×%.1f", r999, ratio(r->p99, b->p99), r50);
	else if (grew(r->max, b->max, b->spread_max))
		append(buf, len, used, "one-off outlier: max ×%.1f, p99.9 "
		       "×%.1f, p50 ×%.1f", rmax, r999, r50);
	else if (shrank(r->p50, b->p50, b->spread_p50) ||
		 shrank(r->p999, b->p999, b->spread_p999))
		append(buf, len, used, "faster than the baseline: p50 ×%.2f, "
		       "p99.9 ×%.2f", r50, r999);
	else
		append(buf, len, used, "latency within the baseline's "
		       "run-to-run spread: p50 ×%.2f, p99.9 ×%.2f", r50, r999);
	if (b->runs > 1)
		append(buf, len, used, " (baseline runs vary p99.9 ×%.1f)",
		       b->spread_p999);
}

/* A counter moved when it leaves the baseline's range by a margin. */
static bool metric_moved(const struct lat_lab_base *b,
			 const struct lat_lab_row *r, int m)
{
	uint64_t x = r->metric[m], hi = b->metric_hi[m], lo = b->metric_lo[m];
	uint64_t margin = m == LAT_LAB_ALLOCATIONS ? 0 :
			  m == LAT_LAB_RUN_DELAY ? 100000 : 10;

	if (!b->has_metric[m] || !r->has_metric[m])
		return false;
	if (x > hi)
		return x - hi > margin && (double)x > 1.5 * (double)hi;
	return lo - x > margin && (double)x < (double)lo / 1.5;
}

static void append_metrics(char *buf, size_t len, size_t *used,
			   const struct lat_lab_base *b,
			   const struct lat_lab_row *r)
{
	for (int m = 0; m < LAT_LAB_NMETRICS; m++) {
		uint64_t x = r->metric[m], ref = b->metric_hi[m];
		char t[LAT_FMT_LEN];

		if (!metric_moved(b, r, m))
			continue;
		if (x < ref)
			ref = b->metric_lo[m];
		if (m == LAT_LAB_RUN_DELAY) {
			lat_fmt_ns(t, sizeof(t), (double)(x > ref ? x - ref :
								    ref - x));
			append(buf, len, used, "; %s %c%s",
			       lat_lab_metric_name(m), x > ref ? '+' : '-', t);
		} else {
			uint64_t diff = x > ref ? x - ref : ref - x;

			append(buf, len, used, "; %s %c%llu",
			       lat_lab_metric_name(m), x > ref ? '+' : '-',
			       (unsigned long long)diff);
		}
		if (r->events && m != LAT_LAB_RUN_DELAY && x > ref)
			append(buf, len, used, " (%.2f/event)",
			       (double)x / (double)r->events);
	}
}

int lat_lab_fingerprint(const struct lat_lab_base *b,
			const struct lat_lab_row *r, char *buf, size_t len)
{
	size_t used = 0;
	double share;
	int where;

	if (len)
		buf[0] = '\0';
	if (b->runs == 0) {
		append(buf, len, &used, "no baseline to compare with");
		return (int)used;
	}
	append_latency(buf, len, &used, b, r);
	append_metrics(buf, len, &used, b, r);
	where = lat_lab_where(b, r, &share);
	if (where >= 0)
		append(buf, len, &used, "; %.0f%% of the mean e2e growth in %s",
		       100.0 * share, r->part[where]);
	/* short runs never quite reach the offered rate: judge against the
	 * slowest baseline run, not the offer */
	if (r->achieved_rate < THROUGHPUT_DROP * b->achieved_lo)
		append(buf, len, &used, "; throughput %.0f events/s, below "
		       "every baseline run (slowest %.0f)", r->achieved_rate,
		       b->achieved_lo);
	return (int)used;
}

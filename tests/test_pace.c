/*
 * Description: open-loop schedules. Fixed and bursty schedules never
 * drift (sequential next() equals the closed form, and the closed form is
 * within a cycle of n * interval far out); Poisson gaps have the asked-for
 * mean and an exponential distribution (Kolmogorov-Smirnov, generous
 * bound); schedules are reproducible from the seed. Fixed seeds, no
 * timing: nothing here waits on the clock except one already-due wait.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/pace.h"
#include "t_test.h"

static struct lat_clock_cal cal_from(double cycles_per_ns)
{
	struct lat_clock_cal cal;

	memset(&cal, 0, sizeof(cal));
	T_EQ_I64(lat_clock_cal_from_ratio(&cal, cycles_per_ns), 0);
	return cal;
}

static void test_init_errors(void)
{
	struct lat_clock_cal cal = cal_from(2.096), zero;
	struct lat_pace p, before;

	memset(&zero, 0, sizeof(zero));
	memset(&p, 0x5a, sizeof(p));
	before = p;
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 0, 1, &cal, 0, 1), -EINVAL);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, -5, 1, &cal, 0, 1), -EINVAL);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, NAN, 1, &cal, 0, 1),
		 -EINVAL);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, INFINITY, 1, &cal, 0, 1),
		 -EINVAL);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 1e-9, 1, &cal, 0, 1),
		 -EINVAL); /* one event per 30 years: interval too long */
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 1000, 4, &cal, 0, 1),
		 -EINVAL); /* a burst size only makes sense for bursty */
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_BURSTY, 1000, 0, &cal, 0, 1),
		 -EINVAL);
	T_EQ_I64(lat_pace_init(&p, (enum lat_pace_kind)7, 1000, 1, &cal, 0, 1),
		 -EINVAL);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 1000, 1, &zero, 0, 1),
		 -EINVAL);
	T_CHECK(!memcmp(&p, &before, sizeof(p)));
	T_CHECK(!strcmp(lat_pace_kind_name(LAT_PACE_POISSON), "poisson"));
	T_CHECK(!strcmp(lat_pace_kind_name((enum lat_pace_kind)7), "unknown"));
}

/*
 * 3 M events/s at 2.096 cycles/ns: 698.666... cycles, a fraction that
 * would lose a cycle every few thousand events if it were truncated and
 * accumulated. Sequential due times must equal the closed form, and the
 * closed form must match n * interval to a cycle out to n = 10^12.
 */
static void test_fixed_never_drifts(void)
{
	struct lat_clock_cal cal = cal_from(2.096);
	const lat_cycles_t start = 123456789;
	struct lat_pace p;
	long double interval;
	uint64_t mismatches = 0;

	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 3e6, 0, &cal, start, 1), 0);
	interval = (long double)p.interval_cycles;
	T_NEAR(p.interval_cycles, 2.096 * 1e9 / 3e6, 1e-9);
	for (uint64_t n = 0; n < 3000000; n++) {
		lat_cycles_t due = lat_pace_next(&p);

		mismatches += due != lat_pace_fixed_due(&p, n);
	}
	T_EQ_I64(mismatches, 0);
	T_EQ_I64(p.seq, 3000000);
	T_EQ_I64(lat_pace_fixed_due(&p, 0), start);
	for (uint64_t n = 1; n <= 1000000000000ull; n *= 10) {
		long double ideal = start + (long double)n * interval;
		lat_cycles_t due = lat_pace_fixed_due(&p, n);

		T_CHECK((long double)due <= ideal + 1 &&
			(long double)due >= ideal - 1);
	}
	/* Whole intervals are exact: 1 k/s at 3 cycles/ns = 3e6 cycles. */
	cal = cal_from(3.0);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 1000, 1, &cal, 0, 9), 0);
	T_EQ_I64(lat_pace_fixed_due(&p, 7777777), 7777777ull * 3000000);
}

static void test_bursty(void)
{
	struct lat_clock_cal cal = cal_from(2.5);
	struct lat_pace p;
	const uint32_t burst = 8;
	const uint64_t n_events = 800000;
	lat_cycles_t first;
	uint64_t mismatches = 0;

	T_EQ_I64(lat_pace_init(&p, LAT_PACE_BURSTY, 1e5, burst, &cal, 1000,
			       1), 0);
	/* The first burst is due at once, all of it; the next one a whole
	 * burst period (8 intervals of 25000 cycles) later. */
	for (uint32_t i = 0; i < burst; i++)
		T_EQ_I64(lat_pace_next(&p), 1000);
	T_EQ_I64(lat_pace_due(&p), 1000 + burst * 25000);
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_BURSTY, 3.3e5, burst, &cal, 0, 1),
		 0);
	first = lat_pace_due(&p);
	for (uint64_t n = 0; n < n_events; n++)
		mismatches += lat_pace_next(&p) != lat_pace_fixed_due(&p, n);
	T_EQ_I64(mismatches, 0);
	/* Same mean rate as fixed: n_events is a whole number of bursts. */
	T_NEAR((double)(lat_pace_due(&p) - first) / (double)n_events,
	       p.interval_cycles, 1e-6);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Kolmogorov-Smirnov distance between the sorted sample @g (n gaps) and
 * the exponential CDF with mean @mean.
 */
static double ks_exponential(const double *g, size_t n, double mean)
{
	double d = 0;

	for (size_t i = 0; i < n; i++) {
		double cdf = 1 - exp(-g[i] / mean);
		double lo = cdf - (double)i / (double)n;
		double hi = (double)(i + 1) / (double)n - cdf;

		d = fmax(d, fmax(lo, hi));
	}
	return d;
}

/*
 * 100 k/s at 3 cycles/ns: mean gap 30000 cycles, so the integer due
 * times resolve the gaps to 3e-5 of the mean. With n = 200000 the KS 1 %
 * critical value is 1.63 / sqrt(n) = 0.0036; the bound 0.01 is three
 * times that, yet a uniform or fixed gap misses it by a factor of ten.
 * The mean's standard error is 1/sqrt(n) = 0.22 %; the bound is 1 %.
 */
static void test_poisson_distribution(void)
{
	enum { N = 200000 };
	struct lat_clock_cal cal = cal_from(3.0);
	struct lat_pace p;
	double *gaps = malloc(N * sizeof(*gaps));
	double sum = 0, sumsq = 0, mean, sd;
	size_t below_mean = 0;
	lat_cycles_t prev;

	T_CHECK(gaps != NULL);
	if (!gaps)
		return;
	T_EQ_I64(lat_pace_init(&p, LAT_PACE_POISSON, 1e5, 1, &cal, 5, 42), 0);
	T_EQ_I64(lat_pace_next(&p), 5); /* event 0 is due at start */
	prev = 5;
	for (size_t i = 0; i < N; i++) {
		lat_cycles_t due = lat_pace_next(&p);

		T_CHECK(due >= prev);
		gaps[i] = (double)(due - prev);
		sum += gaps[i];
		sumsq += gaps[i] * gaps[i];
		below_mean += gaps[i] < p.interval_cycles;
		prev = due;
	}
	mean = sum / N;
	sd = sqrt(sumsq / N - mean * mean);
	T_NEAR(mean / p.interval_cycles, 1.0, 0.01);
	/* Exponential: sd == mean, P(gap < mean) = 1 - 1/e. */
	T_NEAR(sd / mean, 1.0, 0.03);
	T_NEAR((double)below_mean / N, 1 - exp(-1.0), 0.01);
	qsort(gaps, N, sizeof(*gaps), cmp_double);
	T_CHECK(ks_exponential(gaps, N, p.interval_cycles) < 0.01);
	/* The check has teeth: fixed gaps are nowhere near exponential. */
	for (size_t i = 0; i < N; i++)
		gaps[i] = p.interval_cycles;
	T_CHECK(ks_exponential(gaps, N, p.interval_cycles) > 0.3);
	free(gaps);
}

static void test_poisson_reproducible(void)
{
	struct lat_clock_cal cal = cal_from(2.096);
	struct lat_pace a, b, c;
	uint64_t differ_ab = 0, differ_ac = 0;

	T_EQ_I64(lat_pace_init(&a, LAT_PACE_POISSON, 2e5, 0, &cal, 0, 7), 0);
	T_EQ_I64(lat_pace_init(&b, LAT_PACE_POISSON, 2e5, 0, &cal, 0, 7), 0);
	T_EQ_I64(lat_pace_init(&c, LAT_PACE_POISSON, 2e5, 0, &cal, 0, 8), 0);
	for (int i = 0; i < 10000; i++) {
		lat_cycles_t x = lat_pace_next(&a);

		differ_ab += x != lat_pace_next(&b);
		differ_ac += x != lat_pace_next(&c);
	}
	T_EQ_I64(differ_ab, 0);
	T_CHECK(differ_ac > 9000);
	T_EQ_I64(lat_pace_fixed_due(&a, 5), 0); /* no closed form: 0 */
}

/* An already-due event releases at once, at or after its due time. */
static void test_wait_when_late(void)
{
	struct lat_clock_cal cal = cal_from(2.0);
	struct lat_pace p;
	lat_cycles_t now = lat_clock_now();

	T_EQ_I64(lat_pace_init(&p, LAT_PACE_FIXED, 1e3, 1, &cal, now - 100,
			       0), 0);
	T_CHECK(lat_pace_wait(&p) >= now - 100);
	T_EQ_I64(p.seq, 0); /* wait does not advance */
}

int main(void)
{
	test_init_errors();
	test_fixed_never_drifts();
	test_bursty();
	test_poisson_distribution();
	test_poisson_reproducible();
	test_wait_when_late();
	T_DONE();
}

/*
 * Description: stage work-time distributions: parsing (and refusals), the
 * drawn table's mean (exact by construction), its cv against the
 * distribution's, reproducibility from the seed, and the conversion of
 * times to chain steps. The timed check inside lat_work_table_init runs
 * but its figure is not asserted: timing is for benchmarks.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latlab/work.h"
#include "t_test.h"

static void test_parse(void)
{
	struct lat_work_dist d;
	const char *why;
	static const char *bad[] = { "", "foo", "exp:1", "lognormal:",
				     "lognormal:0", "lognormal:-1",
				     "lognormal:x", "bimodal:0.1",
				     "bimodal:0.1:", "bimodal:1:5us",
				     "bimodal:0:5us", "bimodal:0.1:5",
				     "bimodal:0.1:5parsecs", "bimodal:0.1:2s",
				     "detx", "lognormal:nan",
				     "lognormal: 1.5", "lognormal:0x1p0",
				     "bimodal:0.1: 5us" };

	T_CHECK(lat_work_dist_parse(&d, "det") == 0 && d.kind == LAT_WORK_DET);
	T_CHECK(lat_work_dist_parse(&d, "exp") == 0 && d.kind == LAT_WORK_EXP);
	T_CHECK(lat_work_dist_parse(&d, "lognormal:1.5") == 0 &&
		d.kind == LAT_WORK_LOGNORMAL && d.cv == 1.5);
	T_CHECK(lat_work_dist_parse(&d, "bimodal:0.01:50us") == 0 &&
		d.kind == LAT_WORK_BIMODAL && d.p_slow == 0.01 &&
		d.slow_ns == 50000 && !strcmp(d.name, "bimodal:0.01:50us"));
	T_CHECK(lat_work_dist_parse(&d, "bimodal:0.01:0.05ms") == 0 &&
		d.slow_ns == 50000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lat_work_dist_parse(&d, bad[i]) != -EINVAL) {
			fprintf(stderr, "accepted '%s'\n", bad[i]);
			t_failures++;
		}
	/* bimodal must be able to keep its mean */
	T_CHECK(lat_work_dist_parse(&d, "bimodal:0.5:3us") == 0);
	/* fast = (2000 - 0.5 * 3000) / 0.5 = 1000 */
	T_CHECK(lat_work_dist_check(&d, 2000, &why) == 0 && !why);
	T_NEAR(lat_work_dist_cv(&d, 2000), 0.5, 1e-12);
	T_CHECK(lat_work_dist_check(&d, 3000, &why) == -EINVAL && why);
	T_CHECK(lat_work_dist_check(&d, 1500, &why) == -EINVAL && why);
	T_CHECK(lat_work_dist_parse(&d, "bimodal:0.25:3us") == 0);
	T_CHECK(lat_work_dist_check(&d, 2000, NULL) == 0);
	/* fast = (2000 - 750) / 0.75 = 5000/3; E[X^2] = .25*9e6 + .75*25e6/9 */
	T_NEAR(lat_work_dist_cv(&d, 2000),
	       sqrt(0.25 * 9e6 + 0.75 * 25e6 / 9 - 4e6) / 2000, 1e-12);
	memset(&d, 0, sizeof(d));
	T_CHECK(lat_work_dist_check(&d, 0, NULL) == 0); /* zeroed is det */
}

/* A made-up calibration: 1 ns per step, 1000 steps for 1 us. */
static void fake_work(struct lat_work *w)
{
	memset(w, 0, sizeof(*w));
	w->target_ns = 1000;
	w->steps = 1000;
	w->ns_per_step = 1;
}

static void table(const char *spec, double cv, double cv_tol,
		  const struct lat_clock_cal *cal)
{
	struct lat_work_dist d;
	struct lat_work w;
	struct lat_work_table t, u;
	double sum = 0;

	fake_work(&w);
	T_CHECK(lat_work_dist_parse(&d, spec) == 0);
	T_EQ_I64(lat_work_table_init(&t, &d, &w, 42, cal), 0);
	T_EQ_I64(lat_work_table_init(&u, &d, &w, 42, cal), 0);
	if (!t.steps || !u.steps)
		return;
	/* one step per ns from 0 ns: steps are the drawn times, rounded */
	for (size_t i = 0; i < LAT_WORK_TABLE_LEN; i++)
		sum += (double)t.steps[i];
	T_NEAR(sum / LAT_WORK_TABLE_LEN, 1000, 0.5);
	T_NEAR(t.mean_ns, sum / LAT_WORK_TABLE_LEN, 1e-9);
	T_EQ_I64(t.raised, 0);
	T_NEAR(t.cv, cv, cv_tol);
	T_CHECK(memcmp(t.steps, u.steps,
		       LAT_WORK_TABLE_LEN * sizeof(*t.steps)) == 0);
	T_CHECK(lat_work_table_steps(&t, LAT_WORK_TABLE_LEN + 5) ==
		t.steps[5]);
	T_CHECK(t.checked >= 256 && isfinite(t.check_error));
	lat_work_table_destroy(&u);
	T_EQ_I64(lat_work_table_init(&u, &d, &w, 43, cal), 0);
	T_CHECK((memcmp(t.steps, u.steps,
			LAT_WORK_TABLE_LEN * sizeof(*t.steps)) != 0) ==
		(cv > 0)); /* det draws nothing */
	lat_work_table_destroy(&t);
	lat_work_table_destroy(&t);
	lat_work_table_destroy(&u);
}

/* Draws below the stamp overhead cannot run: raised to 0 and counted. */
static void test_raised(const struct lat_clock_cal *cal)
{
	struct lat_work_dist d;
	struct lat_work w;
	struct lat_work_table t;

	fake_work(&w);
	w.steps = 900; /* 100 ns of overhead: draws under 100 ns are raised */
	T_CHECK(lat_work_dist_parse(&d, "exp") == 0);
	T_EQ_I64(lat_work_table_init(&t, &d, &w, 7, cal), 0);
	/* P(X < 100 ns) = 1 - e^-0.1 = 9.5% of 65536 draws */
	T_NEAR((double)t.raised / LAT_WORK_TABLE_LEN, 1 - exp(-0.1), 0.01);
	T_CHECK(t.mean_ns > 1000); /* raising adds time */
	lat_work_table_destroy(&t);
	/* det has no table; a target of 0 cannot have a distribution */
	w.target_ns = 0;
	T_EQ_I64(lat_work_table_init(&t, &d, &w, 7, cal), -EINVAL);
}

int main(void)
{
	struct lat_clock_cal cal;

	T_CHECK(lat_clock_calibrate(&cal, 20) == 0);
	test_parse();
	table("exp", 1, 0.02, &cal);
	table("lognormal:0.5", 0.5, 0.02, &cal);
	table("bimodal:0.01:50us", sqrt(0.01 * 2.5e9 +
				0.99 * pow(50000.0 / 99, 2) - 1e6) / 1000,
	      5e-3, &cal);
	table("det", 0, 0, &cal);
	test_raised(&cal);
	T_DONE();
}

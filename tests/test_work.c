/*
 * Description: lat_work on its own: the chain is a pure function of
 * (steps, seed) and every step changes it (no step can be folded away);
 * calibration refuses bad input, asks for no steps when no work is asked,
 * and reports a positive slope; lat_work_check's verdicts at the edges of
 * LAT_WORK_TOLERANCE. No timing is asserted.
 */
#include <errno.h>
#include <string.h>

#include "latlab/work.h"
#include "t_test.h"

static void test_chain(void)
{
	uint64_t a = lat_work_run(1000, 7), b = lat_work_run(1000, 7);

	T_EQ_I64(a, b);                           /* deterministic */
	T_CHECK(lat_work_run(1001, 7) != a);      /* one more step shows */
	T_CHECK(lat_work_run(1000, 9) != a);      /* the seed shows */
	T_EQ_I64(lat_work_run(0, 6), 7);          /* no steps: seed | 1 */
	/* each step is (x * M) ^ (x >> 29) */
	T_EQ_I64(lat_work_run(1, 1),
		 (1 * 0x9e3779b97f4a7c15ULL) ^ (1 >> 29));
}

static void test_calibrate(void)
{
	struct lat_clock_cal cal, zero;
	struct lat_work w;

	memset(&zero, 0, sizeof(zero));
	T_EQ_I64(lat_clock_calibrate(&cal, 20), 0);
	T_EQ_I64(lat_work_calibrate(&w, -1, &cal), -EINVAL);
	T_EQ_I64(lat_work_calibrate(&w, 2e9, &cal), -EINVAL);
	T_EQ_I64(lat_work_calibrate(&w, 100, &zero), -EINVAL);
	T_EQ_I64(lat_work_calibrate(NULL, 100, &cal), -EINVAL);
	T_EQ_I64(lat_work_calibrate(&w, 0, &cal), 0);
	T_EQ_I64(w.steps, 0);
	T_EQ_I64(w.target_ns, 0);
	T_CHECK(w.ns_per_step > 0);
	T_EQ_I64(lat_work_check(&w), LAT_WORK_OK); /* nothing asked */
	T_EQ_I64(lat_work_calibrate(&w, 5000, &cal), 0);
	T_NEAR(w.target_ns, 5000, 0);
	T_CHECK(w.ns_per_step > 0 && w.check_p50_ns > 0);
	T_NEAR(w.check_error, w.check_p50_ns / 5000 - 1, 1e-12);
}

/* The printed line carries the verdict's reason; OK prints nothing. */
static void test_check_print(struct lat_work *w)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	T_CHECK(f != NULL);
	w->check_p50_ns = 30;
	T_EQ_I64(lat_work_check_print(f, w), LAT_WORK_BELOW_OVERHEAD);
	fflush(f);
	T_CHECK(strstr(buf, "asked (+200%): below the stamp "
		       "pair's own 30 ns\n") != NULL);
	w->check_error = 0;
	rewind(f);
	buf[0] = '\0';
	T_EQ_I64(lat_work_check_print(f, w), LAT_WORK_OK);
	fflush(f);
	T_CHECK(buf[0] == '\0');
	fclose(f);
	w->check_error = 2;
}

static void test_check(void)
{
	struct lat_work w = { .target_ns = 1000, .overhead_ns = 30 };

	w.check_error = LAT_WORK_TOLERANCE;
	T_EQ_I64(lat_work_check(&w), LAT_WORK_OK);
	w.check_error = -LAT_WORK_TOLERANCE - 1e-9;
	T_EQ_I64(lat_work_check(&w), LAT_WORK_MISSED);
	w.target_ns = 10; /* below the stamps' own 30 ns */
	w.check_error = 2;
	T_EQ_I64(lat_work_check(&w), LAT_WORK_BELOW_OVERHEAD);
	T_CHECK(!strcmp(lat_work_verdict_name(LAT_WORK_OK), "ok"));
	test_check_print(&w);
	T_CHECK(!strcmp(lat_work_verdict_name(LAT_WORK_BELOW_OVERHEAD),
			"below_overhead"));
}

int main(void)
{
	test_chain();
	test_calibrate();
	test_check();
	T_DONE();
}

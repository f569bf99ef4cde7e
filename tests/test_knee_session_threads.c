/*
 * Description: lat_knee_session_run, the whole of `latlab knee` as one
 * call, on the real pipeline: a stop during the wake-up floor ends it
 * with -EINTR before any point (the progress says what it was doing),
 * and a mean work far under 20 x any floor (500 ns; a hand-off between
 * cores alone costs more than 25 ns) is refused as data (-ECANCELED,
 * LAT_KNEE_WORK_BELOW_FLOOR) unless forced. Priorities are left alone
 * (stage_nice 0) and the sweep is one short point.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/knee.h"
#include "t_test.h"

static bool stop_now(void *ctx, uint64_t produced, double elapsed_s)
{
	(void)ctx;
	(void)produced;
	(void)elapsed_s;
	return true;
}

static void report(struct lat_knee_report *r)
{
	memset(r, 0, sizeof(*r));
	lat_pipe_config_init(&r->base);
	r->base.arrivals = LAT_PACE_POISSON;
	lat_knee_config_init(&r->kc);
	T_EQ_I64(lat_knee_config_parse_rhos(&r->kc, "0.3,0.4", (char[64]){ 0 },
					    64), 0);
	r->kc.point_s = 0.05;
	r->kc.sim.customers = 2000;
	r->kc.sim.warmup = 200;
	r->kp.stage_nice = 0;
}

int main(void)
{
	static struct lat_knee_report r;
	struct lat_work_dist d;
	struct lat_knee_session s = { .rep = &r, .dists = &d, .n_dists = 1,
				      .prefix = "k: " };
	char *text = NULL;
	size_t len = 0;
	int rc;

	T_EQ_I64(lat_work_dist_parse(&d, "det"), 0);
	report(&r);
	s.stop = stop_now;
	s.progress = open_memstream(&text, &len);
	rc = lat_knee_session_run(&s);
	fclose(s.progress);
	if (rc == -ENODEV || rc == -EPERM)
		T_SKIP("the pipeline cannot be placed here");
	T_EQ_I64(rc, -EINTR);
	T_CHECK(!s.swept);
	T_CHECK(strstr(text, "k: measuring the wake-up floor") != NULL);
	T_CHECK(r.n_runs == 0);
	free(text);

	report(&r);
	r.base.work_ns = 500;
	s.stop = NULL;
	s.work_set = true;
	s.progress = open_memstream(&text, &len);
	rc = lat_knee_session_run(&s);
	fclose(s.progress);
	T_EQ_I64(rc, -ECANCELED);
	T_EQ_I64(s.verdict, LAT_KNEE_WORK_BELOW_FLOOR);
	T_CHECK(r.floor_ns > 25);
	T_CHECK(!s.swept);
	T_CHECK(strstr(text, "stage 1 work 500 ns") != NULL);
	free(text);
	T_DONE();
}

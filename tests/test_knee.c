/*
 * Description: the knee sweep's bookkeeping with a fake pipeline whose
 * queue is known exactly: arrivals in pairs 50 cycles apart, one pair per
 * period P = 200 / rho, services 120 then 80 (tau = 100, c_s = 0.2), so
 * the second of each pair waits exactly 70 and the first never waits.
 * Checks rho (busy / wall), c_a (from the gaps), c_s, W_q (mean, p99,
 * P(W > 0)), e2e, the wake-up floor, the tau calibration, the rate and
 * event count asked of each run, Kingman and P-K beside them, a dropped
 * sample (unchained, counted), and a stop that keeps finished points.
 * One cycle is one ns here (cycles_per_ns = 1), so every figure is exact.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "latlab/knee.h"
#include "t_test.h"

struct fake {
	struct lat_knee_req reqs[16];
	int n_reqs;
	int stop_at;       /* point index whose run is stopped, -1 none */
	int64_t drop_seq;  /* a sample the "pipeline" loses, -1 none */
	double slow;       /* > 0: the period follows the rate asked, this
			    * much longer (a stage slower than thought) */
};

/* pickup 10 cycles before the work, pace 5, consumer 7 after */
static void event(struct lat_knee_acc *a, uint64_t seq, uint64_t arr,
		  uint64_t free_at, uint64_t s)
{
	uint64_t b = free_at + 10, d = free_at + s;

	lat_knee_acc_add(a, seq, arr - 5, arr, b, d, d + 7);
}

static int fake_run(void *ctx, const struct lat_knee_req *q,
		    struct lat_knee_acc *a, struct lat_knee_info *info)
{
	struct fake *f = ctx;
	uint64_t t = 1000;

	f->reqs[f->n_reqs++] = *q;
	info->cycles_per_ns = 1;
	info->loadavg = 0.5;
	info->steal_pct = 0;
	if (q->phase == LAT_KNEE_FLOOR) {
		/* idle stage, work 0: the pickup (50) is the whole service */
		for (uint64_t i = 0; i < q->events; i++, t += 1000)
			lat_knee_acc_add(a, i, t, t, t + 50, t + 50, t + 60);
		return 0;
	}
	if (q->phase == LAT_KNEE_CALIBRATE) {
		/* all due at once: back to back, 100 each */
		for (uint64_t i = 0; i < q->events; i++)
			event(a, i, t, t + 100 * i, 100);
		return 0;
	}
	if ((int)q->index == f->stop_at)
		return 1;
	for (uint64_t i = 0; i < q->events; i++) {
		double period = f->slow > 0 ? 2e9 / q->rate * f->slow :
				200 / q->rho_asked;
		uint64_t p = (uint64_t)llround(period) * (i / 2) + t;

		if ((int64_t)i == f->drop_seq)
			continue;
		if (i % 2 == 0)
			event(a, i, p, p, 120);
		else
			event(a, i, p + 50, p + 120, 80);
	}
	return 0;
}

static void config(struct lat_knee_config *c)
{
	lat_knee_config_init(c);
	c->tau_ns = 100;
	c->point_s = 1e-4;     /* rate * 1e-4 s: a few hundred events */
	c->min_events = 100;
	c->sim.customers = 20000;
	c->sim.warmup = 2000;
}

/*
 * Point @p of a pair-periodic run of @n events at period P: m1 firsts of
 * a pair (service 120, no wait), m2 seconds (service 80, wait 70).
 */
static void check_point(const struct lat_knee_point *p, uint64_t n,
			double period)
{
	double m2 = (double)(n / 2), m1 = (double)n - m2;
	double busy = 120 * m1 + 80 * m2, tau = busy / (double)n;
	/* first A to last D: the last pair's start plus 200, or 120 when
	 * the run ends on a first */
	double wall = period * (m1 - 1) + (n % 2 ? 120 : 200);
	/* n - 1 gaps: m2 of 50 (into a second), m1 - 1 of period - 50 */
	double g2 = (period - 50) * (period - 50);
	double gm = (50 * m2 + (period - 50) * (m1 - 1)) / (double)(n - 1);
	double gsq = (2500 * m2 + g2 * (m1 - 1)) / (double)(n - 1);
	double ssq = (14400 * m1 + 6400 * m2) / (double)n;
	double cs = sqrt(ssq - tau * tau) / tau;

	T_EQ_I64(p->events, n);
	T_EQ_I64(p->unchained, 0);
	T_NEAR(p->rho, busy / wall, 1e-12);
	T_NEAR(p->tau_ns, tau, 1e-12);
	T_NEAR(p->cs, cs, 1e-12);
	T_CHECK(n % 2 || fabs(cs - 0.2) < 1e-12);
	T_NEAR(p->ca, sqrt(gsq - gm * gm) / gm, 1e-9);
	T_NEAR(p->wait.mean, 70 * m2 / (double)n, 1e-12);
	T_NEAR(p->wait_tau, 70 * m2 / (double)n / tau, 1e-12);
	T_NEAR(p->p_wait, m2 / (double)n, 1e-12);
	T_NEAR(p->wait.p50, 0, 1e-12);
	T_NEAR(p->wait.p99, 70, 1e-12);
	/* batches of an odd length hold 0s and 70s in unequal numbers:
	 * a narrow interval, never a wide one */
	T_CHECK(p->wait_half >= 0 && p->wait_half < 3.5);
	/* e2e = pace 5 + W + S + 7: 132 and 162 */
	T_NEAR(p->e2e.p50, 132, 1e-12);
	T_NEAR(p->e2e.p99, 162, 1e-12);
	T_NEAR(p->pickup_p50_ns, 10, 1e-12);
	T_NEAR(p->kingman_ns, lat_qsim_kingman(p->rho, p->ca, cs) * tau,
	       1e-9);
	T_NEAR(p->pk_ns, lat_qsim_pk(p->rho, cs) * tau, 1e-9);
	T_CHECK(isfinite(p->sim_ns) && p->sim_ns > 0);
	/* The trace-fed simulation keeps the gaps (50, then P - 50) and
	 * draws each service from {120, 80}: a second waits 70 or 30, 50
	 * on average, a first never (P >= 250 clears the pair); 32
	 * replications of hundreds of events: within a few cycles */
	T_NEAR(p->sim_trace_ns, 50 * m2 / (double)n, 3);
	T_CHECK(p->sim_trace_half > 0 && p->sim_trace_half < 3);
	T_NEAR(p->log_err[LAT_KNEE_PRED_KINGMAN],
	       log(p->kingman_ns / p->wait.mean), 1e-12);
	T_NEAR(p->log_err[LAT_KNEE_PRED_SIM], log(p->sim_ns / p->wait.mean),
	       1e-12);
	T_NEAR(p->log_err[LAT_KNEE_PRED_TRACE],
	       log(p->sim_trace_ns / p->wait.mean), 1e-12);
	/* The replays: in measured order Lindley gives the measured mean
	 * exactly; the firsts of the pairs found the stage idle (S 120),
	 * the seconds queued (S 80); the gaps alternate 50, P - 50 (lag-1
	 * correlation -1 up to the ends); shuffling the services puts an
	 * 80 first half the time, so the second then waits 30, not 70:
	 * mean 25 of 35 per pair on average (8 permutations of hundreds
	 * of events: well under 33). */
	T_EQ_I64(p->attr.n, n);
	T_NEAR(p->attr.replay_ns, p->wait.mean, 1e-12);
	T_NEAR(p->attr.svc_idle_ns, 120, 1e-12);
	T_CHECK(n < 2 || fabs(p->attr.svc_busy_ns - 80) < 1e-12);
	T_CHECK(p->attr.gap_lag1 < -0.9);
	/* W + S is 120 before a gap of 50 and 150 before one of P - 50:
	 * the backlog and the next gap rise together exactly */
	T_CHECK(n < 4 || p->attr.backlog_gap_corr > 0.999);
	T_CHECK(p->attr.svc_shuffled_ns < 33 * m2 / (double)n * 2);
	T_CHECK(p->attr.svc_shuffled_ns < p->wait.mean);
	T_CHECK(p->closer != LAT_KNEE_CLOSER_NONE);
	T_CHECK(p->why != LAT_KNEE_WHY_NONE);
}

/*
 * The reasons from hand-made replays: an order effect counts only beyond
 * 2.5 spreads of the random orders and 3% of the wait. The simulator far
 * above a measurement whose services' order removed wait (long services
 * after idle) is "wake-up"; the gaps' order adding wait is "bunched",
 * even inside the intervals; an effect within the spread of random
 * orders is chance ("agree" inside the intervals, "sample" outside);
 * the closer prediction, and a tie within the measurement's interval.
 */
static void test_explain(void)
{
	struct lat_knee_point p;

	memset(&p, 0, sizeof(p));
	p.wait.mean = 100;
	p.wait_half = 5;
	p.sim_half = 1;
	p.attr.n = 1000;
	p.attr.svc_shuffled_ns = 150; /* order removed 50: z = -10 */
	p.attr.svc_shuffled_sd_ns = 5;
	p.attr.gap_shuffled_ns = 105; /* z = -1: chance */
	p.attr.gap_shuffled_sd_ns = 5;
	p.attr.both_shuffled_ns = 152;
	p.attr.svc_idle_ns = 130;
	p.attr.svc_busy_ns = 90;
	p.sim_ns = 150;
	p.kingman_ns = 120;
	lat_knee_point_explain(&p);
	T_CHECK(p.why == LAT_KNEE_WHY_WAKEUP);
	T_NEAR(p.attr.svc_z, -10, 1e-12);
	T_CHECK(p.closer == LAT_KNEE_CLOSER_KINGMAN);
	p.attr.svc_idle_ns = 80; /* long services not after idle */
	lat_knee_point_explain(&p);
	T_CHECK(p.why == LAT_KNEE_WHY_ORDER);
	p.attr.svc_shuffled_ns = 98;
	p.attr.gap_shuffled_ns = 60; /* the gaps' order added 40: z = 8 */
	p.attr.both_shuffled_ns = 59;
	p.sim_ns = 58;
	lat_knee_point_explain(&p);
	T_CHECK(p.why == LAT_KNEE_WHY_BUNCHED);
	p.sim_ns = 103; /* within sqrt(5^2 + 1^2): the bias still named */
	lat_knee_point_explain(&p);
	T_CHECK(p.sim_within_ci && p.why == LAT_KNEE_WHY_BUNCHED);
	T_CHECK(p.closer == LAT_KNEE_CLOSER_SIM);
	p.attr.gap_shuffled_ns = 112; /* removed 12, z = -6 */
	p.attr.gap_shuffled_sd_ns = 2;
	lat_knee_point_explain(&p);
	T_CHECK(p.why == LAT_KNEE_WHY_SPREAD);
	p.attr.gap_shuffled_sd_ns = 10; /* the same 12 is z = -1.2: chance */
	lat_knee_point_explain(&p);
	T_CHECK(p.why == LAT_KNEE_WHY_AGREE);
	p.kingman_ns = 96; /* errors 4 and 3: within the half-width 5 */
	lat_knee_point_explain(&p);
	T_CHECK(p.closer == LAT_KNEE_CLOSER_TIE);
	p.sim_ns = 200; /* nothing beyond chance, outside the intervals */
	lat_knee_point_explain(&p);
	T_CHECK(p.why == LAT_KNEE_WHY_SAMPLE);
	T_CHECK(strcmp(lat_knee_why_name(LAT_KNEE_WHY_BUNCHED),
		       "bunched_sends") == 0);
}

static void test_sweep(void)
{
	struct fake f = { .stop_at = -1, .drop_seq = -1 };
	struct lat_knee_runner r = { &f, fake_run };
	struct lat_knee_config c;
	struct lat_knee_sweep *s = calloc(1, sizeof(*s));
	struct lat_knee_cal cal;
	double floor_ns;

	T_EQ_I64(lat_knee_floor(&r, 1000, 500, &floor_ns), 0);
	T_NEAR(floor_ns, 50, 1e-12);
	T_EQ_I64(lat_knee_calibrate(&r, 1e9, 1000, 9, &cal), 0);
	T_NEAR(cal.tau_ns, 100, 1e-12);
	T_NEAR(cal.cs, 0, 1e-12);
	/* back to back: one event found the stage idle, all S = 100 */
	T_NEAR(cal.tau_queued_ns, 100, 1e-12);
	T_NEAR(cal.wake_ns, 0, 1e-12);
	T_CHECK(f.reqs[0].phase == LAT_KNEE_FLOOR &&
		f.reqs[1].phase == LAT_KNEE_CALIBRATE);
	T_EQ_I64(f.reqs[1].seed, 9);

	config(&c);
	T_EQ_I64(lat_knee_config_span(&c, 0.5, 0.8, 4), 0);
	f.n_reqs = 0;
	T_EQ_I64(lat_knee_sweep_run(&c, &r, s, NULL, NULL), 0);
	T_EQ_I64(s->done, 4);
	T_CHECK(!s->interrupted);
	for (size_t i = 0; i < s->done; i++) {
		/* the level: 100 calibrated, then the mean tau of the points
		 * before (wake 0), weighted by their events; from three
		 * points on a fitted line, through taus of 100 and 100.07
		 * (an odd count ends on a first of a pair): checked apart */
		double level = 100, sum = 0, nev = 0;

		for (size_t j = 0; j < i; j++) {
			sum += s->pts[j].tau_ns * (double)s->pts[j].events;
			nev += (double)s->pts[j].events;
		}
		if (nev > 0)
			level = sum / nev;
		double rate = c.rho[i] / level * 1e9;
		uint64_t n = (uint64_t)ceil(rate * 1e-4);

		/* the run asked for rho / tau, for point_s seconds */
		T_NEAR(f.reqs[i].rate, rate, i < 3 ? 1e-6 : 2e-3 * rate);
		T_CHECK(i < 3 || f.reqs[i].events - n + 1 <= 2);
		T_CHECK(i >= 3 || f.reqs[i].events == n);
		T_NEAR(s->pts[i].rate, f.reqs[i].rate, 0);
		n = f.reqs[i].events;
		T_NEAR(s->pts[i].rho_asked, c.rho[i], 0);
		/* each point its own arrival path */
		T_EQ_I64(f.reqs[i].seed, lat_knee_point_seed(c.seed, i));
		for (size_t k = 0; k < i; k++)
			T_CHECK(f.reqs[k].seed != f.reqs[i].seed);
		check_point(&s->pts[i], n, (double)llround(200 / c.rho[i]));
	}
	T_EQ_I64(s->score.n, 4);
	/* the wake-up in the service of an idle-found event: 1 - rho of
	 * the events pay it, so the rate is rho / (tau + (1 - rho) wake) */
	c.wake_ns = 20;
	T_NEAR(lat_knee_point_rate(&c, 0), 0.5 / (100 + 0.5 * 20) * 1e9,
	       1e-6);
	/* the level from the points: the firsts of the pairs found the
	 * stage idle and took 120, the seconds queued and took 80; with
	 * that wake-up of 40 the level is 80 at every point, odd or even */
	c.tau_ns = 1000;
	c.wake_ns = 40;
	s->done = 2; /* two points: the level */
	lat_knee_sweep_adapt(&c, s);
	T_NEAR(c.tau_ns, 80, 1e-9);
	T_NEAR(c.wake_ns, 40, 0);
	/* three over 0.4 of rho on the line tau = 120 - 50 rho: fitted,
	 * tau_ns 70 at rho 1 and 50 more at rho 0 */
	for (size_t i = 0; i < 3; i++) {
		s->pts[i].rho = 0.2 + 0.2 * (double)i;
		s->pts[i].tau_ns = 120 - 50 * s->pts[i].rho;
		s->pts[i].events = 1000 + 300 * i;
	}
	/* two points whose idle-found events paid more than the whole
	 * mean (a wake-up of 300 on services of 100): no level from the
	 * split, the plain mean and no wake-up */
	s->done = 2;
	c.wake_ns = 300;
	lat_knee_sweep_adapt(&c, s);
	T_NEAR(c.tau_ns, (110 * 1000 + 100 * 1300) / 2300.0, 1e-9);
	T_NEAR(c.wake_ns, 0, 0);
	T_EQ_I64(lat_knee_config_check(&c, NULL), 0);
	s->done = 3;
	lat_knee_sweep_adapt(&c, s);
	T_NEAR(c.tau_ns, 70, 1e-9);
	T_NEAR(c.wake_ns, 50, 1e-9);
	c.rho[0] = 0.8;
	T_NEAR(lat_knee_point_rate(&c, 0), 0.8 / 80 * 1e9, 1e-3);
	/* a flat W_q/tau of about 0.35 never bends */
	T_CHECK(isnan(s->knee_measured));
	free(s);
}

static void test_drop_and_stop(void)
{
	struct fake f = { .stop_at = 2, .drop_seq = 7 };
	struct lat_knee_runner r = { &f, fake_run };
	struct lat_knee_config c;
	struct lat_knee_sweep *s = calloc(1, sizeof(*s));

	config(&c);
	T_EQ_I64(lat_knee_config_span(&c, 0.5, 0.8, 4), 0);
	T_EQ_I64(lat_knee_sweep_run(&c, &r, s, NULL, NULL), 0);
	/* the stopped point and the ones after it are not kept */
	T_CHECK(s->interrupted);
	T_EQ_I64(s->done, 2);
	T_EQ_I64(f.n_reqs, 3);
	/* seq 7 lost: seq 8 cannot be chained (D_7 unknown) and is
	 * counted; the others are all there */
	T_EQ_I64(s->pts[0].unchained, 1);
	T_EQ_I64(s->pts[0].events + s->pts[0].unchained + 1,
		 f.reqs[0].events);
	free(s);
}

/* Stops after @n asks. */
static bool stop_after(void *ctx)
{
	int *n = ctx;

	return --*n < 0;
}

/*
 * The score over hand-made points: mean and largest |ln error|, the
 * closest per point, and the gain of each simulator over Kingman with a
 * t-interval: consistent gains decide, scattered ones do not. And the
 * histogram-fed simulation, the trace-fed one and the replays each stop
 * when asked.
 */
static void test_score_and_stop(void)
{
	struct lat_knee_sweep *s = calloc(1, sizeof(*s));
	struct fake f = { .stop_at = -1, .drop_seq = -1 };
	struct lat_knee_runner r = { &f, fake_run };
	struct lat_knee_req q = { LAT_KNEE_POINT, 5e6, 400, 0, 0.5, 1 };
	struct lat_knee_info info;
	struct lat_knee_point p;
	struct lat_knee_acc a;
	struct lat_qsim_config sim;
	struct lat_qsim_result res;
	const double k[4] = { 0.10, -0.12, 0.08, 0.11 };
	const double t[4] = { 0.01, 0.02, -0.015, 0.005 };
	const double m[4] = { 0.05, -0.30, 0.20, 0.02 };
	int n, asks;

	T_CHECK(s != NULL);
	s->done = 5;
	for (int i = 0; i < 4; i++) {
		s->pts[i].log_err[LAT_KNEE_PRED_KINGMAN] = k[i];
		s->pts[i].log_err[LAT_KNEE_PRED_SIM] = m[i];
		s->pts[i].log_err[LAT_KNEE_PRED_TRACE] = t[i];
	}
	s->pts[4].log_err[LAT_KNEE_PRED_KINGMAN] = NAN; /* not scored */
	lat_knee_sweep_score(s);
	T_EQ_I64(s->score.n, 4);
	T_NEAR(s->score.mean_abs_log[LAT_KNEE_PRED_KINGMAN], 0.1025, 1e-12);
	T_NEAR(s->score.max_abs_log[LAT_KNEE_PRED_SIM], 0.30, 1e-12);
	T_NEAR(s->score.mean_abs_log[LAT_KNEE_PRED_TRACE], 0.0125, 1e-12);
	T_EQ_I64(s->score.closest[LAT_KNEE_PRED_TRACE], 4);
	/* gains 0.09, 0.10, 0.065, 0.105: mean 0.09, sd 0.0178 */
	T_NEAR(s->score.gain[LAT_KNEE_PRED_TRACE], 0.09, 1e-12);
	/* paired t, n - 1 = 3 degrees of freedom: 3.1824 x 0.017795 / 2
	 * (with 4 it would be 0.0247, with the normal's 1.96 0.0174) */
	T_NEAR(s->score.gain_half[LAT_KNEE_PRED_TRACE], 0.028316, 2e-5);
	T_CHECK(s->score.verdict[LAT_KNEE_PRED_TRACE] == LAT_KNEE_VERDICT_SIM);
	/* gains 0.05, -0.18, -0.12, 0.09: the interval holds 0 */
	T_CHECK(s->score.verdict[LAT_KNEE_PRED_SIM] ==
		LAT_KNEE_VERDICT_UNDECIDED);
	for (int i = 0; i < 4; i++)
		s->pts[i].log_err[LAT_KNEE_PRED_SIM] = 2 * k[i];
	lat_knee_sweep_score(s);
	T_CHECK(s->score.verdict[LAT_KNEE_PRED_SIM] ==
		LAT_KNEE_VERDICT_KINGMAN);
	s->done = 2;
	lat_knee_sweep_score(s);
	T_CHECK(s->score.verdict[LAT_KNEE_PRED_SIM] == LAT_KNEE_VERDICT_NONE);
	T_CHECK(strcmp(lat_knee_verdict_name(LAT_KNEE_VERDICT_UNDECIDED),
		       "undecided") == 0);
	free(s);

	/* a point's predictions: a stop asked during them returns 1 */
	T_EQ_I64(lat_knee_acc_init(&a, q.events), 0);
	info.cycles_per_ns = 0;
	T_EQ_I64(r.run(r.ctx, &q, &a, &info), 0);
	memset(&p, 0, sizeof(p));
	T_EQ_I64(lat_knee_point_measure(&p, &a, 1), 0);
	lat_qsim_config_init(&sim);
	sim.customers = 20000;
	sim.warmup = 2000;
	/* how often the histogram-fed simulation asks: the simulator's own
	 * count for these customers, warm-up and batches (never stopping) */
	n = 1000000;
	sim.stop = stop_after;
	sim.stop_ctx = &n;
	memset(&res, 0, sizeof(res));
	T_EQ_I64(lat_qsim_run(&sim, &res), 0);
	lat_qsim_result_destroy(&res);
	sim.stop = NULL;
	asks = 1000000 - n;
	T_CHECK(asks >= 2); /* after the warm-up and after each batch */
	n = 0; /* at its first ask, after the warm-up */
	T_EQ_I64(lat_knee_point_predict(&p, &a, true, &sim, stop_after, &n),
		 1);
	T_CHECK(isnan(p.sim_ns) && isnan(p.sim_trace_ns));
	n = asks - 1; /* at its last ask: the batches done are not kept */
	T_EQ_I64(lat_knee_point_predict(&p, &a, true, &sim, stop_after, &n),
		 1);
	T_CHECK(isnan(p.sim_ns) && isnan(p.sim_trace_ns));
	n = asks + 3; /* into the trace's replications */
	T_EQ_I64(lat_knee_point_predict(&p, &a, true, &sim, stop_after, &n),
		 1);
	T_CHECK(isfinite(p.sim_ns) && isnan(p.sim_trace_ns));
	n = asks + LAT_KNEE_TRACE_REPS + 5; /* into the replays' permutations */
	T_EQ_I64(lat_knee_point_predict(&p, &a, true, &sim, stop_after, &n),
		 1);
	T_CHECK(isfinite(p.sim_trace_ns) && isnan(p.attr.replay_ns));
	n = asks + 1000;
	T_EQ_I64(lat_knee_point_predict(&p, &a, true, &sim, stop_after, &n),
		 0);
	T_CHECK(isfinite(p.attr.replay_ns));
	lat_knee_acc_destroy(&a);
}

/*
 * A point that misses its rho by more than rho_tol runs once more at
 * rate x asked / achieved, with the same seed: here the fake's period
 * follows the rate, 5% longer than tau says, so the first run lands near
 * rho / 1.05 and the second on rho (within the pairs' end effects).
 */
static void test_retry(void)
{
	struct fake f = { .stop_at = -1, .drop_seq = -1, .slow = 1.05 };
	struct lat_knee_runner r = { &f, fake_run };
	struct lat_knee_config c;
	struct lat_knee_sweep *s = calloc(1, sizeof(*s));

	T_CHECK(s != NULL);
	config(&c);
	T_EQ_I64(lat_knee_config_span(&c, 0.6, 0.8, 2), 0);
	T_EQ_I64(lat_knee_sweep_run(&c, &r, s, NULL, NULL), 0);
	T_EQ_I64(s->done, 2);
	T_EQ_I64(f.n_reqs, 4);
	for (size_t i = 0; i < 2; i++) {
		const struct lat_knee_point *p = &s->pts[i];
		const struct lat_knee_req *a = &f.reqs[2 * i],
					  *b = &f.reqs[2 * i + 1];

		T_NEAR(p->rho_first, c.rho[i] / 1.05, 0.005);
		T_NEAR(p->rho, c.rho[i], c.rho_tol);
		T_NEAR(b->rate, a->rate * c.rho[i] / p->rho_first, 1e-6);
		T_EQ_I64(b->seed, a->seed);
		T_EQ_I64(b->events, a->events);
		T_NEAR(p->rate, b->rate, 0);
	}
	/* a stage 3 times slower than thought is not drift: no retry */
	f.slow = 3;
	f.n_reqs = 0;
	T_EQ_I64(lat_knee_sweep_run(&c, &r, s, NULL, NULL), 0);
	T_EQ_I64(f.n_reqs, 2);
	T_CHECK(isnan(s->pts[0].rho_first));
	/* within the tolerance nothing runs twice */
	f.slow = 0;
	f.n_reqs = 0;
	T_EQ_I64(lat_knee_sweep_run(&c, &r, s, NULL, NULL), 0);
	T_EQ_I64(f.n_reqs, 2);
	T_CHECK(isnan(s->pts[0].rho_first) && isnan(s->pts[1].rho_first));
	free(s);
}

static void test_config(void)
{
	struct lat_knee_config c;
	const char *why;

	config(&c);
	T_EQ_I64(lat_knee_config_check(&c, &why), 0);
	T_EQ_I64(c.n_rho, 14);
	T_NEAR(c.rho[0], 0.3, 1e-12);
	T_NEAR(c.rho[13], 0.95, 1e-12);
	T_NEAR(c.rho[1], 0.35, 1e-12);
	c.rho[3] = 1.2;
	T_EQ_I64(lat_knee_config_check(&c, &why), -EINVAL);
	T_CHECK(why != NULL);
	config(&c);
	c.rho[3] = c.rho[2];
	T_EQ_I64(lat_knee_config_check(&c, &why), -EINVAL);
	T_EQ_I64(lat_knee_config_span(&c, 0.5, 0.9, 1), -EINVAL);
	T_EQ_I64(lat_knee_config_span(&c, 0.5, 1.0, 3), -EINVAL);
}

/* The report driver: every distribution calibrated, then rho by rho
 * each in turn; a stop loses the remaining points of every run. */
static void test_report_sweep(void)
{
	struct fake f = { .stop_at = 1, .drop_seq = -1 };
	struct lat_knee_runner r = { &f, fake_run };
	struct lat_knee_report *rep = calloc(1, sizeof(*rep));
	struct lat_work_dist d[2];
	double w;

	T_CHECK(rep != NULL);
	T_EQ_I64(lat_work_dist_parse(&d[0], "det"), 0);
	T_EQ_I64(lat_work_dist_parse(&d[1], "exp"), 0);
	config(&rep->kc);
	T_EQ_I64(lat_knee_config_span(&rep->kc, 0.5, 0.8, 4), 0);
	T_EQ_I64(lat_knee_report_floor(rep, &r), 0);
	T_NEAR(rep->floor_ns, 50, 1e-12);
	T_NEAR(rep->floor_rate, LAT_KNEE_FLOOR_RATE, 0);
	T_EQ_I64(f.reqs[0].events, LAT_KNEE_FLOOR_EVENTS);
	T_EQ_I64(lat_knee_report_sweep(rep, d, 2, &r, NULL), -EINVAL);
	rep->base.work_ns = 1e6;
	T_EQ_I64(lat_knee_report_sweep(rep, d, 2, &r, NULL), 0);
	T_EQ_I64(rep->n_runs, 2);
	T_CHECK(rep->runs[0].started && rep->runs[1].started);
	T_NEAR(rep->rate_tau_ns, 100, 1e-12);
	T_NEAR(rep->kc.tau_ns, 100, 1e-12);
	T_NEAR(rep->kc.wake_ns, 0, 1e-12);
	/* det and exp at the same point share its seed: same arrivals */
	T_EQ_I64(f.reqs[3].seed, f.reqs[4].seed);
	T_CHECK(f.reqs[3].seed != f.reqs[5].seed);
	/* floor, 2 calibrations, rho 0 for det and exp, rho 1 stopped */
	T_EQ_I64(f.n_reqs, 6);
	T_CHECK(f.reqs[1].phase == LAT_KNEE_CALIBRATE &&
		f.reqs[2].phase == LAT_KNEE_CALIBRATE);
	T_CHECK(f.reqs[3].index == 0 && f.reqs[4].index == 0 &&
		f.reqs[5].index == 1);
	for (int i = 0; i < 2; i++) {
		T_EQ_I64(rep->runs[i].sweep.done, 1);
		T_CHECK(rep->runs[i].sweep.interrupted);
	}
	free(rep);

	/* 20 floors, at least 20 us, rounded up to 10 us; 10 ms at most */
	T_EQ_I64(lat_knee_default_work(50, &w), 0);
	T_NEAR(w, 20000, 0);
	T_EQ_I64(lat_knee_default_work(1100, &w), 0);
	T_NEAR(w, 30000, 0);
	T_NEAR(lat_knee_min_work_ns(1100), 22000, 1e-9);
	T_EQ_I64(lat_knee_default_work(600e3, &w), -ERANGE);
}

/* The two lists as text: values, limits, and a reason naming the item. */
static void test_parse_lists(void)
{
	struct lat_knee_config c;
	struct lat_work_dist d[LAT_KNEE_MAX_DISTS];
	char why[256], many[600] = "0.01";
	int n;

	lat_knee_config_init(&c);
	T_EQ_I64(lat_knee_config_parse_rhos(&c, "0.5,0.7,0.9", why,
					    sizeof(why)), 0);
	T_EQ_I64(c.n_rho, 3);
	T_CHECK(c.rho[0] == 0.5 && c.rho[2] == 0.9);
	T_EQ_I64(lat_knee_config_parse_rhos(&c, "0.5,1.5", why, sizeof(why)),
		 -EINVAL);
	T_CHECK(strstr(why, "'1.5' is not a utilization") != NULL);
	T_EQ_I64(lat_knee_config_parse_rhos(&c, "0.5,x", why, sizeof(why)),
		 -EINVAL);
	T_CHECK(strstr(why, "'x' is not a number") != NULL);
	T_EQ_I64(lat_knee_config_parse_rhos(&c, "0.6,0.5", why, sizeof(why)),
		 -EINVAL);
	T_CHECK(why[0] != '\0');
	for (int i = 2; i <= LAT_KNEE_MAX_POINTS + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 ",0.%03d", i * 10);
	T_EQ_I64(lat_knee_config_parse_rhos(&c, many, why, sizeof(why)),
		 -EINVAL);
	T_CHECK(strstr(why, "at most") != NULL);
	T_EQ_I64(lat_knee_parse_dists(d, &n, "det,exp", why, sizeof(why)), 0);
	T_EQ_I64(n, 2);
	T_EQ_I64(lat_knee_parse_dists(d, &n, "det,foo", why, sizeof(why)),
		 -EINVAL);
	T_CHECK(strstr(why, "'foo'") != NULL);
	T_EQ_I64(lat_knee_parse_dists(d, &n, "det,det,det,det,det", why,
				      sizeof(why)), -EINVAL);
	T_CHECK(strstr(why, "at most 4") != NULL);
	T_EQ_I64(lat_knee_parse_dists(d, &n, ",", why, sizeof(why)), -EINVAL);
	T_CHECK(strstr(why, "needs a distribution") != NULL);
}

int main(void)
{
	test_parse_lists();
	test_explain();
	test_config();
	test_sweep();
	test_drop_and_stop();
	test_score_and_stop();
	test_retry();
	test_report_sweep();
	T_DONE();
}

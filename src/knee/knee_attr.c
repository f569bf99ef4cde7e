/*
 * lat_knee attribution: why the fed simulator (and Kingman) differ from
 * the measured wait at a point, by replaying the point's own gaps and
 * services through Lindley's recursion in their order and shuffled (see
 * struct lat_knee_attr in knee.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/knee.h"

/* Mean wait of Lindley's recursion over @n events with these gaps and
 * services; a restart event takes its measured wait. */
static double lindley(const struct lat_knee_ev *ev, const uint64_t *gap,
		      const uint64_t *svc, uint64_t n)
{
	double w = 0, sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (ev[i].restart || i == 0)
			w = (double)ev[i].wait;
		else
			w = fmax(0, w + (double)svc[i - 1] - (double)gap[i]);
		sum += w;
	}
	return sum / (double)n;
}

/* Fisher-Yates over the events that are not restarts' gaps: a gap at a
 * restart is not used, so every used gap and every service moves. */
static void shuffle(uint64_t *v, uint64_t n, struct lat_qsim_rng *r)
{
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t k = lat_qsim_rng_next(r) % (i + 1), t = v[i];

		v[i] = v[k];
		v[k] = t;
	}
}

static double lag1(const uint64_t *v, uint64_t from, uint64_t n)
{
	double m = 0, c0 = 0, c1 = 0;

	if (n < from + 3)
		return NAN;
	for (uint64_t i = from; i < n; i++)
		m += (double)v[i];
	m /= (double)(n - from);
	for (uint64_t i = from; i < n; i++) {
		double d = (double)v[i] - m;

		c0 += d * d;
		if (i > from)
			c1 += d * ((double)v[i - 1] - m);
	}
	return c0 > 0 ? c1 / c0 : NAN;
}

/* corr(W_i + S_i, G_{i+1}): does the next send come later when stage 1
 * has more work in hand? Pairs across a restart are left out. */
static double backlog_gap_corr(const struct lat_knee_ev *ev, uint64_t n)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, k = 0, vx, vy;

	for (uint64_t i = 0; i + 1 < n; i++) {
		double x, y;

		if (ev[i + 1].restart)
			continue;
		x = (double)ev[i].wait + (double)ev[i].svc;
		y = (double)ev[i + 1].gap;
		sx += x;
		sy += y;
		sxx += x * x;
		syy += y * y;
		sxy += x * y;
		k++;
	}
	if (k < 3)
		return NAN;
	vx = sxx / k - (sx / k) * (sx / k);
	vy = syy / k - (sy / k) * (sy / k);
	if (!(vx > 0 && vy > 0))
		return NAN;
	return (sxy / k - (sx / k) * (sy / k)) / sqrt(vx * vy);
}

/* Sample standard deviation from a sum and a sum of squares. */
static double sd_of(double sum, double sq, int k)
{
	double v = (sq - sum * sum / k) / (k - 1);

	return v > 0 ? sqrt(v) : 0;
}

int lat_knee_point_attribute(struct lat_knee_point *p,
			     const struct lat_knee_acc *a, uint64_t seed,
			     lat_knee_stop_fn stop, void *stop_ctx)
{
	struct lat_knee_attr *t = &p->attr;
	uint64_t n = a->trace_n, *gap, *svc, *g2, *s2;
	double cpn = p->tau_ns > 0 ? (double)a->busy / (double)a->events /
				     p->tau_ns : NAN;
	double sum_s = 0, sum_g = 0, sum_b = 0, sq_s = 0, sq_g = 0;
	struct lat_qsim_rng r;

	memset(t, 0, sizeof(*t));
	t->replay_ns = t->svc_shuffled_ns = t->gap_shuffled_ns = NAN;
	t->svc_shuffled_sd_ns = t->gap_shuffled_sd_ns = NAN;
	t->both_shuffled_ns = t->svc_idle_ns = t->svc_busy_ns = NAN;
	t->gap_lag1 = t->svc_lag1 = t->backlog_gap_corr = NAN;
	if (n < 2 || !(cpn > 0))
		return -EINVAL;
	gap = malloc(4 * n * sizeof(*gap));
	if (!gap)
		return -ENOMEM;
	svc = gap + n;
	g2 = svc + n;
	s2 = g2 + n;
	for (uint64_t i = 0; i < n; i++) {
		gap[i] = a->trace[i].gap;
		svc[i] = a->trace[i].svc;
	}
	t->replay_ns = lindley(a->trace, gap, svc, n) / cpn;
	lat_qsim_rng_seed(&r, seed);
	for (int k = 0; k < LAT_KNEE_SHUFFLES; k++) {
		/* three replays of the whole trace per permutation: a
		 * stop is asked before each (Ctrl-C stays prompt) */
		if (stop && stop(stop_ctx)) {
			free(gap);
			t->replay_ns = NAN;
			return 1;
		}
		/* the first gap (from nothing) stays first */
		memcpy(g2, gap, n * sizeof(*gap));
		memcpy(s2, svc, n * sizeof(*svc));
		shuffle(s2, n, &r);
		shuffle(g2 + 1, n - 1, &r);
		double ws = lindley(a->trace, gap, s2, n);
		double wg = lindley(a->trace, g2, svc, n);

		sum_s += ws;
		sq_s += ws * ws;
		sum_g += wg;
		sq_g += wg * wg;
		sum_b += lindley(a->trace, g2, s2, n);
	}
	t->n = n;
	t->svc_shuffled_ns = sum_s / LAT_KNEE_SHUFFLES / cpn;
	t->gap_shuffled_ns = sum_g / LAT_KNEE_SHUFFLES / cpn;
	t->svc_shuffled_sd_ns = sd_of(sum_s, sq_s, LAT_KNEE_SHUFFLES) / cpn;
	t->gap_shuffled_sd_ns = sd_of(sum_g, sq_g, LAT_KNEE_SHUFFLES) / cpn;
	t->both_shuffled_ns = sum_b / LAT_KNEE_SHUFFLES / cpn;
	if (a->idle_n)
		t->svc_idle_ns = (double)a->svc_idle_sum / (double)a->idle_n /
				 cpn;
	if (a->events > a->idle_n)
		t->svc_busy_ns = (double)(a->busy - a->svc_idle_sum) /
				 (double)(a->events - a->idle_n) / cpn;
	t->gap_lag1 = lag1(gap, 1, n);
	t->svc_lag1 = lag1(svc, 0, n);
	t->backlog_gap_corr = backlog_gap_corr(a->trace, n);
	free(gap);
	return 0;
}

/* How many standard deviations of the random orders @eff is. */
static double z_of(double eff, double sd)
{
	return sd > 0 ? eff / sd : eff != 0 ? INFINITY : 0;
}

void lat_knee_point_explain(struct lat_knee_point *p)
{
	struct lat_knee_attr *t = &p->attr;
	double m = p->wait.mean, half = isfinite(p->wait_half) ?
					    p->wait_half : 0;
	double sh = isfinite(p->sim_half) ? p->sim_half : 0;
	double noise = sqrt(half * half + sh * sh);
	double ek = fabs(p->kingman_ns - m), es = fabs(p->sim_ns - m);
	double svc_eff, gap_eff;
	bool svc_sig, gap_sig;

	p->closer = LAT_KNEE_CLOSER_NONE;
	if (isfinite(ek) && isfinite(es))
		p->closer = fabs(ek - es) <= half ? LAT_KNEE_CLOSER_TIE :
			    ek < es ? LAT_KNEE_CLOSER_KINGMAN :
				      LAT_KNEE_CLOSER_SIM;
	p->why = LAT_KNEE_WHY_NONE;
	p->sim_within_ci = es <= noise;
	if (!isfinite(es))
		return;
	/*
	 * What each order did to the measured wait, as a multiple of the
	 * spread of random orders: the measured order is one order among
	 * all, so an effect within LAT_KNEE_WHY_Z of that spread is this
	 * sample path's luck (each point draws its own arrival path, so
	 * that luck varies from point to point), not a
	 * dependence the machine made. Smaller than LAT_KNEE_WHY_MIN of
	 * the wait it does not matter either way.
	 */
	svc_eff = m - t->svc_shuffled_ns;
	gap_eff = m - t->gap_shuffled_ns;
	t->svc_z = z_of(svc_eff, t->svc_shuffled_sd_ns);
	t->gap_z = z_of(gap_eff, t->gap_shuffled_sd_ns);
	svc_sig = t->n >= 2 && fabs(t->svc_z) >= LAT_KNEE_WHY_Z &&
		  fabs(svc_eff) >= LAT_KNEE_WHY_MIN * m;
	gap_sig = t->n >= 2 && fabs(t->gap_z) >= LAT_KNEE_WHY_Z &&
		  fabs(gap_eff) >= LAT_KNEE_WHY_MIN * m;
	if (gap_sig && (!svc_sig || fabs(gap_eff) >= fabs(svc_eff)))
		p->why = gap_eff > 0 ? LAT_KNEE_WHY_BUNCHED :
				       LAT_KNEE_WHY_SPREAD;
	else if (svc_sig && svc_eff > 0)
		p->why = LAT_KNEE_WHY_CLUSTERED;
	else if (svc_sig)
		p->why = t->svc_idle_ns > t->svc_busy_ns ?
			 LAT_KNEE_WHY_WAKEUP : LAT_KNEE_WHY_ORDER;
	else
		p->why = p->sim_within_ci ? LAT_KNEE_WHY_AGREE :
					    LAT_KNEE_WHY_SAMPLE;
}

const char *lat_knee_closer_name(enum lat_knee_closer c)
{
	static const char *const names[] = { "none", "kingman", "simulator",
					     "tie" };

	return c <= LAT_KNEE_CLOSER_TIE ? names[c] : "none";
}

const char *lat_knee_why_name(enum lat_knee_why w)
{
	static const char *const names[] = {
		"none", "agree", "bunched_sends", "spread_sends",
		"clustered_services", "wakeup_in_service", "service_order",
		"sample",
	};

	return w <= LAT_KNEE_WHY_SAMPLE ? names[w] : "none";
}

const char *lat_knee_why_text(enum lat_knee_why w)
{
	switch (w) {
	case LAT_KNEE_WHY_AGREE:
		return "no order of the gaps or the services moves the wait "
		       "beyond what random orders do by chance: the "
		       "simulator's independent draws are this queue, and it "
		       "is inside the intervals";
	case LAT_KNEE_WHY_BUNCHED:
		return "in their order the gaps make more wait than random "
		       "orders do (z >= 2.5): sends came in bunches (a late "
		       "producer), which the simulator's independent draws "
		       "cannot know; Kingman's c_a^2 carries part of it";
	case LAT_KNEE_WHY_SPREAD:
		return "in their order the gaps make less wait than random "
		       "orders do (z <= -2.5): sends were more regular in "
		       "order than their distribution; the simulator's "
		       "independent gaps wait more";
	case LAT_KNEE_WHY_CLUSTERED:
		return "long services came in runs (stage 1 preempted by a "
		       "neighbour over several events): the simulator "
		       "spreads them out and waits less";
	case LAT_KNEE_WHY_WAKEUP:
		return "the long services are wake-ups of events that found "
		       "stage 1 idle, with nobody behind them; the simulator "
		       "puts them behind waiting events and waits more";
	case LAT_KNEE_WHY_ORDER:
		return "the services' order removed wait (long ones where the "
		       "queue was short), not by wake-ups";
	case LAT_KNEE_WHY_SAMPLE:
		return "no order effect beyond chance, yet the simulator is "
		       "outside the intervals: this point's own draw of "
		       "arrivals (thousands of events) against the "
		       "simulator's 10^6 customers; the trace column, fed "
		       "the same gaps, does not have this difference";
	default:
		return "";
	}
}

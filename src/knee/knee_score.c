/*
 * lat_knee score: over a sweep, how far each prediction is from the
 * measured mean wait (|ln(prediction / measured)| per point), and whether
 * a simulator is closer than Kingman beyond what the points' own chance
 * allows (a paired t-interval over the points, which are independent:
 * each draws its own arrival path).
 */
#include <math.h>
#include <string.h>

#include "latlab/knee.h"

const char *lat_knee_pred_name(enum lat_knee_pred k)
{
	static const char *const names[] = { "kingman", "simulator",
					     "simulator_trace" };

	return k < LAT_KNEE_PREDS ? names[k] : "none";
}

const char *lat_knee_verdict_name(enum lat_knee_verdict v)
{
	static const char *const names[] = { "none", "simulator", "kingman",
					     "undecided" };

	return v <= LAT_KNEE_VERDICT_UNDECIDED ? names[v] : "none";
}

/* A point counts when it has every prediction. */
static bool scored(const struct lat_knee_point *p)
{
	for (int k = 0; k < LAT_KNEE_PREDS; k++)
		if (!isfinite(p->log_err[k]))
			return false;
	return true;
}

void lat_knee_sweep_score(struct lat_knee_sweep *s)
{
	struct lat_knee_score *c = &s->score;
	double sum[LAT_KNEE_PREDS] = { 0 }, g[LAT_KNEE_PREDS] = { 0 };
	double gsq[LAT_KNEE_PREDS] = { 0 };

	memset(c, 0, sizeof(*c));
	for (int k = 0; k < LAT_KNEE_PREDS; k++) {
		c->mean_abs_log[k] = c->max_abs_log[k] = NAN;
		c->gain[k] = c->gain_half[k] = NAN;
	}
	c->gain[LAT_KNEE_PRED_KINGMAN] = c->gain_half[LAT_KNEE_PRED_KINGMAN] = 0;
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];
		double ek = fabs(p->log_err[LAT_KNEE_PRED_KINGMAN]);
		int best = 0;

		if (!scored(p))
			continue;
		c->n++;
		for (int k = 0; k < LAT_KNEE_PREDS; k++) {
			double e = fabs(p->log_err[k]);

			sum[k] += e;
			if (!(e <= c->max_abs_log[k]))
				c->max_abs_log[k] = e;
			if (e < fabs(p->log_err[best]))
				best = k;
			g[k] += ek - e;
			gsq[k] += (ek - e) * (ek - e);
		}
		c->closest[best]++;
	}
	if (!c->n)
		return;
	for (int k = 0; k < LAT_KNEE_PREDS; k++)
		c->mean_abs_log[k] = sum[k] / (double)c->n;
	for (int k = LAT_KNEE_PRED_SIM; k < LAT_KNEE_PREDS; k++) {
		double n = (double)c->n, m = g[k] / n, var, half;

		c->gain[k] = m;
		if (c->n < 3)
			continue;
		var = (gsq[k] - n * m * m) / (n - 1);
		half = lat_qsim_t975((unsigned)c->n - 1) *
		       sqrt(var > 0 ? var : 0) / sqrt(n);
		c->gain_half[k] = half;
		c->verdict[k] = m - half > 0 ? LAT_KNEE_VERDICT_SIM :
				m + half < 0 ? LAT_KNEE_VERDICT_KINGMAN :
					       LAT_KNEE_VERDICT_UNDECIDED;
	}
}

/*
 * lat_lab_compare: one statistic of an experiment against the baselines
 * run just before and after it (so a machine that drifts over the lab run
 * moves both sides alike), with the baselines' trend (drift) and their
 * scatter around it (spread) as the bar a change must clear.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_int.h"

bool lab_usable(double v)
{
	return v > 0 && isfinite(v);
}

bool lab_judged_baseline(const struct lat_lab_row *r, enum lat_lab_arm a)
{
	return r->baseline && r->arm == a && !r->interrupted;
}

/*
 * The scatter of @n residuals (run order): their range when there are at
 * most LAT_LAB_SPREAD_WINDOW, else the median of the ranges of every
 * LAT_LAB_SPREAD_WINDOW consecutive ones. A plain range widens with every
 * baseline added (more rounds would make the lab blinder); the median of
 * windowed ranges keeps the yardstick of one round.
 */
static double window_range(const double *res, int n)
{
	double range[LAT_LAB_MAX_ROWS];
	int w = n < LAT_LAB_SPREAD_WINDOW ? n : LAT_LAB_SPREAD_WINDOW, k = 0;

	for (int s = 0; s + w <= n; s++) {
		double lo = res[s], hi = res[s];

		for (int i = s + 1; i < s + w; i++) {
			lo = res[i] < lo ? res[i] : lo;
			hi = res[i] > hi ? res[i] : hi;
		}
		range[k++] = hi - lo;
	}
	return k ? lat_median_sort(range, (size_t)k) : 0;
}

void lab_arm_trend(const struct lat_lab_row *rows, int n, enum lat_lab_arm a,
		   const double *v, struct lab_trend *t)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, mx, my, slope = 0, var;
	double res[LAT_LAB_MAX_ROWS];
	int k = 0, first = -1, last = -1;

	for (int i = 0; i < n; i++) {
		double y;

		if (!lab_judged_baseline(&rows[i], a) || !lab_usable(v[i]))
			continue;
		y = log(v[i]);
		sx += i;
		sy += y;
		sxx += (double)i * i;
		sxy += i * y;
		first = first < 0 ? i : first;
		last = i;
		k++;
	}
	t->n = k;
	t->spread = t->drift = 1.0;
	if (k < 2)
		return;
	mx = sx / k;
	my = sy / k;
	var = sxx / k - mx * mx;
	if (var > 0)
		slope = (sxy / k - mx * my) / var;
	t->drift = exp(slope * (last - first));
	k = 0;
	for (int i = 0; i < n; i++)
		if (lab_judged_baseline(&rows[i], a) && lab_usable(v[i]))
			res[k++] = log(v[i]) - (my + slope * (i - mx));
	t->spread = exp(window_range(res, k));
}

/* The baselines of @r's arm just before and after row @i; -1 if none. */
void lab_neighbours(const struct lat_lab_row *rows, int n, int i,
		    const double *v, int *before, int *after)
{
	enum lat_lab_arm a = rows[i].arm;

	*before = *after = -1;
	for (int j = i - 1; j >= 0 && *before < 0; j--)
		if (lab_judged_baseline(&rows[j], a) && lab_usable(v[j]))
			*before = j;
	for (int j = i + 1; j < n && *after < 0; j++)
		if (lab_judged_baseline(&rows[j], a) && lab_usable(v[j]))
			*after = j;
}

bool lab_exp_row(const struct lat_lab_row *r, enum lat_lab_exp e)
{
	return !r->baseline && r->exp == e && !r->interrupted && !r->one_core;
}

/*
 * How far the ratio must go: past the spread (with a margin: a handful of
 * runs estimate it loosely) and LAT_LAB_MIN_RATIO for an effect "beyond
 * the spread", and past the drift too for an effect at all.
 */
void lab_classify(struct lat_lab_cmp *c)
{
	double drift = c->drift >= 1 ? c->drift : 1 / c->drift;
	double spread_tol = fmax(LAT_LAB_MIN_RATIO,
				 c->spread * LAT_LAB_MARGIN);

	c->tolerance = fmax(spread_tol, drift * LAT_LAB_MARGIN);
	if (c->ratio > c->tolerance)
		c->effect = LAT_LAB_EFFECT_UP;
	else if (c->ratio < 1 / c->tolerance)
		c->effect = LAT_LAB_EFFECT_DOWN;
	else if (c->ratio > spread_tol || c->ratio < 1 / spread_tol)
		c->effect = LAT_LAB_EFFECT_DRIFT;
	else
		c->effect = LAT_LAB_EFFECT_NONE;
}

int lat_lab_compare(const struct lat_lab_row *rows, int n,
		    enum lat_lab_exp e, const double *v,
		    struct lat_lab_cmp *out)
{
	double logr[LAT_LAB_MAX_ROWS];
	struct lab_trend t = { 0, 1, 1 }, def;
	int k = 0;

	memset(out, 0, sizeof(*out));
	out->ratio = out->spread = out->drift = 1.0;
	for (int i = 0; i < n && k < LAT_LAB_MAX_ROWS; i++) {
		int b, a;
		double ref = 0;

		if (!lab_exp_row(&rows[i], e) || !lab_usable(v[i]))
			continue;
		lab_neighbours(rows, n, i, v, &b, &a);
		if (b < 0 && a < 0)
			continue;
		if (b >= 0 && a >= 0)
			ref = (log(v[b]) + log(v[a])) / 2;
		else
			ref = log(v[b >= 0 ? b : a]);
		if (!k)
			lab_arm_trend(rows, n, rows[i].arm, v, &t);
		/* two baselines have no scatter around their own line */
		if (t.n < 3 && rows[i].arm != LAT_LAB_ARM_DEFAULT) {
			lab_arm_trend(rows, n, LAT_LAB_ARM_DEFAULT, v, &def);
			t.spread = fmax(t.spread, def.spread);
		}
		logr[k++] = log(v[i]) - ref;
	}
	if (!k) {
		out->tolerance = LAT_LAB_MIN_RATIO;
		return 0;
	}
	out->ratio = exp(lat_median_sort(logr, (size_t)k));
	out->spread = t.spread;
	out->drift = t.drift;
	lab_classify(out);
	return k;
}

/*
 * The knee chart: measured mean waits (with their 95% intervals) over
 * the achieved utilization, Kingman's and the fed simulator's curves, and
 * the knees, one colour per work distribution. Log y: the wait spans
 * decades between rho 0.3 and 0.95.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/knee.h"
#include "latlab/svg.h"

static const char *const colors[LAT_KNEE_MAX_DISTS] = { "#1f77b4", "#d62728",
						     "#2ca02c", "#9467bd" };
/* the same hues, pale: Kingman's knee beside the measured one */
static const char *const pale[LAT_KNEE_MAX_DISTS] = { "#9ecae1", "#f4a582",
						   "#a1d99b", "#cbc9e2" };

struct curves {
	double x[LAT_KNEE_MAX_POINTS], y[LAT_KNEE_MAX_POINTS];
	double lo[LAT_KNEE_MAX_POINTS], hi[LAT_KNEE_MAX_POINTS];
	double king[LAT_KNEE_MAX_POINTS], sim[LAT_KNEE_MAX_POINTS];
	double trace[LAT_KNEE_MAX_POINTS];
	size_t n;
};

/* The points of @s in order of measured rho, in units of tau. */
static void collect(const struct lat_knee_sweep *s, struct curves *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_knee_point *p = &s->pts[i];
		size_t j = c->n++;
		double t = p->tau_ns;

		while (j > 0 && c->x[j - 1] > p->rho) {
			c->x[j] = c->x[j - 1];
			c->y[j] = c->y[j - 1];
			c->lo[j] = c->lo[j - 1];
			c->hi[j] = c->hi[j - 1];
			c->king[j] = c->king[j - 1];
			c->sim[j] = c->sim[j - 1];
			c->trace[j] = c->trace[j - 1];
			j--;
		}
		c->x[j] = p->rho;
		c->y[j] = p->wait.mean / t;
		c->lo[j] = (p->wait.mean - p->wait_half) / t;
		c->hi[j] = (p->wait.mean + p->wait_half) / t;
		c->king[j] = p->kingman_ns / t;
		c->sim[j] = p->sim_ns / t;
		c->trace[j] = p->sim_trace_ns / t;
	}
}

static void range(const struct lat_knee_report *o, double *x0, double *y0,
		  double *y1)
{
	double lo = INFINITY, hi = 0;

	*x0 = 0.2;
	for (int r = 0; r < o->n_runs; r++) {
		struct curves c;

		collect(&o->runs[r].sweep, &c);
		for (size_t i = 0; i < c.n; i++) {
			const double v[] = { c.y[i], c.king[i], c.sim[i],
					     c.trace[i] };

			*x0 = fmin(*x0, floor(c.x[i] * 10) / 10);
			for (int k = 0; k < 4; k++)
				if (v[k] > 0 && isfinite(v[k])) {
					lo = fmin(lo, v[k]);
					hi = fmax(hi, v[k]);
				}
		}
	}
	if (!isfinite(lo) || !(hi > 0))
		lo = 0.01, hi = 10;
	*y0 = pow(10, floor(log10(lo)));
	*y1 = pow(10, ceil(log10(hi)));
	if (*y1 <= *y0 * 10)
		*y1 = *y0 * 100;
}

static void draw_run(struct lat_svg *g, const struct lat_knee_run *run, int k)
{
	char lm[96], lk[96], ls[96], lt[96], km[64], kk[64];
	const char *d = lat_work_dist_name(&run->dist);
	struct lat_svg_series meas = { lm, colors[k], NULL, true };
	struct lat_svg_series king = { lk, colors[k], "7 4", false };
	struct lat_svg_series sim = { ls, colors[k], "2 3", false };
	struct lat_svg_series trace = { lt, pale[k], NULL, false };
	struct lat_svg_series knee_m = { km, colors[k], "6 4", false };
	struct lat_svg_series knee_k = { kk, pale[k], "6 4", false };
	const struct lat_knee_sweep *s = &run->sweep;
	struct curves c;

	collect(s, &c);
	snprintf(lm, sizeof(lm), "work %s: measured W_q/τ, 95%% CI", d);
	snprintf(lk, sizeof(lk), "work %s: Kingman (measured c_a, c_s)", d);
	snprintf(ls, sizeof(ls), "work %s: simulator fed the histograms", d);
	snprintf(lt, sizeof(lt), "work %s: simulator fed the gaps in order",
		 d);
	lat_svg_line(g, &king, c.x, c.king, c.n);
	lat_svg_line(g, &sim, c.x, c.sim, c.n);
	lat_svg_line(g, &trace, c.x, c.trace, c.n);
	lat_svg_points(g, &meas, c.x, c.y, c.lo, c.hi, c.n);
	lat_svg_legend(g, &meas);
	lat_svg_legend(g, &king);
	lat_svg_legend(g, &sim);
	lat_svg_legend(g, &trace);
	/* the knees in the legend, not beside their lines: two knees at
	 * the same rho would print their labels over each other */
	if (isfinite(s->knee_measured)) {
		snprintf(km, sizeof(km), "work %s: measured knee rho %.2f", d,
			 s->knee_measured);
		lat_svg_vline(g, s->knee_measured, colors[k], "");
		lat_svg_legend(g, &knee_m);
	}
	if (isfinite(s->knee_kingman)) {
		snprintf(kk, sizeof(kk), "work %s: Kingman's knee rho %.2f", d,
			 s->knee_kingman);
		lat_svg_vline(g, s->knee_kingman, pale[k], "");
		lat_svg_legend(g, &knee_k);
	}
}

/* A run's sweep was cut short (a stop), or a run never started. */
static bool stopped(const struct lat_knee_report *o)
{
	for (int r = 0; r < o->n_runs; r++)
		if (!o->runs[r].started || o->runs[r].sweep.interrupted)
			return true;
	return false;
}

static size_t done_points(const struct lat_knee_report *o)
{
	size_t n = 0;

	for (int r = 0; r < o->n_runs; r++)
		n += o->runs[r].sweep.done;
	return n;
}

int lat_knee_svg(FILE *f, const struct lat_knee_report *o)
{
	struct lat_svg g;
	double x0, y0, y1;
	int err;

	range(o, &x0, &y0, &y1);
	err = lat_svg_begin(&g, f, 960, 600, "latlab knee: mean wait before "
			    "stage 1 vs utilization, measured and predicted");
	if (!err && (o->sig || stopped(o))) { /* Ctrl-C: said on the chart */
		char why[128];

		snprintf(why, sizeof(why), "the sweep was stopped after %zu "
			 "of %zu points%s", done_points(o),
			 o->kc.n_rho * (size_t)(o->n_runs ? o->n_runs : 1),
			 o->n_runs > 1 ? " (all runs)" : "");
		lat_svg_partial(&g, why);
	}
	if (!err)
		err = lat_svg_axes(&g, x0, 1, y0, y1, true,
				   "achieved utilization rho (busy / wall)",
				   "mean wait W_q / τ (mean service time), "
				   "log scale");
	if (err)
		return err;
	for (int r = 0; r < o->n_runs; r++)
		if (o->runs[r].started)
			draw_run(&g, &o->runs[r], r);
	return lat_svg_end(&g);
}

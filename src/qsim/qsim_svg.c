/*
 * The queue simulator's sweep as a chart (latlab queue's SVG). Log y
 * axis, because the interesting part spans three decades: the mean wait at low load is a
 * fraction of tau while the p99 near saturation is hundreds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/qsim.h"
#include "latlab/svg.h"

struct series {
	double *x, *y, *lo, *hi, *approx, *exact, *p99;
	size_t n;
};

static void collect(const struct lat_qsim_sweep *s, struct series *v)
{
	for (size_t i = 0; i < s->done; i++) {
		const struct lat_qsim_point *p = &s->pts[i];

		if (!p->stable)
			continue;
		v->x[v->n] = p->rho;
		v->y[v->n] = p->r.wait.mean;
		v->lo[v->n] = p->r.wait.mean - p->r.wait.half;
		v->hi[v->n] = p->r.wait.mean + p->r.wait.half;
		v->approx[v->n] = p->f.approx_wait;
		v->exact[v->n] = p->f.exact_name ? p->f.exact_wait : NAN;
		v->p99[v->n] = p->r.p99.mean;
		v->n++;
	}
}

/* Decades that hold every positive value drawn. */
static void y_range(const struct series *v, double *y0, double *y1)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < v->n; i++) {
		const double c[] = { v->y[i], v->lo[i], v->approx[i],
				     v->p99[i] };

		for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
			if (c[k] > 0 && isfinite(c[k]))
				lo = fmin(lo, c[k]);
			if (isfinite(c[k]))
				hi = fmax(hi, c[k]);
		}
	}
	if (!isfinite(lo) || !(hi > 0))
		lo = 0.1, hi = 10;
	*y0 = pow(10, floor(log10(lo)));
	*y1 = pow(10, ceil(log10(hi)));
	if (*y1 <= *y0 * 10)
		*y1 = *y0 * 100;
}

static void draw(struct lat_svg *g, const struct lat_qsim_report *o,
		 const struct lat_qsim_sweep *s, const struct series *v)
{
	const struct lat_svg_series sim = { "simulated mean wait W_q, 95% CI",
					    "#1f77b4", NULL, true };
	struct lat_svg_series approx = { NULL, "#d62728", "7 4", false };
	const struct lat_svg_series exact = { "exact mean wait", "#2ca02c",
					      "2 3", false };
	const struct lat_svg_series p99 = { "simulated p99 sojourn W",
					    "#ff7f0e", NULL, false };
	char label[64];

	approx.label = o->cfg.servers == 1 ? "Kingman mean wait" :
					      "Allen-Cunneen mean wait";
	lat_svg_line(g, &p99, v->x, v->p99, v->n);
	lat_svg_line(g, &approx, v->x, v->approx, v->n);
	lat_svg_line(g, &exact, v->x, v->exact, v->n);
	lat_svg_points(g, &sim, v->x, v->y, v->lo, v->hi, v->n);
	if (!s->knee_err) {
		snprintf(label, sizeof(label), "knee rho = %.3f", s->knee);
		lat_svg_vline(g, s->knee, "#7f7f7f", label);
	}
	lat_svg_legend(g, &sim);
	lat_svg_legend(g, &approx);
	if (o->cfg.arrival.kind == LAT_QSIM_EXP ||
	    o->cfg.arrival.kind == LAT_QSIM_DET)
		for (size_t i = 0; i < v->n; i++)
			if (isfinite(v->exact[i])) {
				lat_svg_legend(g, &exact);
				break;
			}
	lat_svg_legend(g, &p99);
}

static int write_chart(FILE *f, const struct lat_qsim_report *o,
		       const struct lat_qsim_sweep *s, const struct series *v)
{
	struct lat_svg g;
	double y0, y1, x0 = floor(o->sweep_lo * 10) / 10;
	char title[200], ka[8], ks[8];
	int err;

	snprintf(title, sizeof(title), "%s/%s/%u queue (arrivals %s, service "
		 "%s): wait vs utilization",
		 lat_qsim_kendall(&o->cfg.arrival, ka, sizeof(ka)),
		 lat_qsim_kendall(&o->cfg.service, ks, sizeof(ks)),
		 o->cfg.servers, o->cfg.arrival.name, o->cfg.service.name);
	y_range(v, &y0, &y1);
	err = lat_svg_begin(&g, f, 900, 560, title);
	if (!err && s->done < s->n) { /* Ctrl-C: the points so far, said */
		char why[96];

		snprintf(why, sizeof(why), "the sweep was stopped after %zu "
			 "of %zu points", s->done, s->n);
		lat_svg_partial(&g, why);
	}
	if (!err)
		err = lat_svg_axes(&g, x0 < 1 ? x0 : 0, 1, y0, y1, true,
				   "utilization rho (per server)",
				   "time / τ (mean service time), log "
				   "scale");
	if (err)
		return err;
	draw(&g, o, s, v);
	return lat_svg_end(&g);
}

int lat_qsim_sweep_svg(FILE *f, const struct lat_qsim_report *o,
		       const struct lat_qsim_sweep *s)
{
	struct series v;
	double *mem = calloc(7 * (s->done + 1), sizeof(double));
	int err;

	if (!mem)
		return -ENOMEM;
	memset(&v, 0, sizeof(v));
	v.x = mem;
	v.y = v.x + s->done + 1;
	v.lo = v.y + s->done + 1;
	v.hi = v.lo + s->done + 1;
	v.approx = v.hi + s->done + 1;
	v.exact = v.approx + s->done + 1;
	v.p99 = v.exact + s->done + 1;
	collect(s, &v);
	err = write_chart(f, o, s, &v);
	free(mem);
	return err;
}

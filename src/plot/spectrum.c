/*
 * lat_svg_percentiles: the percentile spectrum, HdrHistogram's plot.
 *
 * x = log10(1 / (1 - p)): 50 % sits at 0.3, 90 % at 1, 99 % at 2 and each
 * further nine one step right, so the tail gets as much room as the body.
 * A histogram of N values resolves percentiles up to about 1 - 1/N, so
 * the axis ends at the decade the largest count reaches (at least
 * 99.9 %, at most 99.99999 %), where every curve has reached its max.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/svg.h"

/* Samples along x: a step curve needs many to show its steps. */
#define SPECTRUM_POINTS 480
#define SPECTRUM_MAX_X 7

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

const char *lat_svg_palette(size_t i)
{
	return palette[i % NPALETTE];
}

static const double tick_x[] = { 0, 0.30103, 1, 2, 3, 4, 5, 6, 7 };
static const char *const tick_names[] = {
	"0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%",
	"99.99999%",
};

static double ns_of(const struct lat_svg_curve *c, int64_t v)
{
	return (double)v * (c->ns_per_value > 0 ? c->ns_per_value : 1);
}

/* The x axis ends where the largest histogram stops resolving. */
static double x_end(const struct lat_svg_curve *c, size_t n)
{
	int64_t most = 0;
	double x;

	for (size_t i = 0; i < n; i++)
		if (c[i].hist->total_count > most)
			most = c[i].hist->total_count;
	x = ceil(log10((double)(most > 1 ? most : 1)) - 1e-9);
	return fmin(fmax(x, 3), SPECTRUM_MAX_X);
}

/* Decades (log) or 0..max (linear) holding every value drawn, in ns. */
static void y_range(const struct lat_svg_curve *c, size_t n, bool linear,
		    double *y0, double *y1)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		const struct lat_hist *h = c[i].hist;

		if (!h->total_count)
			continue;
		if (lat_hist_min_nonzero(h) > 0 &&
		    lat_hist_min_nonzero(h) < INT64_MAX)
			lo = fmin(lo, ns_of(&c[i], lat_hist_min_nonzero(h)));
		hi = fmax(hi, ns_of(&c[i], lat_hist_max(h)));
	}
	if (linear) {
		double step = lat_svg_nice_step(hi > 0 ? hi : 1, 6);

		*y0 = 0;
		*y1 = ceil((hi > 0 ? hi * 1.02 : 1) / step) * step;
		return;
	}
	if (!isfinite(lo))
		lo = hi > 0 ? hi : 1;
	if (!(hi > 0))
		hi = 10;
	*y0 = pow(10, floor(log10(lo)));
	*y1 = pow(10, ceil(log10(hi)));
	if (*y1 < *y0 * 10)
		*y1 = *y0 * 10;
}

static void draw_curve(struct lat_svg *g, const struct lat_svg_curve *c,
		       const struct lat_svg_series *ser, double xmax)
{
	double x[SPECTRUM_POINTS + 1], y[SPECTRUM_POINTS + 1];

	for (int i = 0; i <= SPECTRUM_POINTS; i++) {
		double p;

		x[i] = xmax * i / SPECTRUM_POINTS;
		p = 100 * (1 - pow(10, -x[i]));
		y[i] = ns_of(c, lat_hist_value_at_percentile(c->hist, p));
		/* a log axis cannot show 0: draw it on the floor */
		if (!g->ylog)
			continue;
		if (y[i] < g->y0)
			y[i] = g->y0;
	}
	lat_svg_line(g, ser, x, y, SPECTRUM_POINTS + 1);
}

int lat_svg_percentiles(FILE *out, const struct lat_svg_spectrum_opts *o,
			const struct lat_svg_curve *curves, size_t n)
{
	struct lat_svg g;
	char label[160];
	double xmax, y0, y1;
	int rc;

	if (!out || !o || !curves || !n || n > LAT_SVG_MAX_CURVES)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!curves[i].hist || !curves[i].label ||
		    !(curves[i].ns_per_value >= 0))
			return -EINVAL;
	/* the legend goes under the plot, where no curve can hide it */
	rc = lat_svg_begin(&g, out, o->width ? o->width : 900,
			   (o->height ? o->height : 540) +
				   (int)lat_svg_legend_height(n),
			   o->title ? o->title : "latency by percentile");
	if (rc)
		return rc;
	if (o->partial)
		lat_svg_partial(&g, o->partial);
	g.right = 50; /* room for the last tick's long label */
	lat_svg_set_legend_below(&g, n);
	xmax = x_end(curves, n);
	y_range(curves, n, o->linear, &y0, &y1);
	lat_svg_set_xticks(&g, tick_x, tick_names,
			   sizeof(tick_x) / sizeof(tick_x[0]));
	lat_svg_set_y_ns(&g);
	rc = lat_svg_axes(&g, 0, xmax, y0, y1, !o->linear,
			  "percentile (axis: log 1/(1-p))",
			  o->linear ? "latency" : "latency (log scale)");
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		struct lat_svg_series ser = { curves[i].label,
					      curves[i].color ? curves[i].color :
					      lat_svg_palette(i),
					      curves[i].dash, false };

		if (curves[i].hist->total_count)
			draw_curve(&g, &curves[i], &ser, xmax);
	}
	/* legend after the lines, so its pale boxes sit on top */
	for (size_t i = 0; i < n; i++) {
		struct lat_svg_series ser = { label, curves[i].color ?
					      curves[i].color :
					      lat_svg_palette(i),
					      curves[i].dash, false };

		snprintf(label, sizeof(label), "%s%s", curves[i].label,
			 curves[i].hist->total_count ? "" : " (no values)");
		lat_svg_legend(&g, &ser);
	}
	return lat_svg_end(&g);
}

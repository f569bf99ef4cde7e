/*
 * lat_svg: small, dependency-free SVG line charts for latlab's reports
 * (queue sweeps, knee plots, latency curves), and the percentile spectrum
 * of latency histograms (lat_svg_percentiles, at the end).
 *
 * Invariants:
 *  - Output is well-formed standalone SVG 1.1: every text is XML-escaped,
 *    every number finite (non-finite data points are skipped, and a line
 *    breaks at them), elements are closed in order.
 *  - Data are clipped to the plot area by a clipPath, so a point outside
 *    the axes' range cannot draw over labels.
 *  - A log axis shows only positive values; others are skipped.
 *  - No allocation; stdio errors are remembered and lat_svg_end() reports
 *    them. One writer per struct; not thread-safe.
 */
#ifndef LATLAB_SVG_H
#define LATLAB_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lat_hist;

struct lat_svg {
	FILE *out;
	double width, height;
	double left, right, top, bottom; /* plot area, px from the edges */
	double x0, x1, y0, y1;           /* data range shown */
	bool ylog;
	int legend_rows;
	/* optional axis styles, set by the lat_svg_set_* calls below */
	const double *xticks;            /* NULL: 1-2-5 steps */
	const char *const *xtick_labels;
	size_t nxticks;
	bool y_ns;                       /* y values are ns: "10 µs" ticks */
	int legend_cols;                 /* > 0: legend below the x axis */
};

struct lat_svg_series {
	const char *label;   /* legend text */
	const char *color;   /* CSS colour, e.g. "#1f77b4" */
	const char *dash;    /* stroke-dasharray, NULL for solid */
	bool points;         /* a marker (true) or a line (false) */
};

/*
 * Write @t as XML character data or attribute text: markup characters
 * escaped, control characters dropped, bytes that are not UTF-8 written
 * as '?' (so text from hostile files cannot break the document).
 */
void lat_svg_put_text(FILE *out, const char *t);

/*
 * Start a @width x @height px document on @out with @title centred on top.
 * Returns 0 or -EINVAL (size below 200 x 150, NULL out).
 */
int lat_svg_begin(struct lat_svg *s, FILE *out, int width, int height,
		  const char *title);

/*
 * Right after lat_svg_begin: mark the chart as drawn from cut-short data
 * (an interrupted run): a red line under the title, "partial: @why",
 * class "partial", so the picture cannot pass for a whole run's. Takes
 * 16 px off the plot's top.
 */
void lat_svg_partial(struct lat_svg *s, const char *why);

/*
 * Fix the data ranges and draw the frame, grid, ticks, tick labels and
 * axis labels. Linear axes get 1-2-5 steps; a log y axis (y0 > 0) gets a
 * tick per decade and light minor lines. Returns 0 or -EINVAL (empty or
 * non-finite range, log axis with y0 <= 0).
 */
int lat_svg_axes(struct lat_svg *s, double x0, double x1, double y0,
		 double y1, bool ylog, const char *xlabel, const char *ylabel);

/*
 * Before lat_svg_axes: put the x ticks (and their vertical gridlines) at
 * @values, labelled @labels, instead of 1-2-5 steps. Both arrays are
 * kept by pointer and must outlive the drawing.
 */
void lat_svg_set_xticks(struct lat_svg *s, const double *values,
			const char *const *labels, size_t n);

/*
 * Before lat_svg_axes: y values are nanoseconds; tick labels carry their
 * unit ("500 ns", "20 µs", "1.5 ms") so the axis reads without a legend.
 */
void lat_svg_set_y_ns(struct lat_svg *s);

/* Polyline through the finite points; a non-finite y breaks the line. */
void lat_svg_line(struct lat_svg *s, const struct lat_svg_series *ser,
		  const double *x, const double *y, size_t n);

/*
 * Markers at (x, y) with vertical error bars from lo to hi (either array
 * may be NULL for no bar).
 */
void lat_svg_points(struct lat_svg *s, const struct lat_svg_series *ser,
		    const double *x, const double *y, const double *lo,
		    const double *hi, size_t n);

/* A vertical marker line at @x with @label beside its top. */
void lat_svg_vline(struct lat_svg *s, double x, const char *color,
		   const char *label);

/*
 * Before lat_svg_axes: put the legend of @entries entries under the x
 * axis label, in up to 3 columns, instead of over the plot's top-left
 * corner (where curves that start high would hide behind it). Takes
 * lat_svg_legend_height(@entries) px off the plot: make the document that
 * much taller. Returns that height.
 */
double lat_svg_set_legend_below(struct lat_svg *s, size_t entries);
double lat_svg_legend_height(size_t entries);

/* Add one legend entry (top-left of the plot area, stacked). */
void lat_svg_legend(struct lat_svg *s, const struct lat_svg_series *ser);

/* Close the document; 0, or -EIO if any write failed. */
int lat_svg_end(struct lat_svg *s);

/*
 * The percentile spectrum of latency histograms, as HdrHistogram's
 * plotter draws it: x = percentile on a log(1/(1-p)) axis with ticks and
 * gridlines at 0, 50, 90, 99, 99.9, ... % (as far as the largest count
 * resolves, at most 99.99999 %), y = latency (log by default, decades
 * with unit labels; linear on request), one line per curve with a
 * legend. A log axis shows zeros on its floor (the decade below the
 * smallest positive value). A curve with no values is listed in the
 * legend as "(no values)" and not drawn.
 */
struct lat_svg_curve {
	const char *label;
	const struct lat_hist *hist;
	double ns_per_value;  /* 0 = 1 (values are ns) */
	const char *dash;     /* stroke-dasharray, NULL for solid */
	const char *color;    /* CSS colour, NULL: the i-th of a palette */
};

/* The palette's i-th colour (cycles through 10). */
const char *lat_svg_palette(size_t i);

struct lat_svg_spectrum_opts {
	const char *title;
	int width, height;    /* 0 = 900 x 540 */
	bool linear;          /* linear latency axis from 0 */
	const char *partial;  /* non-NULL: lat_svg_partial's why */
};

/*
 * Write the whole document to @out. Returns 0, -EINVAL (NULL argument,
 * no curve, more than LAT_SVG_MAX_CURVES, width/height too small) or -EIO.
 */
#define LAT_SVG_MAX_CURVES 24
int lat_svg_percentiles(FILE *out, const struct lat_svg_spectrum_opts *o,
			const struct lat_svg_curve *curves, size_t n);

/* A 1-2-5 step giving about @ticks intervals over @range (> 0). */
double lat_svg_nice_step(double range, int ticks);

#endif

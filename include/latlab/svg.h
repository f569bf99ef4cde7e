/*
 * lat_svg: small, dependency-free SVG line charts for latlab's reports
 * (queue sweeps, knee plots, latency curves).
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

struct lat_svg {
	FILE *out;
	double width, height;
	double left, right, top, bottom; /* plot area, px from the edges */
	double x0, x1, y0, y1;           /* data range shown */
	bool ylog;
	int legend_rows;
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
 * Fix the data ranges and draw the frame, grid, ticks, tick labels and
 * axis labels. Linear axes get 1-2-5 steps; a log y axis (y0 > 0) gets a
 * tick per decade and light minor lines. Returns 0 or -EINVAL (empty or
 * non-finite range, log axis with y0 <= 0).
 */
int lat_svg_axes(struct lat_svg *s, double x0, double x1, double y0,
		 double y1, bool ylog, const char *xlabel, const char *ylabel);

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

/* Add one legend entry (top-left of the plot area, stacked). */
void lat_svg_legend(struct lat_svg *s, const struct lat_svg_series *ser);

/* Close the document; 0, or -EIO if any write failed. */
int lat_svg_end(struct lat_svg *s);

/* A 1-2-5 step giving about @ticks intervals over @range (> 0). */
double lat_svg_nice_step(double range, int ticks);

#endif

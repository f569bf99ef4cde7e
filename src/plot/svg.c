/*
 * lat_svg: SVG line charts. Coordinates are written with two decimals;
 * pixels finer than that are invisible.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/svg.h"

#define FONT "font-family=\"sans-serif\""

/* Length of the valid UTF-8 sequence at @t, or 0 if it is not one. */
static int utf8_len(const unsigned char *t)
{
	int n = *t < 0x80 ? 1 : *t >= 0xc2 && *t < 0xe0 ? 2 :
		*t >= 0xe0 && *t < 0xf0 ? 3 : *t >= 0xf0 && *t < 0xf5 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((t[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void lat_svg_put_text(FILE *out, const char *t)
{
	while (t && *t) {
		int n = utf8_len((const unsigned char *)t);

		switch (*t) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* Control characters are not allowed in XML 1.0,
			 * nor are bytes that are not UTF-8. */
			if (!n)
				fputc('?', out);
			else if ((unsigned char)*t >= 0x20 || *t == '\t' ||
				 *t == '\n')
				fwrite(t, 1, (size_t)n, out);
		}
		t += n ? n : 1;
	}
}

static void text(struct lat_svg *s, double x, double y, const char *anchor,
		 const char *extra, const char *t)
{
	fprintf(s->out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\" %s>",
		x, y, anchor, extra ? extra : "");
	lat_svg_put_text(s->out, t);
	fputs("</text>\n", s->out);
}

int lat_svg_begin(struct lat_svg *s, FILE *out, int width, int height,
		  const char *title)
{
	memset(s, 0, sizeof(*s));
	if (!out || width < 200 || height < 150)
		return -EINVAL;
	s->out = out;
	s->width = width;
	s->height = height;
	s->left = 80;
	s->right = 30;
	s->top = 50;
	s->bottom = 60;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		FONT " font-size=\"13\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, width, height);
	text(s, width / 2.0, 28, "middle", "font-size=\"16\" "
	     "font-weight=\"bold\" class=\"title\"", title);
	return 0;
}

void lat_svg_partial(struct lat_svg *s, const char *why)
{
	char line[320];

	snprintf(line, sizeof(line), "partial: %s", why ? why : "");
	text(s, s->width / 2.0, 46, "middle", "font-size=\"13\" "
	     "font-weight=\"bold\" fill=\"#c00000\" class=\"partial\"", line);
	s->top += 16;
}

static double px_x(const struct lat_svg *s, double x)
{
	double w = s->width - s->left - s->right;

	return s->left + (x - s->x0) / (s->x1 - s->x0) * w;
}

static double px_y(const struct lat_svg *s, double y)
{
	double h = s->height - s->top - s->bottom, f;

	if (s->ylog)
		f = (log10(y) - log10(s->y0)) / (log10(s->y1) - log10(s->y0));
	else
		f = (y - s->y0) / (s->y1 - s->y0);
	return s->height - s->bottom - f * h;
}

static bool shown(const struct lat_svg *s, double x, double y)
{
	return isfinite(x) && isfinite(y) && (!s->ylog || y > 0);
}

double lat_svg_nice_step(double range, int ticks)
{
	double raw = range / ticks, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void tick_label(char *buf, size_t len, double v, double step)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);

	if (fabs(v) < step * 1e-9)
		v = 0; /* no "-0.0" */
	snprintf(buf, len, "%.*f", dec, v);
}

/* "0", "500 ns", "20 µs", "1.5 ms", "2 s": a tick label with its unit. */
static void tick_label_ns(char *buf, size_t len, double ns)
{
	static const struct { double scale; const char *unit; } u[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "µs" }, { 1, "ns" },
	};
	size_t i = 0;

	if (ns == 0) {
		snprintf(buf, len, "0");
		return;
	}
	while (i + 1 < sizeof(u) / sizeof(u[0]) &&
	       fabs(ns) < u[i].scale * (1 - 1e-9))
		i++;
	snprintf(buf, len, "%.3g %s", ns / u[i].scale, u[i].unit);
}

void lat_svg_set_xticks(struct lat_svg *s, const double *values,
			const char *const *labels, size_t n)
{
	s->xticks = values;
	s->xtick_labels = labels;
	s->nxticks = n;
}

void lat_svg_set_y_ns(struct lat_svg *s)
{
	s->y_ns = true;
}

static void hline(struct lat_svg *s, double y, const char *stroke)
{
	fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
		"y2=\"%.2f\" stroke=\"%s\"/>\n", s->left, y,
		s->width - s->right, y, stroke);
}

static void x_tick(struct lat_svg *s, double v, const char *label)
{
	double x = px_x(s, v), yb = s->height - s->bottom;

	fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
		"y2=\"%.2f\" stroke=\"#e5e5e5\"/>\n", x, s->top, x, yb);
	fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
		"y2=\"%.2f\" stroke=\"black\"/>\n", x, yb, x, yb + 5);
	text(s, x, yb + 20, "middle", "class=\"tick\"", label);
}

static void x_axis(struct lat_svg *s, const char *label)
{
	double step = lat_svg_nice_step(s->x1 - s->x0, 8);
	char buf[32];

	if (s->xticks) {
		for (size_t i = 0; i < s->nxticks; i++)
			if (s->xticks[i] >= s->x0 && s->xticks[i] <= s->x1)
				x_tick(s, s->xticks[i], s->xtick_labels[i]);
	} else {
		for (double v = ceil(s->x0 / step - 1e-9) * step;
		     v <= s->x1 + step * 1e-9; v += step) {
			tick_label(buf, sizeof(buf), v, step);
			x_tick(s, v, buf);
		}
	}
	text(s, (s->left + s->width - s->right) / 2,
	     s->height - s->bottom + 45, "middle", "class=\"xlabel\"", label);
}

static void y_tick(struct lat_svg *s, double v, double step)
{
	double y = px_y(s, v);
	char buf[32];

	hline(s, y, "#e5e5e5");
	fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
		"y2=\"%.2f\" stroke=\"black\"/>\n", s->left - 5, y, s->left,
		y);
	if (s->y_ns)
		tick_label_ns(buf, sizeof(buf), v);
	else
		tick_label(buf, sizeof(buf), v, step);
	text(s, s->left - 8, y + 4, "end", "class=\"tick\"", buf);
}

static void y_axis(struct lat_svg *s, const char *label)
{
	char rot[96];

	if (s->ylog) {
		for (double d = floor(log10(s->y0)); d <= log10(s->y1) + 1e-9;
		     d++) {
			double v = pow(10, d);

			for (int m = 2; m < 10; m++)
				if (v * m > s->y0 && v * m < s->y1)
					hline(s, px_y(s, v * m), "#f3f3f3");
			if (v >= s->y0 * (1 - 1e-9))
				y_tick(s, v, v);
		}
	} else {
		double step = lat_svg_nice_step(s->y1 - s->y0, 6);

		for (double v = ceil(s->y0 / step - 1e-9) * step;
		     v <= s->y1 + step * 1e-9; v += step)
			y_tick(s, v, step);
	}
	snprintf(rot, sizeof(rot), "class=\"ylabel\" transform=\"rotate(-90 "
		 "%.2f %.2f)\"", 20.0, (s->top + s->height - s->bottom) / 2);
	text(s, 20, (s->top + s->height - s->bottom) / 2, "middle", rot,
	     label);
}

int lat_svg_axes(struct lat_svg *s, double x0, double x1, double y0,
		 double y1, bool ylog, const char *xlabel, const char *ylabel)
{
	if (!(x1 > x0) || !(y1 > y0) || !isfinite(x0 + x1 + y0 + y1) ||
	    (ylog && !(y0 > 0)))
		return -EINVAL;
	s->x0 = x0;
	s->x1 = x1;
	s->y0 = y0;
	s->y1 = y1;
	s->ylog = ylog;
	x_axis(s, xlabel);
	y_axis(s, ylabel);
	fprintf(s->out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"%.2f\" fill=\"none\" stroke=\"black\"/>\n"
		"<clipPath id=\"plot\"><rect x=\"%.2f\" y=\"%.2f\" "
		"width=\"%.2f\" height=\"%.2f\"/></clipPath>\n",
		s->left, s->top, s->width - s->left - s->right,
		s->height - s->top - s->bottom, s->left, s->top,
		s->width - s->left - s->right,
		s->height - s->top - s->bottom);
	return 0;
}

static void style(struct lat_svg *s, const struct lat_svg_series *ser)
{
	fprintf(s->out, "stroke=\"%s\"", ser->color);
	if (ser->dash) {
		fputs(" stroke-dasharray=\"", s->out);
		lat_svg_put_text(s->out, ser->dash);
		fputc('"', s->out);
	}
}

void lat_svg_line(struct lat_svg *s, const struct lat_svg_series *ser,
		  const double *x, const double *y, size_t n)
{
	bool open = false;

	fputs("<g clip-path=\"url(#plot)\" class=\"line\">\n", s->out);
	for (size_t i = 0; i < n; i++) {
		if (!shown(s, x[i], y[i])) {
			if (open)
				fputs("\"/>\n", s->out);
			open = false;
			continue;
		}
		if (!open) {
			fputs("<polyline fill=\"none\" stroke-width=\"2\" ",
			      s->out);
			style(s, ser);
			fputs(" points=\"", s->out);
			open = true;
		}
		fprintf(s->out, "%.2f,%.2f ", px_x(s, x[i]), px_y(s, y[i]));
	}
	if (open)
		fputs("\"/>\n", s->out);
	fputs("</g>\n", s->out);
}

void lat_svg_points(struct lat_svg *s, const struct lat_svg_series *ser,
		    const double *x, const double *y, const double *lo,
		    const double *hi, size_t n)
{
	fputs("<g clip-path=\"url(#plot)\" class=\"points\">\n", s->out);
	for (size_t i = 0; i < n; i++) {
		double px, top, bot;

		if (!shown(s, x[i], y[i]))
			continue;
		px = px_x(s, x[i]);
		if (lo && hi && shown(s, x[i], lo[i]) &&
		    shown(s, x[i], hi[i])) {
			top = px_y(s, hi[i]);
			bot = px_y(s, lo[i]);
			fprintf(s->out, "<path class=\"errorbar\" d=\"M%.2f "
				"%.2fV%.2fM%.2f %.2fh6M%.2f %.2fh6\" ", px,
				top, bot, px - 3, top, px - 3, bot);
			style(s, ser);
			fputs("/>\n", s->out);
		}
		fprintf(s->out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" "
			"fill=\"%s\"/>\n", px, px_y(s, y[i]), ser->color);
	}
	fputs("</g>\n", s->out);
}

void lat_svg_vline(struct lat_svg *s, double x, const char *color,
		   const char *label)
{
	double px;

	if (!isfinite(x) || x < s->x0 || x > s->x1)
		return;
	px = px_x(s, x);
	fprintf(s->out, "<line class=\"marker\" x1=\"%.2f\" y1=\"%.2f\" "
		"x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1.5\" "
		"stroke-dasharray=\"6 4\"/>\n", px, s->top, px,
		s->height - s->bottom, color);
	/* Label left of the line when it sits in the right half. */
	text(s, px > (s->left + s->width - s->right) / 2 ? px - 6 : px + 6,
	     s->top + 16, px > (s->left + s->width - s->right) / 2 ? "end" :
	     "start", "class=\"marker-label\"", label);
}

static int legend_cols(size_t entries)
{
	return entries <= 4 ? 1 : entries <= 10 ? 2 : 3;
}

double lat_svg_legend_height(size_t entries)
{
	int cols = legend_cols(entries);

	return 20.0 * (double)((entries + (size_t)cols - 1) / (size_t)cols) +
	       10;
}

double lat_svg_set_legend_below(struct lat_svg *s, size_t entries)
{
	double h = lat_svg_legend_height(entries);

	s->legend_cols = legend_cols(entries);
	s->bottom += h;
	return h;
}

void lat_svg_legend(struct lat_svg *s, const struct lat_svg_series *ser)
{
	int i = s->legend_rows++;
	double x = s->left + 12, y = s->top + 18 + 20 * i;

	if (s->legend_cols) {
		/* rows under the x axis label, filled column by column */
		int cols = s->legend_cols;
		double w = (s->width - s->left - s->right) / cols;

		x = s->left + 12 + w * (i % cols);
		y = s->height - s->bottom + 64 + 20 * (i / cols);
	}

	/* A pale box so that curves behind the legend stay readable. */
	fprintf(s->out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"20\" fill=\"white\" fill-opacity=\"0.85\"/>\n",
		x - 6, y - 15, 44 + 7.2 * (double)strlen(ser->label));
	if (ser->points)
		fprintf(s->out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
			"fill=\"%s\"/>\n", x + 12, y - 4, ser->color);
	else {
		fprintf(s->out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
			"y2=\"%.2f\" stroke-width=\"2\" ", x, y - 4, x + 24,
			y - 4);
		style(s, ser);
		fputs("/>\n", s->out);
	}
	text(s, x + 32, y, "start", "class=\"legend\"", ser->label);
}

int lat_svg_end(struct lat_svg *s)
{
	fputs("</svg>\n", s->out);
	return ferror(s->out) || fflush(s->out) ? -EIO : 0;
}

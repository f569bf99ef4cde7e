/*
 * Flame graphs as standalone SVG: frames as <g class="f"> (title, rect,
 * text), the root at the bottom, widths proportional to inclusive weight,
 * and the script of prof_svg_js.c for hover, zoom and search.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/svg.h"
#include "prof_svg.h"
#include "prof_tree.h"

#define FRAME_H 16
#define PAD 10
#define TOP 56         /* title, subtitle, controls */
#define BOTTOM 28      /* the details line */
#define CHAR_W 7.0     /* px per character of the 12 px monospace font */
#define MIN_W 0.1      /* narrower frames are not drawn */

struct svg_ctx {
	FILE *out;
	const struct lat_prof_svg_opts *o;
	const char *unit;
	int width, height;
	double total[2];        /* [PROF_AFTER], [PROF_BEFORE] */
	double max_delta;       /* diff: largest |change of share| */
	bool diff;
	size_t hidden_before;   /* diff: frames only in before */
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Same name, same colour, in every graph. */
static void palette_fill(enum lat_prof_palette pal, const char *name,
			 char *buf, size_t len)
{
	uint32_t h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;

	if (pal == LAT_PROF_COLD)
		snprintf(buf, len, "rgb(%d,%d,%d)", (int)(50 + 70 * v1),
			 (int)(110 + 100 * v2), (int)(190 + 65 * v3));
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", (int)(205 + 50 * v3),
			 (int)(230 * v1), (int)(55 * v2));
}

static double share_delta(const struct svg_ctx *c, const struct prof_node *n)
{
	return n->w[PROF_AFTER] / c->total[PROF_AFTER] -
	       n->w[PROF_BEFORE] / c->total[PROF_BEFORE];
}

/* Red grew, blue shrank, white unchanged; deeper for larger changes. */
static void diff_fill(const struct svg_ctx *c, double d, char *buf,
		      size_t len)
{
	int fade;

	if (d == 0 || c->max_delta == 0) {
		snprintf(buf, len, "rgb(255,255,255)");
		return;
	}
	/* at least a visible tint for the smallest change */
	fade = (int)(215 - 215 * fabs(d) / c->max_delta);
	if (fade < 0)
		fade = 0;
	if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", fade, fade);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", fade, fade);
}

static void max_delta(struct svg_ctx *c, const struct prof_node *n)
{
	double d = fabs(share_delta(c, n));

	if (d > c->max_delta)
		c->max_delta = d;
	if (!n->w[PROF_AFTER])
		c->hidden_before++;
	for (size_t i = 0; i < n->nkids; i++)
		max_delta(c, n->kids[i]);
}

static void put_label(FILE *out, const char *name, double w)
{
	int k = (int)((w - 6) / CHAR_W);
	size_t len = strlen(name);
	char *s;

	if (k < 3)
		return;
	if (len <= (size_t)k) {
		lat_svg_put_text(out, name);
		return;
	}
	s = strndup(name, (size_t)k - 2);
	if (!s)
		return;
	/* do not cut a UTF-8 sequence in half */
	for (size_t i = strlen(s); i > 0 && ((unsigned char)s[i - 1] & 0xc0)
					     == 0x80; i--)
		s[i - 1] = '\0';
	if (*s && ((unsigned char)s[strlen(s) - 1] & 0xc0) == 0xc0)
		s[strlen(s) - 1] = '\0';
	lat_svg_put_text(out, s);
	fputs("..", out);
	free(s);
}

static void frame(struct svg_ctx *c, const struct prof_node *n, double x)
{
	double scale = (c->width - 2 * PAD) / c->total[PROF_AFTER];
	double w = n->w[PROF_AFTER] * scale;
	double y = c->height - BOTTOM - (n->depth + 1) * FRAME_H;
	double pct = 100.0 * n->w[PROF_AFTER] / c->total[PROF_AFTER];
	char fill[32], info[128];

	if (w < MIN_W)
		return; /* its weight stays in the parent's width */
	if (c->diff) {
		double d = share_delta(c, n);

		diff_fill(c, d, fill, sizeof(fill));
		snprintf(info, sizeof(info), " (%llu %s, %.2f%%; %+.2f%% of "
			 "the total)", (unsigned long long)n->w[PROF_AFTER],
			 c->unit, pct, 100 * d);
	} else {
		palette_fill(c->o->palette, n->name, fill, sizeof(fill));
		snprintf(info, sizeof(info), " (%llu %s, %.2f%%)",
			 (unsigned long long)n->w[PROF_AFTER], c->unit, pct);
	}
	if (n->depth == 0 && !c->diff)
		snprintf(fill, sizeof(fill), "rgb(200,200,200)");
	fputs("<g class=\"f\" data-n=\"", c->out);
	lat_svg_put_text(c->out, n->name);
	fputs("\" data-info=\"", c->out);
	lat_svg_put_text(c->out, n->name);
	fprintf(c->out, "%s\"><title>", info);
	lat_svg_put_text(c->out, n->name);
	fprintf(c->out, "%s</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\" rx=\"2\" data-w=\"%llu\" "
		"data-d=\"%d\"", info, x, y, w, FRAME_H - 1, fill,
		(unsigned long long)n->w[PROF_AFTER], n->depth);
	if (c->diff)
		fprintf(c->out, " data-delta=\"%.6g\"", share_delta(c, n));
	fprintf(c->out, "/><text x=\"%.2f\" y=\"%.2f\">", x + 3,
		y + FRAME_H - 4.5);
	put_label(c->out, n->name, w);
	fputs("</text></g>\n", c->out);
	for (size_t i = 0; i < n->nkids; i++) {
		frame(c, n->kids[i], x);
		x += n->kids[i]->w[PROF_AFTER] * scale;
	}
}

static void header(struct svg_ctx *c, const char *subtitle)
{
	const char *title = c->o->title ? c->o->title : "Flame graph";
	const char *bg = c->diff ? "#f4f4f4" :
			 c->o->palette == LAT_PROF_COLD ? "#eef4fb" : "#fbf6ee";

	fprintf(c->out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"data-width=\"%d\" data-pad=\"%d\">\n"
		"<style>text { font-family: monospace; font-size: 12px; "
		"fill: #000; } g.f { cursor: pointer; } g.f:hover rect "
		"{ stroke: #000; stroke-width: 0.5; } .btn { cursor: pointer; "
		"fill: #335; } #title { font-size: 17px; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"22\" text-anchor=\"middle\">",
		c->width, c->height, c->width, c->height, c->width, PAD,
		c->width, c->height, bg, c->width / 2);
	lat_svg_put_text(c->out, title);
	fprintf(c->out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\" "
		"text-anchor=\"middle\">", c->width / 2);
	lat_svg_put_text(c->out, subtitle);
	fprintf(c->out, "</text>\n"
		"<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"22\" "
		"style=\"display:none\">Reset zoom</text>\n"
		"<g id=\"search\" class=\"btn\"><rect x=\"%d\" y=\"8\" "
		"width=\"86\" height=\"20\" rx=\"3\" fill=\"#fff\" "
		"stroke=\"#888\"/><text x=\"%d\" y=\"22\">Search...</text></g>\n"
		"<text id=\"clear\" class=\"btn\" x=\"%d\" y=\"48\">Clear</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"48\" text-anchor=\"end\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\">",
		PAD, c->width - PAD - 86, c->width - PAD - 80,
		c->width - PAD - 40, c->width - PAD - 48, PAD,
		c->height - 10);
	fputs(c->diff ? "red: share grew, blue: shrank, white: unchanged; "
		      "click a frame to zoom" :
		      "hover for details, click a frame to zoom", c->out);
	fputs("</text>\n", c->out);
}

static int write_graph(struct svg_ctx *c, struct prof_node *root,
		       const char *subtitle)
{
	c->unit = c->o->unit ? c->o->unit : "samples";
	c->width = c->o->width ? c->o->width : 1200;
	if (c->width < 200 || c->width > 100000)
		return -EINVAL;
	prof_tree_sort(root);
	c->height = TOP + (prof_tree_depth(root) + 1) * FRAME_H + BOTTOM;
	header(c, subtitle);
	frame(c, root, PAD);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", c->out);
	fputs(prof_svg_script, c->out);
	fputs("]]></script>\n</svg>\n", c->out);
	return ferror(c->out) ? -EIO : 0;
}

int lat_prof_svg_write(const struct lat_prof_folded *f,
		       const struct lat_prof_svg_opts *o, FILE *out)
{
	struct svg_ctx c = { .out = out, .o = o };
	struct prof_node *root;
	int rc;

	if (!f->total)
		return -EINVAL;
	root = prof_tree_new("all");
	if (!root)
		return -ENOMEM;
	rc = prof_tree_add_folded(root, f, PROF_AFTER);
	c.total[PROF_AFTER] = (double)f->total;
	if (!rc)
		rc = write_graph(&c, root, o->subtitle ? o->subtitle : "");
	prof_tree_free(root);
	return rc;
}

int lat_prof_svg_write_diff(const struct lat_prof_folded *before,
			    const struct lat_prof_folded *after,
			    const struct lat_prof_svg_opts *o, FILE *out)
{
	struct svg_ctx c = { .out = out, .o = o, .diff = true };
	struct prof_node *root;
	char sub[512];
	int rc;

	if (!before->total || !after->total)
		return -EINVAL;
	root = prof_tree_new("all");
	if (!root)
		return -ENOMEM;
	rc = prof_tree_add_folded(root, after, PROF_AFTER);
	if (!rc)
		rc = prof_tree_add_folded(root, before, PROF_BEFORE);
	c.total[PROF_AFTER] = (double)after->total;
	c.total[PROF_BEFORE] = (double)before->total;
	if (!rc) {
		max_delta(&c, root);
		snprintf(sub, sizeof(sub), "%s%swidths: after (%llu); colours: "
			 "change of each frame's share of the total from "
			 "before (%llu); %zu frame(s) only in before, not drawn",
			 o->subtitle ? o->subtitle : "",
			 o->subtitle ? "; " : "",
			 (unsigned long long)after->total,
			 (unsigned long long)before->total, c.hidden_before);
		rc = write_graph(&c, root, sub);
	}
	prof_tree_free(root);
	return rc;
}

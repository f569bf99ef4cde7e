/*
 * lat_svg_percentiles on edge cases the CLI tests do not reach: refused
 * arguments, an empty histogram (listed, not drawn), zeros on a log axis
 * (drawn on the floor, never as NaN or inf), a single value, a linear
 * axis, the x axis ending where the largest count stops resolving, and
 * a chart of cut-short data marked partial under its title.
 * Well-formedness and rendering are checked in svg_cli.sh (Chromium).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist.h"
#include "latlab/svg.h"
#include "t_test.h"

/* Render @n curves into a string (caller frees); *rc gets the result. */
static char *render(const struct lat_svg_curve *c, size_t n, bool linear,
		    int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = lat_svg_percentiles(f, &(struct lat_svg_spectrum_opts){
					  .title = "t", .linear = linear },
				  c, n);
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(void)
{
	struct lat_hist *empty, *zeros, *one, *many;
	struct lat_svg_curve c[LAT_SVG_MAX_CURVES + 1];
	char *svg;
	int rc;

	T_EQ_I64(lat_hist_create(1, 3600000000000LL, 3, &empty), 0);
	T_EQ_I64(lat_hist_create(1, 3600000000000LL, 3, &zeros), 0);
	T_EQ_I64(lat_hist_create(1, 3600000000000LL, 3, &one), 0);
	T_EQ_I64(lat_hist_create(1, 3600000000000LL, 3, &many), 0);
	for (int i = 0; i < 1000; i++)
		lat_hist_record(zeros, i % 2 ? 0 : 500);
	lat_hist_record(one, 1234);
	for (int i = 1; i <= 100000; i++)
		lat_hist_record(many, i);

	/* refused: no curve, too many, a curve without histogram */
	T_EQ_I64(lat_svg_percentiles(stdout, &(struct lat_svg_spectrum_opts){
					     0 }, c, 0), -EINVAL);
	for (size_t i = 0; i <= LAT_SVG_MAX_CURVES; i++)
		c[i] = (struct lat_svg_curve){ "x", one, 1, NULL, NULL };
	T_EQ_I64(lat_svg_percentiles(stdout, &(struct lat_svg_spectrum_opts){
					     0 }, c, LAT_SVG_MAX_CURVES + 1),
		 -EINVAL);
	c[0].hist = NULL;
	T_EQ_I64(lat_svg_percentiles(stdout, &(struct lat_svg_spectrum_opts){
					     0 }, c, 1), -EINVAL);

	c[0] = (struct lat_svg_curve){ "empty", empty, 1, NULL, NULL };
	c[1] = (struct lat_svg_curve){ "zeros", zeros, 1, "8 4", NULL };
	c[2] = (struct lat_svg_curve){ "one", one, 1, NULL, "#123456" };
	c[3] = (struct lat_svg_curve){ "many", many, 1e3, NULL, NULL };
	svg = render(c, 4, false, &rc);
	T_EQ_I64(rc, 0);
	T_CHECK(strstr(svg, ">empty (no values)</text>") != NULL);
	T_CHECK(strstr(svg, ">zeros</text>") != NULL);
	/* three curves drawn (the empty one is not), each one polyline:
	 * the zeros sit on the floor instead of breaking the line */
	T_EQ_I64(count(svg, "<polyline"), 3);
	T_CHECK(!strstr(svg, "nan") && !strstr(svg, "inf"));
	T_CHECK(strstr(svg, "stroke=\"#123456\"") != NULL);
	/* 100000 values resolve 5 nines: the axis ends at 99.999% */
	T_CHECK(strstr(svg, ">99.999%</text>") != NULL);
	T_CHECK(!strstr(svg, ">99.9999%</text>"));
	/* many is in us (1e3 ns per value): the top decade is 100 ms */
	T_CHECK(strstr(svg, ">100 ms</text>") != NULL);
	T_CHECK(strstr(svg, ">latency (log scale)</text>") != NULL);
	T_CHECK(strstr(svg, "</svg>\n") != NULL);
	free(svg);

	svg = render(c + 2, 1, true, &rc);
	T_EQ_I64(rc, 0);
	T_EQ_I64(count(svg, "<polyline"), 1);
	T_CHECK(strstr(svg, ">latency</text>") != NULL);
	T_CHECK(strstr(svg, ">0</text>") != NULL);
	/* a single value still gets the minimum axis of three nines */
	T_CHECK(strstr(svg, ">99.9%</text>") != NULL);
	free(svg);

	/* partial: said in red under the title (escaped), nowhere else */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		T_EQ_I64(lat_svg_percentiles(f, &(struct lat_svg_spectrum_opts){
			.title = "t", .partial = "stopped <early>" }, c + 2, 1),
			 0);
		fclose(f);
		T_EQ_I64(count(buf, "class=\"partial\""), 1);
		T_CHECK(strstr(buf, "class=\"partial\">partial: stopped "
				    "&lt;early&gt;</text>") != NULL);
		free(buf);
		svg = render(c + 2, 1, false, &rc);
		T_CHECK(!strstr(svg, "partial"));
		free(svg);
	}

	lat_hist_free(empty);
	lat_hist_free(zeros);
	lat_hist_free(one);
	lat_hist_free(many);
	T_DONE();
}

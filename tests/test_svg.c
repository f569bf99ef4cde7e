/*
 * Description: the lat_svg chart primitives (lat_svg_percentiles has its
 * own test): refused sizes and ranges; text from hostile files escaped
 * (markup, control bytes, invalid UTF-8 as '?'); a non-finite y breaks a
 * line instead of drawing NaN; a log axis refuses y0 <= 0; 1-2-5 steps;
 * every begin has its end. Rendering is checked in a browser by the CLI
 * tests that write SVG.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/svg.h"
#include "t_test.h"

static char *text_of(const char *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lat_svg_put_text(f, t);
	fclose(f);
	return buf;
}

static void test_text(void)
{
	char *s = text_of("<a & \"b\">\x01 ok \xff\xfe µs");

	T_CHECK(s && !strchr(s, '<') && !strchr(s, '"'));
	T_CHECK(strstr(s, "&lt;a &amp; &quot;b&quot;&gt;"));
	T_CHECK(!strchr(s, '\x01'));
	T_CHECK(strstr(s, "??") && strstr(s, "µs"));
	free(s);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_chart(void)
{
	static const double x[] = { 1, 2, 3, 4 }, y[] = { 10, NAN, 30, 40 };
	const struct lat_svg_series ser = { "wait", "#1f77b4", NULL, false };
	struct lat_svg s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	T_EQ_I64(lat_svg_begin(&s, f, 100, 100, "t"), -EINVAL);
	T_EQ_I64(lat_svg_begin(&s, NULL, 640, 480, "t"), -EINVAL);
	T_EQ_I64(lat_svg_begin(&s, f, 640, 480, "a <title>"), 0);
	T_EQ_I64(lat_svg_axes(&s, 1, 1, 0, 50, false, "x", "y"), -EINVAL);
	T_EQ_I64(lat_svg_axes(&s, 1, 4, 0, 50, true, "x", "y"), -EINVAL);
	T_EQ_I64(lat_svg_axes(&s, 1, 4, 1, 50, true, "rho", "W/tau"), 0);
	lat_svg_line(&s, &ser, x, y, 4);
	lat_svg_vline(&s, 2.5, "#7f7f7f", "knee");
	lat_svg_legend(&s, &ser);
	T_EQ_I64(lat_svg_end(&s), 0);
	fclose(f);
	T_CHECK(buf && strstr(buf, "<svg") && strstr(buf, "</svg>"));
	T_CHECK(strstr(buf, "a &lt;title&gt;"));
	T_CHECK(!strstr(buf, "nan") && !strstr(buf, "inf"));
	/* the NaN breaks the line: two polylines, none through it */
	T_EQ_I64(count(buf, "<polyline"), 2);
	free(buf);
}

static void test_steps(void)
{
	T_NEAR(lat_svg_nice_step(1, 5), 0.2, 1e-12);
	T_NEAR(lat_svg_nice_step(10, 4), 2, 1e-12);
	T_NEAR(lat_svg_nice_step(0.9, 9), 0.1, 1e-12);
	T_NEAR(lat_svg_nice_step(1000, 2), 500, 1e-9);
}

int main(void)
{
	test_text();
	test_chart();
	test_steps();
	T_DONE();
}

/* Description: error codes to text, duration formatting, JSON nesting. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/clock.h"
#include "latlab/common.h"
#include "latlab/hist.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "t_test.h"

static void test_strerror(void)
{
	T_CHECK(!strcmp(lat_strerror(0), "success"));
	T_CHECK(!strcmp(lat_strerror(-EINVAL), strerror(EINVAL)));
	T_CHECK(!strcmp(lat_strerror(-LAT_ETRUNC), "truncated input"));
	T_CHECK(!strcmp(lat_strerror(12345678), "unknown error"));
}

static void test_fmt(void)
{
	char b[LAT_FMT_LEN];

	T_CHECK(!strcmp(lat_fmt_ns(b, sizeof(b), 812), "812 ns"));
	T_CHECK(!strcmp(lat_fmt_ns(b, sizeof(b), 12400), "12.4 µs"));
	T_CHECK(!strcmp(lat_fmt_ns(b, sizeof(b), 3070000), "3.07 ms"));
	T_CHECK(!strcmp(lat_fmt_ns(b, sizeof(b), 1.5e9), "1.50 s"));
	T_CHECK(!strcmp(lat_fmt_ns(b, sizeof(b), 2.5), "2.50 ns"));
	T_CHECK(!strcmp(lat_fmt_rate(b, sizeof(b), 200000), "200.0 k/s"));
}

/* A command's document: "command" first, closed by doc_end. */
static void test_json_doc(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lat_json j;

	lat_json_doc_begin(&j, f, "mem");
	lat_json_int(&j, "n", 1);
	T_EQ_I64(lat_json_doc_end(&j), 0);
	fclose(f);
	T_CHECK(!strcmp(buf, "{\"command\":\"mem\",\"n\":1}\n"));
	free(buf);
}

static void test_json(void)
{
	char buf[512] = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	struct lat_json j;

	lat_json_init(&j, f);
	lat_json_obj_begin(&j, NULL);
	lat_json_str(&j, "s", "a\"b\n");
	lat_json_arr_begin(&j, "a");
	lat_json_int(&j, NULL, -3);
	lat_json_double(&j, NULL, 0.0 / 0.0);
	lat_json_double(&j, NULL, 1700000000.123);
	lat_json_double(&j, NULL, 0.1 + 0.2);
	lat_json_arr_end(&j);
	lat_json_bool(&j, "t", true);
	lat_json_obj_end(&j);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(f);
	T_CHECK(!strcmp(buf, "{\"s\":\"a\\\"b\\n\",\"a\":[-3,null,1700000000.123,"
		     "0.30000000000000004],\"t\":true}\n"));

	f = fmemopen(buf, sizeof(buf) - 1, "w");
	lat_json_init(&j, f);
	lat_json_obj_begin(&j, NULL);
	T_EQ_I64(lat_json_finish(&j), -EINVAL); /* unclosed object */
	fclose(f);
}

static void say_text(FILE *out, const void *r)
{
	fprintf(out, "%s\n", (const char *)r);
}

static void say_doc(struct lat_json *j, const void *r)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "say", r);
	lat_json_obj_end(j);
}

static void say_doc_unclosed(struct lat_json *j, const void *r)
{
	lat_json_obj_begin(j, NULL);
	lat_json_str(j, "say", r);
}

/* Text or one document; a failed stream is -EIO on both paths. */
static void test_json_or_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	FILE *full = fopen("/dev/full", "w");

	T_EQ_I64(lat_json_or_text(f, false, "hi", say_text, say_doc), 0);
	T_EQ_I64(lat_json_or_text(f, true, "hi", say_text, say_doc), 0);
	T_EQ_I64(lat_json_or_text(f, true, "hi", say_text, say_doc_unclosed),
		 -EINVAL);
	fclose(f);
	T_CHECK(len > 16 && !strncmp(buf, "hi\n{\"say\":\"hi\"}\n", 16));
	free(buf);
	if (!full) {
		T_CHECK(!"/dev/full opens");
		return;
	}
	T_EQ_I64(lat_json_or_text(full, false, "hi", say_text, say_doc), -EIO);
	clearerr(full);
	T_EQ_I64(lat_json_or_text(full, true, "hi", say_text, say_doc), -EIO);
	fclose(full);
}

/* Paragraphs wrap at 78 columns, indent later lines, keep "12 µs" whole. */
static void test_paragraph(void)
{
	char *buf = NULL, *nl;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char text[400];

	T_CHECK(f != NULL);
	if (!f)
		return;
	/* 71 columns of words, then a number and its unit at the edge */
	snprintf(text, sizeof(text), "%s 12 µs and more", "aaaaaaaaa "
		 "bbbbbbbbb ccccccccc ddddddddd eeeeeeeee fffffffff "
		 "ggggggggg");
	lat_fmt_paragraph(f, text, 5);
	fclose(f);
	nl = strchr(buf, '\n');
	T_CHECK(nl != NULL);
	if (nl) {
		/* "12 µs" did not fit after 5 + 69 columns: both moved */
		T_CHECK(!strncmp(buf + (nl - buf) - 9, "ggggggggg", 9));
		T_CHECK(!strcmp(nl, "\n     12 µs and more\n"));
	}
	free(buf);
}

int main(void)
{
	test_strerror();
	test_fmt();
	test_json();
	test_json_doc();
	test_json_or_text();
	test_paragraph();
	T_DONE();
}

/*
 * The pipeline's progress line and the partial mark of a stopped run's
 * hlog: their exact text, since terminals redraw the one and readers
 * (and people) read the other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latlab/pipe.h"
#include "t_test.h"

static char *capture_progress(uint64_t done, uint64_t planned, double t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	T_CHECK(f != NULL);
	lat_pipe_progress_print(f, done, planned, t);
	fclose(f);
	return buf;
}

static void test_progress(void)
{
	char *s = capture_progress(500, 2000, 2.5);

	/* 200 events/s over 2.5 s: 1500 left take 7.5 s; redrawn in place */
	T_CHECK(s[0] == '\r' && !strchr(s, '\n'));
	T_CHECK(strstr(s, "500/2000 events, ") != NULL);
	T_CHECK(strstr(s, ", 2.5 s elapsed, ETA 7.5 s") != NULL);
	free(s);
	s = capture_progress(0, 2000, 1); /* nothing sent yet: no ETA */
	T_CHECK(strstr(s, "ETA 0.0 s") != NULL);
	free(s);
}

static void test_partial_mark(void)
{
	struct lat_pipe_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&r, 0, sizeof(r));
	r.produced = 1234;
	T_EQ_I64(lat_pipe_hlog_mark_partial(f, &r, 5000,
					    "interrupted by SIGINT"), 0);
	fclose(f);
	T_CHECK(!strcmp(buf, "#[Partial: interrupted by SIGINT after 1234 "
			"of 5000 events]\n"));
	free(buf);
}

int main(void)
{
	test_progress();
	test_partial_mark();
	T_DONE();
}

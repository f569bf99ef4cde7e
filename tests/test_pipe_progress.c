/*
 * A run by time, its progress and its end: a duration turned into an
 * event count; the progress line and the partial mark of a stopped run's
 * hlog, as exact text, since terminals redraw the one and readers (and
 * people) read the other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latlab/pipe.h"
#include "t_test.h"

static void test_duration(void)
{
	struct lat_pipe_config c;

	lat_pipe_config_init(&c);
	c.rate = 1000;
	T_EQ_I64(lat_pipe_config_duration(&c, 2.5e9), 0);
	T_EQ_I64(c.events, 2500);
	T_EQ_I64(lat_pipe_config_duration(&c, 1.0005e6), 0); /* rounds up */
	T_EQ_I64(c.events, 2);
	/* shorter than one gap: refused, the count left as it was */
	T_EQ_I64(lat_pipe_config_duration(&c, 0.5e6), -EDOM);
	T_EQ_I64(c.events, 2);
	c.rate = 1e9;
	T_EQ_I64(lat_pipe_config_duration(&c, 1e13), -ERANGE);
	T_EQ_I64(c.events, 2);
}

/* --stall-at's text: both fields or nothing, the config untouched. */
static void test_stall_parse(void)
{
	struct lat_pipe_config c;

	lat_pipe_config_init(&c);
	T_EQ_I64(lat_pipe_stall_parse(&c, "5000:2ms"), 0);
	T_EQ_I64(c.stall_seq, 5000);
	T_CHECK(c.stall_ns == 2e6);
	T_EQ_I64(lat_pipe_stall_parse(&c, "7:300"), 0); /* bare: ns */
	T_CHECK(c.stall_ns == 300);
	const char *bad[] = { "7", ":2ms", "x:2ms", "9:0ms", "9:", "9:-1ms",
			      "123456789012345678901234567890123:1ms" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		T_EQ_I64(lat_pipe_stall_parse(&c, bad[i]), -EINVAL);
	T_EQ_I64(c.stall_seq, 7);
	T_CHECK(c.stall_ns == 300);
}

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

struct stopper {
	int polls, flows;
	bool stop_at_third;
};

static bool stop_fn(void *ctx, uint64_t produced, double elapsed_s)
{
	struct stopper *st = ctx;

	(void)produced;
	(void)elapsed_s;
	return ++st->polls == 3 && st->stop_at_third;
}

static void on_flow(void *ctx)
{
	((struct stopper *)ctx)->flows++;
}

/* The watcher: the caller's stop is obeyed, the first event announced
 * once, the line drawn from 0.5 s on at most every 250 ms, then erased. */
static void test_watch(void)
{
	struct stopper st = { .stop_at_third = true };
	struct lat_pipe_progress p = { .planned = 100, .stop = stop_fn,
				       .stop_ctx = &st, .on_flow = on_flow };
	char *buf = NULL;
	size_t len = 0;

	p.out = open_memstream(&buf, &len);
	T_CHECK(p.out != NULL);
	T_CHECK(!lat_pipe_progress_watch(&p, 0, 0.3));  /* set-up: no flow */
	T_EQ_I64(st.flows, 0);
	T_CHECK(!lat_pipe_progress_watch(&p, 10, 0.7)); /* drawn, flows */
	T_EQ_I64(st.flows, 1);
	T_CHECK(lat_pipe_progress_watch(&p, 20, 0.8));  /* the caller stops */
	st.stop_at_third = false;
	T_CHECK(!lat_pipe_progress_watch(&p, 30, 0.8)); /* too soon: no line */
	T_CHECK(!lat_pipe_progress_watch(&p, 40, 0.96)); /* 250 ms: a line */
	T_EQ_I64(st.flows, 1);
	fflush(p.out);
	T_CHECK(strstr(buf, "10/100 events") && strstr(buf, "40/100 events"));
	T_CHECK(!strstr(buf, "30/100 events") && !strstr(buf, "20/100"));
	lat_pipe_progress_end(&p);
	fclose(p.out);
	T_CHECK(len > 80 && buf[len - 1] == '\r'); /* erased in place */
	free(buf);
	/* nothing drawn (no terminal, or a short run): nothing to erase */
	memset(&p, 0, sizeof(p));
	T_CHECK(!lat_pipe_progress_watch(&p, 5, 3));
	lat_pipe_progress_end(&p);
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
	test_duration();
	test_stall_parse();
	test_progress();
	test_watch();
	test_partial_mark();
	T_DONE();
}

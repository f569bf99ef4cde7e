/*
 * Description: lat_co, the coordinated-omission experiment, on a short
 * run in CPU time (other load cannot add latency there): bad configs
 * refused; every request recorded once in the closed and open
 * histograms; the correction adds the missed samples (corrected count >
 * closed count); the stall shows in the closed, corrected and open maxima
 * (lower bounds the busy work guarantees), and the closed-loop client
 * sent late after it; the SVG is one document; the report (lat_co_report_*)
 * counts every request and both its printers show them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/co.h"
#include "latlab/json.h"
#include "t_test.h"

#define STALL_NS 2e6

static void test_config(void)
{
	struct lat_co_config c = { .requests = 100, .rate_per_s = 10000,
				   .service_ns = 10000, .stall_at = 50,
				   .stall_ns = STALL_NS, .clock = LAT_CO_CPU };

	T_EQ_I64(lat_co_config_check(&c), 0);
	c.requests = 0;
	T_EQ_I64(lat_co_config_check(&c), -EINVAL);
	c.requests = 100;
	c.stall_at = 100;
	T_EQ_I64(lat_co_config_check(&c), -EINVAL);
	c.stall_at = 50;
	c.service_ns = 100000; /* 10000/s x 100 us = 100% busy */
	T_EQ_I64(lat_co_config_check(&c), -EINVAL);
	c.service_ns = 10000;
	c.stall_ns = -1;
	T_EQ_I64(lat_co_config_check(&c), -EINVAL);
}

static void test_run(void)
{
	struct lat_co_config c = { .requests = 200, .rate_per_s = 10000,
				   .service_ns = 10000, .stall_at = 100,
				   .stall_ns = STALL_NS, .clock = LAT_CO_CPU };
	struct lat_hist closed, corrected, open;
	struct lat_co_closed_stats st;
	struct lat_clock_cal cal;
	char *svg = NULL;
	size_t len = 0;
	FILE *f;

	memset(&cal, 0, sizeof(cal));
	T_EQ_I64(lat_hist_init(&closed, 1, 3600000000000LL, 3), 0);
	T_EQ_I64(lat_hist_init(&corrected, 1, 3600000000000LL, 3), 0);
	T_EQ_I64(lat_hist_init(&open, 1, 3600000000000LL, 3), 0);
	T_EQ_I64(lat_co_run(&c, &cal, &closed, &corrected, &open, &st), 0);
	T_EQ_I64(closed.total_count, 200);
	T_EQ_I64(open.total_count, 200);
	T_CHECK(corrected.total_count > closed.total_count);
	/* the stalled request's own latency includes the stall */
	T_CHECK(lat_hist_max(&closed) >= (int64_t)STALL_NS);
	T_CHECK(lat_hist_max(&open) >= (int64_t)STALL_NS);
	T_CHECK(lat_hist_max(&corrected) >= (int64_t)STALL_NS);
	/* the next request was due 100 us after it: sent late */
	T_CHECK(st.sent_late >= 1);
	T_CHECK(st.max_send_delay_ns >= (uint64_t)(STALL_NS - 1e5));
	f = open_memstream(&svg, &len);
	T_EQ_I64(lat_co_write_svg(f, &c, &closed, &corrected, &open), 0);
	fclose(f);
	T_CHECK(svg && strstr(svg, "<svg") && strstr(svg, "</svg>"));
	/* the judgement is consistent with the numbers it came from */
	{
		struct lat_co_verdict v;

		lat_co_judge(&c, &closed, &open, &v);
		T_NEAR(v.held_back, STALL_NS * 10000 / 1e9, 1e-9);
		if (v.finding == LAT_CO_OMISSION)
			T_CHECK(v.healthy_ns * 10 <
				lat_hist_value_at_percentile(&open, 99));
		T_EQ_I64(v.max_agrees, lat_hist_max(&open) <=
			 lat_hist_max(&closed) + lat_hist_max(&closed) / 5);
	}
	free(svg);
	lat_hist_destroy(&closed);
	lat_hist_destroy(&corrected);
	lat_hist_destroy(&open);
}

/*
 * The report latlab co prints, through the public API: every request in
 * each mode, the finding judged, and both printers showing the counts.
 */
static void test_report(void)
{
	struct lat_co_config c = { .requests = 200, .rate_per_s = 10000,
				   .service_ns = 10e3, .stall_at = 100,
				   .stall_ns = STALL_NS, .clock = LAT_CO_CPU };
	static struct lat_co_report r;
	char *text = NULL, *json = NULL, sentence[LAT_CO_TEXT_LEN];
	size_t tlen = 0, jlen = 0;
	struct lat_json j;
	FILE *f;

	c.requests = 0;
	T_EQ_I64(lat_co_report_init(&r, &c), -EINVAL);
	c.requests = 200;
	T_EQ_I64(lat_co_report_init(&r, &c), 0);
	T_EQ_I64(lat_co_report_run(&r), 0);
	T_EQ_I64(r.st.done, 200);
	T_EQ_I64(r.h[LAT_CO_CLOSED].total_count, 200);
	T_EQ_I64(r.h[LAT_CO_OPEN].total_count, 200);
	T_CHECK(r.h[LAT_CO_CORRECTED].total_count > 200);
	T_CHECK(lat_co_cpu_share(&r.st) > 0);
	f = open_memstream(&text, &tlen);
	lat_co_print(f, &r);
	fclose(f);
	T_CHECK(strstr(text, "200 requests at") != NULL);
	T_CHECK(strstr(text, "open loop         n=200 ") != NULL);
	f = open_memstream(&json, &jlen);
	lat_json_init(&j, f);
	lat_co_json(&j, &r);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(f);
	T_CHECK(strstr(json, "\"complete\":true") != NULL);
	/* the sentence is the finding's, in both outputs */
	lat_co_explain(sentence, sizeof(sentence), &r);
	T_CHECK(sentence[0] != '\0');
	T_CHECK(strstr(json, "\"verdict\":\"") != NULL);
	T_CHECK(strstr(text, "coordinated omission") != NULL ||
		strstr(text, "Here ") != NULL);
	T_EQ_I64(lat_co_over_range(&r), 0);
	T_CHECK(strstr(json, lat_co_finding_name(r.v.finding)) != NULL);
	free(text);
	free(json);
	lat_co_report_release(&r);
}

/*
 * The words follow the data: each finding gets its own sentence with the
 * run's numbers in it, and the load note appears only when load mattered.
 */
static void test_explain(void)
{
	struct lat_co_config c = { .requests = 200, .rate_per_s = 10000,
				   .service_ns = 10e3, .stall_at = 100,
				   .stall_ns = STALL_NS, .clock = LAT_CO_CPU };
	static struct lat_co_report r;
	char buf[LAT_CO_TEXT_LEN];

	T_EQ_I64(lat_co_report_init(&r, &c), 0);
	T_EQ_I64(lat_co_report_run(&r), 0);
	r.v.finding = LAT_CO_OMISSION;
	r.v.healthy_pct = 99.9;
	r.st.sent_late = 4321;
	lat_co_explain(buf, sizeof(buf), &r);
	T_CHECK(strstr(buf, "99.9% of requests") != NULL);
	T_CHECK(strstr(buf, "4321 requests it held back") != NULL);
	r.v.max_agrees = false;
	lat_co_explain(buf, sizeof(buf), &r);
	T_CHECK(strstr(buf, "exceeds the closed one") != NULL);
	r.v.finding = LAT_CO_STALL_TOO_SHORT;
	r.v.held_back = 17;
	lat_co_explain(buf, sizeof(buf), &r);
	T_CHECK(strstr(buf, "spans only 17 send intervals") != NULL);
	T_CHECK(strstr(buf, "--") == NULL); /* names no flag */
	r.v.finding = LAT_CO_TAIL_FILLED;
	lat_co_explain(buf, sizeof(buf), &r);
	T_CHECK(strstr(buf, "with 200 requests") != NULL);
	lat_co_load_note(buf, sizeof(buf), &r);
	T_CHECK(strstr(buf, "CPU time") != NULL);
	r.cfg.clock = LAT_CO_WALL;
	r.st.wall_ns = 1000;
	r.st.cpu_ns = 500;
	lat_co_load_note(buf, sizeof(buf), &r);
	T_CHECK(strstr(buf, "only 50% of the run") != NULL);
	r.st.cpu_ns = 950;
	lat_co_load_note(buf, sizeof(buf), &r);
	T_EQ_I64(buf[0], 0);
	r.h[LAT_CO_OPEN].overflow_count = 3;
	r.h[LAT_CO_CLOSED].overflow_count = 2;
	T_EQ_I64(lat_co_over_range(&r), 3);
	lat_co_report_release(&r);
}

int main(void)
{
	test_explain();
	test_config();
	test_run();
	test_report();
	T_DONE();
}

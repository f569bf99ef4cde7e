/*
 * latlab co: make the benchmark lie (coordinated omission). One toy
 * service, one stall, one run, measured three ways; see latlab/co.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "latlab/clock.h"
#include "latlab/co.h"
#include "latlab/fmt.h"
#include "latlab/hist.h"
#include "latlab/json.h"

#define CMD "co"

extern const struct cli_cmd cli_cmd_co;
/* histogram range: 1 ns to 1 hour, 3 significant digits */

struct co_opts {
	struct lat_co_config cfg;
	bool json;
	const char *svg;
};

static void parse_svg(void *args, const char *path)
{
	((struct co_opts *)args)->svg = path;
	cli_out_check(CMD, "--svg", path, NULL, 0, "");
}

#define CLI_ARGS struct co_opts
static const struct cli_opt opts[] = {
	{ CLI_U64("requests", cfg.requests, 1, 100000000), .short_name = 'n' },
	{ CLI_DOUBLE("rate", cfg.rate_per_s, 1, 1e7), .short_name = 'r' },
	{ CLI_DURATION("service", cfg.service_ns, 1e3, 100, 1e9),
	  .short_name = 's' },
	{ CLI_DURATION("stall", cfg.stall_ns, 1e6, 0, 60e9),
	  .short_name = 'S' },
	{ CLI_U64("stall-at", cfg.stall_at, 0, UINT64_MAX) },
	{ CLI_WORDS("clock", cfg.clock, "wall cpu"), .short_name = 'c' },
	{ CLI_FLAG("json", json) },
	{ CLI_CALL("svg", parse_svg) },
	{ 0 },
};

static void parse(int argc, char **argv, struct co_opts *o)
{
	cli_parse(&cli_cmd_co, o, argc, argv);
	/* a position for a stall that is not there is a mistake in the
	 * command, not something to ignore */
	if (cli_given("stall-at") && o->cfg.stall_ns == 0)
		cli_usage_error(CMD, "--stall-at needs a --stall above 0");
	if (!cli_given("stall-at"))
		o->cfg.stall_at = o->cfg.requests / 2;
	if (o->cfg.stall_at >= o->cfg.requests)
		cli_usage_error(CMD, "--stall-at %" PRIu64 " is not below "
				    "--requests %" PRIu64, o->cfg.stall_at,
				    o->cfg.requests);
	if (o->cfg.rate_per_s * o->cfg.service_ns / 1e9 >= 1)
		cli_usage_error(CMD, "--rate x --service is %.2f: the "
				    "server would be over 100%% busy and never "
				    "catch up (keep it below 1)",
				    o->cfg.rate_per_s * o->cfg.service_ns /
					    1e9);
}

/* The sentence under the table: lat_co_judge's finding, in words. */
static void verdict(char *buf, size_t len, const struct co_opts *o,
		    const struct lat_co_report *r)
{
	const struct lat_co_closed_stats *st = &r->st;
	const struct lat_co_verdict *v = &r->v;
	const struct lat_hist *closed = &r->h[LAT_CO_CLOSED];
	const struct lat_hist *open = &r->h[LAT_CO_OPEN];
	char cq[LAT_FMT_LEN], op99[LAT_FMT_LEN], cr99[LAT_FMT_LEN];
	char stall[LAT_FMT_LEN], late[LAT_FMT_LEN], cmax[LAT_FMT_LEN];
	char omax[LAT_FMT_LEN], maxes[200];

	lat_fmt_ns(cmax, sizeof(cmax), (double)lat_hist_max(closed));
	lat_fmt_ns(omax, sizeof(omax), (double)lat_hist_max(open));
	if (v->max_agrees)
		snprintf(maxes, sizeof(maxes), "The max is the stalled "
			 "request itself, so every mode agrees on it (%s vs "
			 "%s): the max alone cannot reveal the omission.",
			 cmax, omax);
	else
		snprintf(maxes, sizeof(maxes), "The open-loop max (%s) "
			 "exceeds the closed one (%s): requests queued behind "
			 "the stall also waited out other delays.", omax,
			 cmax);
	lat_fmt_ns(op99, sizeof(op99),
		   (double)lat_hist_value_at_percentile(open, 99));
	lat_fmt_ns(cr99, sizeof(cr99), (double)lat_hist_value_at_percentile(
					       &r->h[LAT_CO_CORRECTED], 99));
	lat_fmt_ns(stall, sizeof(stall), o->cfg.stall_ns);
	lat_fmt_ns(late, sizeof(late), (double)st->max_send_delay_ns);
	switch (v->finding) {
	case LAT_CO_OMISSION:
		lat_fmt_ns(cq, sizeof(cq), (double)v->healthy_ns);
		snprintf(buf, len,
			 "The closed loop says %g%% of requests took at most "
			 "%s, yet a user sending on schedule saw a p99 of %s: "
			 "during the %s stall the closed-loop client stopped "
			 "sending, so the %" PRIu64 " requests it held back "
			 "(up to %s late) never had their wait measured - "
			 "coordinated omission; the correction puts them back "
			 "(p99 %s). %s", v->healthy_pct, cq, op99, stall,
			 st->sent_late, late, cr99, maxes);
		break;
	case LAT_CO_STALL_TOO_SHORT:
		snprintf(buf, len,
			 "Here the open-loop p99 (%s) is within 10x of the "
			 "closed loop's: the %s stall spans only %.0f send "
			 "intervals, under 1%% of %" PRIu64 " requests, too "
			 "few to move p99; a longer --stall or higher --rate "
			 "shows coordinated omission.", op99, stall,
			 v->held_back, o->cfg.requests);
		break;
	case LAT_CO_TAIL_FILLED:
		lat_fmt_ns(cq, sizeof(cq),
			   (double)lat_hist_value_at_percentile(closed, 99));
		snprintf(buf, len,
			 "Here even the closed loop's p99 (%s) is near the "
			 "open loop's (%s): with %" PRIu64 " requests the "
			 "stall itself, or other delays, fill the closed "
			 "loop's tail, so the comparison shows little; more "
			 "--requests separates them.", cq, op99,
			 o->cfg.requests);
		break;
	}
}

/* The line about other load, when it mattered. */
static void load_note(char *buf, size_t len, const struct co_opts *o,
		      const struct lat_co_closed_stats *st)
{
	buf[0] = '\0';
	if (o->cfg.clock == LAT_CO_CPU)
		snprintf(buf, len, "Times are the service thread's CPU time "
			 "(--clock cpu): preemption by other load is not in "
			 "them; the injected stall is the only one.");
	else if (lat_co_cpu_share(st) < 0.9)
		snprintf(buf, len, "The service thread had a CPU for only "
			 "%.0f%% of the run: other load preempted it, and "
			 "every mode includes those delays (--clock cpu "
			 "leaves them out).", 100 * lat_co_cpu_share(st));
}

static int co_main(int argc, char **argv)
{
	struct co_opts o = {
		.cfg = { .requests = 10000, .rate_per_s = 10000,
			 .service_ns = 20e3, .stall_ns = 50e6 },
	};
	static struct lat_co_report r;
	char text[768], note[256];
	int rc;

	parse(argc, argv, &o);
	if (cli_parsed())
		return CLI_EXIT_OK;
	cli_catch_stop_signals();
	o.cfg.stop = cli_stop_requested;
	rc = lat_co_report_init(&r, &o.cfg);
	if (rc == -ENOMEM)
		cli_fail(CMD, "cannot allocate histograms");
	if (rc)
		cli_fail(CMD, "cannot calibrate the cycle clock: %s",
			     lat_strerror(rc));
	fprintf(stderr, "latlab co: %" PRIu64 " requests, about %.2f s\n",
		o.cfg.requests,
		(double)o.cfg.requests / o.cfg.rate_per_s +
			o.cfg.stall_ns / 1e9);
	rc = lat_co_report_run(&r);
	if (rc && rc != -EINTR)
		cli_fail(CMD, "run failed: %s", lat_strerror(rc));
	if (rc == -EINTR)
		fprintf(stderr, "latlab co: interrupted by %s after %" PRIu64
			" of %" PRIu64 " requests: the results are of those\n",
			cli_stop_signal() == SIGTERM ? "SIGTERM" : "SIGINT",
			r.st.done, o.cfg.requests);
	for (int i = 0; i < LAT_CO_MODES; i++)
		if (r.h[i].overflow_count)
			cli_fail(CMD, "%" PRId64 " latencies beyond the "
				     "histogram's range (1 ns..1 h)",
				     r.h[i].overflow_count);
	verdict(text, sizeof(text), &o, &r);
	if (o.json) {
		struct lat_json j;

		lat_json_init(&j, stdout);
		lat_co_json(&j, &r, text);
		if (lat_json_finish(&j))
			cli_fail(CMD, "internal error writing JSON");
	} else {
		lat_co_print(stdout, &r);
		printf("\n");
		lat_fmt_paragraph(stdout, text, 0);
		load_note(note, sizeof(note), &o, &r.st);
		if (note[0])
			lat_fmt_paragraph(stdout, note, 0);
	}
	if (o.svg) {
		FILE *f = cli_out_open(CMD, o.svg);

		cli_out_close(CMD, o.svg, f,
			      lat_co_write_svg(f, &o.cfg, &r.h[LAT_CO_CLOSED],
					       &r.h[LAT_CO_CORRECTED],
					       &r.h[LAT_CO_OPEN]));
	}
	lat_co_report_release(&r);
	return cli_exit_status();
}

const struct cli_cmd cli_cmd_co = {
	.name = "co",
	.opts = opts,
	.run = co_main,
};

/*
 * The coordinated-omission report in words: lat_co_judge's finding as the
 * sentence under the table (also the JSON's "verdict"), and a note on how
 * much other load there was. Field names, never command-line flags.
 */
#include <inttypes.h>
#include <stdio.h>

#include "latlab/co.h"
#include "latlab/fmt.h"

/* The sentence about the max, part of every omission verdict. */
static void maxes(char *buf, size_t len, const struct lat_co_report *r)
{
	char cmax[LAT_FMT_LEN], omax[LAT_FMT_LEN];

	lat_fmt_ns(cmax, sizeof(cmax), (double)lat_hist_max(&r->h[LAT_CO_CLOSED]));
	lat_fmt_ns(omax, sizeof(omax), (double)lat_hist_max(&r->h[LAT_CO_OPEN]));
	if (r->v.max_agrees)
		snprintf(buf, len, "The max is the stalled request itself, so "
			 "every mode agrees on it (%s vs %s): the max alone "
			 "cannot reveal the omission.", cmax, omax);
	else
		snprintf(buf, len, "The open-loop max (%s) exceeds the closed "
			 "one (%s): requests queued behind the stall also "
			 "waited out other delays.", omax, cmax);
}

static char *pct(char *buf, const struct lat_co_report *r,
		 enum lat_co_mode m, double p)
{
	return lat_fmt_ns(buf, LAT_FMT_LEN,
			  (double)lat_hist_value_at_percentile(&r->h[m], p));
}

void lat_co_explain(char *buf, size_t len, const struct lat_co_report *r)
{
	const struct lat_co_verdict *v = &r->v;
	char cq[LAT_FMT_LEN], op99[LAT_FMT_LEN], cr99[LAT_FMT_LEN];
	char stall[LAT_FMT_LEN], late[LAT_FMT_LEN], max[200];

	maxes(max, sizeof(max), r);
	pct(op99, r, LAT_CO_OPEN, 99);
	pct(cr99, r, LAT_CO_CORRECTED, 99);
	lat_fmt_ns(stall, sizeof(stall), r->cfg.stall_ns);
	lat_fmt_ns(late, sizeof(late), (double)r->st.max_send_delay_ns);
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
			 r->st.sent_late, late, cr99, max);
		break;
	case LAT_CO_STALL_TOO_SHORT:
		snprintf(buf, len,
			 "Here the open-loop p99 (%s) is within 10x of the "
			 "closed loop's: the %s stall spans only %.0f send "
			 "intervals, under 1%% of %" PRIu64 " requests, too "
			 "few to move p99; a longer stall or a higher rate "
			 "shows coordinated omission.", op99, stall,
			 v->held_back, r->cfg.requests);
		break;
	case LAT_CO_TAIL_FILLED:
		snprintf(buf, len,
			 "Here even the closed loop's p99 (%s) is near the "
			 "open loop's (%s): with %" PRIu64 " requests the "
			 "stall itself, or other delays, fill the closed "
			 "loop's tail, so the comparison shows little; more "
			 "requests separate them.",
			 pct(cq, r, LAT_CO_CLOSED, 99), op99, r->cfg.requests);
		break;
	}
}

void lat_co_load_note(char *buf, size_t len, const struct lat_co_report *r)
{
	double share = lat_co_cpu_share(&r->st);

	buf[0] = '\0';
	if (r->cfg.clock == LAT_CO_CPU)
		snprintf(buf, len, "Times are the service thread's CPU time "
			 "(the cpu clock): preemption by other load is not in "
			 "them; the injected stall is the only one.");
	else if (share < 0.9)
		snprintf(buf, len, "The service thread had a CPU for only "
			 "%.0f%% of the run: other load preempted it, and "
			 "every mode includes those delays (the cpu clock "
			 "leaves them out).", 100 * share);
}

int64_t lat_co_over_range(const struct lat_co_report *r)
{
	int64_t n = 0;

	/* the same request can be beyond the range in every mode: the
	 * largest count, not the sum */
	for (int i = 0; i < LAT_CO_MODES; i++)
		if (r->h[i].overflow_count > n)
			n = r->h[i].overflow_count;
	return n;
}

/*
 * lat_co: the closed and open loops around one toy service. See
 * latlab/co.h for why there is no generator thread.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "latlab/co.h"
#include "latlab/pace.h"

int lat_co_config_check(const struct lat_co_config *cfg)
{
	if (!cfg || cfg->requests == 0 || cfg->stall_at >= cfg->requests)
		return -EINVAL;
	if (!isfinite(cfg->rate_per_s) || cfg->rate_per_s <= 0 ||
	    !isfinite(cfg->service_ns) || cfg->service_ns <= 0 ||
	    !isfinite(cfg->stall_ns) || cfg->stall_ns < 0)
		return -EINVAL;
	if (cfg->rate_per_s * cfg->service_ns / 1e9 >= 1)
		return -EINVAL;
	return 0;
}

/*
 * The experiment's clock: ticks, and how to turn them into ns. Wall time
 * is the cycle counter; CPU time is CLOCK_THREAD_CPUTIME_ID in ns (a
 * syscall per read, ~1 us here: fine for spinning out work of tens of us,
 * and the cost itself is CPU time of the service, so nothing is lost).
 */
struct co_clock {
	lat_cycles_t (*now)(void);
	struct lat_clock_cal cal;
};

static lat_cycles_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (lat_cycles_t)ts.tv_sec * 1000000000u + (lat_cycles_t)ts.tv_nsec;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin until @until on @clk; returns the time at release (>= until). */
/*
 * Spin until @until on @clk; returns the time at release (>= until), or
 * 0 when @cfg's stop said so (a long stall is interruptible too).
 */
static lat_cycles_t spin_until(const struct co_clock *clk,
			       const struct lat_co_config *cfg,
			       lat_cycles_t until)
{
	lat_cycles_t now;
	unsigned n = 0;

	while ((int64_t)((now = clk->now()) - until) < 0) {
		if (cfg->stop && !(++n & 1023) && cfg->stop(cfg->stop_ctx))
			return 0;
		lat_pace_relax_();
	}
	return now;
}

static int64_t to_ns(const struct co_clock *clk, lat_cycles_t ticks)
{
	lat_ns_t ns = lat_clock_to_ns(&clk->cal, ticks);

	return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

int lat_co_run(const struct lat_co_config *cfg,
	       const struct lat_clock_cal *cal, struct lat_hist *closed,
	       struct lat_hist *corrected, struct lat_hist *open,
	       struct lat_co_closed_stats *st)
{
	struct lat_co_closed_stats local = { 0 };
	struct co_clock clk;
	struct lat_pace pace;
	lat_cycles_t service, stall;
	int64_t interval_ns;
	uint64_t wall0, cpu0;

	if (lat_co_config_check(cfg))
		return -EINVAL;
	if (cfg->clock == LAT_CO_WALL) {
		if (!cal || cal->mult == 0 || cal->to_cycles_mult == 0)
			return -EINVAL;
		clk.now = lat_clock_now;
		clk.cal = *cal;
	} else {
		clk.now = thread_cpu_ns;
		/* ticks are ns: the pacer and conversions see ratio 1 */
		if (lat_clock_cal_from_ratio(&clk.cal, 1.0))
			return -EINVAL;
	}
	interval_ns = (int64_t)llround(1e9 / cfg->rate_per_s);
	service = lat_clock_from_ns(&clk.cal, (lat_ns_t)cfg->service_ns);
	stall = lat_clock_from_ns(&clk.cal, (lat_ns_t)cfg->stall_ns);
	wall0 = wall_ns();
	cpu0 = thread_cpu_ns();
	/* request 0 due one service time ahead: setup is not inside it */
	if (lat_pace_init(&pace, LAT_PACE_FIXED, cfg->rate_per_s, 1, &clk.cal,
			  clk.now() + service, 0))
		return -EINVAL;
	int rc = 0;

	for (uint64_t i = 0; i < cfg->requests; i++) {
		lat_cycles_t due = lat_pace_due(&pace);
		/* sent when due, or at once if the previous reply came
		 * after this send was due (the client waited for it) */
		lat_cycles_t sent = spin_until(&clk, cfg, due);
		/* the service: real work, spun out on the same clock */
		lat_cycles_t done = sent ? spin_until(&clk, cfg, sent +
			service + (i == cfg->stall_at ? stall : 0)) : 0;
		int64_t delay = to_ns(&clk, sent - due), lat;

		if (!done || (cfg->stop && cfg->stop(cfg->stop_ctx))) {
			rc = -EINTR; /* request i is not done: not recorded */
			break;
		}
		local.done++;

		lat_pace_advance(&pace);
		/* late by more than the wait loop's own jitter */
		if (delay > 1000) {
			local.sent_late++;
			if ((uint64_t)delay > local.max_send_delay_ns)
				local.max_send_delay_ns = (uint64_t)delay;
		}
		/* closed: from its own send, as a closed-loop client does */
		lat = to_ns(&clk, done - sent);
		lat_hist_record(closed, lat);
		lat_hist_record_corrected(corrected, lat, interval_ns);
		/* open: from the intended send time */
		lat_hist_record(open, to_ns(&clk, done - due));
	}
	local.wall_ns = wall_ns() - wall0;
	local.cpu_ns = thread_cpu_ns() - cpu0;
	if (st)
		*st = local;
	return rc;
}

void lat_co_judge(const struct lat_co_config *cfg,
		  const struct lat_hist *closed, const struct lat_hist *open,
		  struct lat_co_verdict *v)
{
	int64_t c999 = lat_hist_value_at_percentile(closed, 99.9);
	int64_t c99 = lat_hist_value_at_percentile(closed, 99);
	int64_t o99 = lat_hist_value_at_percentile(open, 99);
	int64_t cmax = lat_hist_max(closed), omax = lat_hist_max(open);

	memset(v, 0, sizeof(*v));
	/* requests due during the stall: the ones a closed loop holds back */
	v->held_back = cfg->stall_ns * cfg->rate_per_s / 1e9;
	/* the stalled request itself is seen by every mode: the max */
	v->max_agrees = omax <= cmax + cmax / 5;
	/* quote the highest closed-loop percentile that looks healthy */
	if (c999 * 10 < o99) {
		v->finding = LAT_CO_OMISSION;
		v->healthy_pct = 99.9;
		v->healthy_ns = c999;
	} else if (c99 * 10 < o99) {
		v->finding = LAT_CO_OMISSION;
		v->healthy_pct = 99;
		v->healthy_ns = c99;
	} else if (v->held_back * 100 < (double)cfg->requests) {
		v->finding = LAT_CO_STALL_TOO_SHORT;
	} else {
		v->finding = LAT_CO_TAIL_FILLED;
	}
}

const char *lat_co_finding_name(enum lat_co_finding f)
{
	switch (f) {
	case LAT_CO_OMISSION:
		return "omission";
	case LAT_CO_STALL_TOO_SHORT:
		return "stall_too_short";
	case LAT_CO_TAIL_FILLED:
		return "tail_filled";
	}
	return "?";
}

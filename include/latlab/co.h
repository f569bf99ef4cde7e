/*
 * lat_co: the coordinated-omission experiment. One toy service (a fixed
 * amount of work per request, one injected stall) measured by a closed
 * loop (send, wait for the reply, send the next), by an open loop
 * (latency from the intended send time of a fixed schedule), and by the
 * closed loop corrected with the histogram's expected-interval
 * correction.
 *
 * Design: one thread, one run, three views. The service's work and
 * stall are real (spinning on the cycle clock); the arrivals come from
 * the schedule (lat_pace): request i is due at start + i * interval and
 * is sent at max(due, previous reply), which is both what a paced
 * closed-loop client does and what a FIFO server does with an open-loop
 * arrival stream. So one timeline yields all three measurements:
 *   closed     reply - actual send        (what the client records)
 *   open       reply - intended send      (what a user waiting saw)
 *   corrected  closed, recorded with expected interval 1 / rate
 * and their differences are the lesson, not run-to-run noise.
 *
 * Why no generator thread: on a busy 2-vCPU machine it would share CPUs
 * with the service; when descheduled it either sends late and stamps the
 * late time (hiding queueing, the very error being shown) or charges its
 * own lateness to the service. With arrivals taken from the schedule the
 * intended times are exact by construction, and the open-loop figure is
 * what a perfect generator with an unbounded queue would measure.
 *
 * Invariants:
 *  - Histograms record nanoseconds; every request is recorded (or counted
 *    in the histogram's overflow_count, which the caller must show).
 *  - The runs print nothing (the printers take a FILE *) and block for
 *    about requests / rate + stall.
 */
#ifndef LATLAB_CO_H
#define LATLAB_CO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/clock.h"
#include "latlab/hist.h"

/* Which time the experiment runs in. */
enum lat_co_clock {
	LAT_CO_WALL,  /* the cycle counter: real time, preemptions included */
	LAT_CO_CPU,   /* the thread's CPU time: advances only while the
		       * service runs, so other load cannot add latency and
		       * the injected stall is the only one */
};

struct lat_co_config {
	uint64_t requests;    /* >= 1 */
	double rate_per_s;    /* intended sends per second, > 0 */
	double service_ns;    /* work per request, > 0 */
	uint64_t stall_at;    /* index of the request that stalls */
	double stall_ns;      /* extra work for that request, >= 0 */
	enum lat_co_clock clock;
	/*
	 * Polled while waiting (may be NULL): true ends the run at once
	 * with -EINTR; the requests finished by then are recorded and
	 * counted in lat_co_closed_stats.done.
	 */
	bool (*stop)(void *ctx);
	void *stop_ctx;
};

/* What the closed loop's client did: the omission, in numbers. */
struct lat_co_closed_stats {
	uint64_t sent_late;   /* requests sent after their intended time
			       * because the previous reply had not come */
	uint64_t max_send_delay_ns; /* worst intended-to-actual send delay */
	uint64_t wall_ns;     /* the run's wall-clock length */
	uint64_t cpu_ns;      /* CPU time the thread got meanwhile */
	uint64_t done;        /* requests finished (< requests if stopped) */
};

/*
 * Check @cfg: returns 0 or -EINVAL (zero requests, a rate or service time
 * that is not finite and positive, stall_at >= requests, a negative
 * stall, or rate * service >= 1: a server busier than 100% never drains
 * its queue and the open loop would measure only that).
 */
int lat_co_config_check(const struct lat_co_config *cfg);

/*
 * Run the experiment once, in cfg->clock time: requests due every 1/rate, each served for
 * service_ns (plus stall_ns for request stall_at) after it is sent.
 * Records every latency in ns into @closed (from the actual send),
 * @corrected (the same values with expected interval 1/rate) and @open
 * (from the intended send time). @st may be NULL. Returns 0 or -EINVAL
 * (bad config or a zeroed calibration; @cal is only used for LAT_CO_WALL).
 * Blocks for about requests / rate + stall (longer in CPU time when other
 * load takes the CPU); allocation-free.
 */
int lat_co_run(const struct lat_co_config *cfg,
	       const struct lat_clock_cal *cal, struct lat_hist *closed,
	       struct lat_hist *corrected, struct lat_hist *open,
	       struct lat_co_closed_stats *st);

/*
 * The three measurements of one run as a percentile spectrum in SVG
 * (lat_svg_percentiles), titled from @cfg: they agree in the body and
 * part in the tail, which is the lesson. Returns 0, -EINVAL, -EIO.
 */
int lat_co_write_svg(FILE *out, const struct lat_co_config *cfg,
		     const struct lat_hist *closed,
		     const struct lat_hist *corrected,
		     const struct lat_hist *open);

/* What one run shows, judged from its numbers (lat_co_judge). */
enum lat_co_finding {
	LAT_CO_OMISSION,        /* the closed loop's tail looks healthy
				 * (at p99.9 or p99) where the open loop's
				 * p99 is over 10x worse: coordinated
				 * omission, shown */
	LAT_CO_STALL_TOO_SHORT, /* the stall spans under 1% of the
				 * requests' send intervals: too few to
				 * move p99 */
	LAT_CO_TAIL_FILLED,     /* even the closed loop's p99 is near the
				 * open loop's: the stall or other delays
				 * fill its tail */
};

struct lat_co_verdict {
	enum lat_co_finding finding;
	double healthy_pct;     /* LAT_CO_OMISSION: 99.9 or 99, the highest
				 * closed-loop percentile that hides it */
	int64_t healthy_ns;     /* the closed loop's value there */
	double held_back;       /* requests due during the stall */
	bool max_agrees;        /* open max within 20% of closed max: the
				 * max alone cannot reveal the omission */
};

/* Judge one run's three histograms. Pure; no allocation. */
void lat_co_judge(const struct lat_co_config *cfg,
		  const struct lat_hist *closed, const struct lat_hist *open,
		  struct lat_co_verdict *v);

/* "omission", "stall_too_short", "tail_filled": stable names for JSON. */
const char *lat_co_finding_name(enum lat_co_finding f);

/* ------------------------------------------------------------------ */
/* One run and its report (what `latlab co` prints)                    */
/* ------------------------------------------------------------------ */

/* The three measurements, in the order the report shows them. */
enum lat_co_mode { LAT_CO_CLOSED, LAT_CO_OPEN, LAT_CO_CORRECTED,
		   LAT_CO_MODES };

struct lat_co_report {
	struct lat_co_config cfg;
	struct lat_clock_cal cal;        /* LAT_CO_WALL: calibrated here */
	struct lat_hist h[LAT_CO_MODES]; /* ns, 1 ns .. 1 h, 3 figures; a
					  * value beyond is in its
					  * overflow_count, to be shown */
	struct lat_co_closed_stats st;
	struct lat_co_verdict v;         /* lat_co_judge of the run */
};

/*
 * Check @cfg (lat_co_config_check), make the three histograms and, in
 * wall time, calibrate the cycle clock (100 ms). Returns 0, -EINVAL,
 * -ENOMEM or the calibration's error (nothing to release then).
 */
int lat_co_report_init(struct lat_co_report *r,
		       const struct lat_co_config *cfg);

/*
 * lat_co_run into @r's histograms, then lat_co_judge. Returns 0, or
 * -EINTR when cfg.stop ended it (@r then holds the requests done, judged),
 * or lat_co_run's error.
 */
int lat_co_report_run(struct lat_co_report *r);
void lat_co_report_release(struct lat_co_report *r);

/* Share of the run's wall time the service thread was on a CPU. */
double lat_co_cpu_share(const struct lat_co_closed_stats *st);

/*
 * The most latencies any one measurement recorded beyond its histogram's
 * range (1 ns .. 1 h): 0 unless the run was pathological; a report with
 * any is incomplete and the caller must say so.
 */
int64_t lat_co_over_range(const struct lat_co_report *r);

/* Room for any sentence of lat_co_explain or lat_co_load_note. */
#define LAT_CO_TEXT_LEN 768

/*
 * The finding (r->v) as one English sentence into @buf: what the closed
 * loop claimed, what a user on schedule saw, why they differ, and what
 * the max shows. Names quantities (stall, rate, requests), never flags.
 */
void lat_co_explain(char *buf, size_t len, const struct lat_co_report *r);

/*
 * A sentence on other load, or "" when it did not matter: in CPU time
 * that preemption is not in the figures; in wall time, when the service
 * thread had a CPU for under 90% of the run, that it is.
 */
void lat_co_load_note(char *buf, size_t len, const struct lat_co_report *r);

/*
 * For people on @out: the run in one line, one row per measurement (n,
 * p50, p99, p99.9, max), then lat_co_explain and lat_co_load_note as
 * wrapped paragraphs.
 */
void lat_co_print(FILE *out, const struct lat_co_report *r);

/*
 * The same facts as one JSON object into @j (the caller owns
 * lat_json_init / lat_json_finish): config{}, modes{closed, open,
 * corrected: n, over_range, p50_ns, p99_ns, p999_ns, max_ns}, complete,
 * requests_done, the closed loop's lateness, wall/CPU time, verdict
 * (lat_co_explain's sentence) and finding{kind, healthy_pct, healthy_ns,
 * held_back, max_agrees}.
 */
struct lat_json;
void lat_co_json(struct lat_json *j, const struct lat_co_report *r);

/*
 * What `latlab co` writes on stdout: lat_co_print, or with @json one
 * whole JSON document (lat_co_json). Returns 0, or -EIO / -EINVAL when
 * the output failed.
 */
int lat_co_write(FILE *out, const struct lat_co_report *r, bool json);

#endif

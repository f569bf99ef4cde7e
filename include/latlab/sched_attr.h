/*
 * lat_sched_attr: why the pipeline's slow events were slow. Joins the
 * scheduler probe (lat_sched) to a pipeline run (lat_pipe): every event
 * above the run's p99.9, and every event of the flight recorder's window
 * when it froze, is split hop by hop (pace, q1+wake, work1, ...), and each
 * hop's time is given to what the thread that owned the hop was doing:
 *
 *   backlog      queued behind earlier events: the owner was still busy
 *                with the previous event when this one arrived;
 *   own          runnable, while another of the pipeline's threads held
 *                its CPU (hot threads sharing a CPU);
 *   probe        runnable, while the probe's own ring-buffer reader
 *                (latlab-sched) held its CPU: the cost of observing, kept
 *                apart so it is never blamed on the pipeline;
 *   foreign      runnable, while another task held its CPU (named);
 *   wakeup       runnable on an idle CPU: the wake-up itself (IPI, exit
 *                from idle);
 *   blocked      asleep in its wait when the event arrived (woken late);
 *   irq          on its CPU, but an interrupt or softirq ran there;
 *   normal       on its CPU, up to the hop's own p50: an ordinary hop;
 *   unexplained  on its CPU, longer than usual, no scheduler event and no
 *                interrupt: on a VM the hypervisor running something else
 *                (steal), or an interrupt the probe does not see.
 *
 * Clocks. The pipeline stamps raw cycles; the probe stamps
 * CLOCK_MONOTONIC ns (bpf_ktime_get_ns). latlab's calibration is against
 * CLOCK_MONOTONIC_RAW, which NTP does not slew, so it is not used for the
 * join: the aggregator takes bracketed (cycles, CLOCK_MONOTONIC) pairs
 * during the run (every LAT_SCHED_ATTR_PAIR_MS) and stamps are mapped by
 * interpolating between them. The result says how tight the brackets were
 * and how far the MONOTONIC slope is from the RAW calibration (ppm).
 *
 * Use: lat_sched_attr_init() after every other user of the pipeline's
 * hooks (it chains to them), lat_pipe_run*, lat_sched_attr_finish(), then
 * print. The hooks only copy samples into storage sized at init (the
 * slowest events by e2e, the flight window): no allocation while running.
 */
#ifndef LATLAB_SCHED_ATTR_H
#define LATLAB_SCHED_ATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/flight.h"
#include "latlab/json.h"
#include "latlab/pipe.h"
#include "latlab/sched.h"

#define LAT_SCHED_ATTR_PAIR_MS 50
/* Events kept as candidates above p99.9, at most. */
#define LAT_SCHED_ATTR_MAX_SLOW 200000
/* The probe's records are copied raw during the run and decoded after
 * it (lat_sched_opts.defer_bytes), up to this much memory: about 40 s of
 * the default pipeline on 2 vCPUs; past it they are decoded live. */
#define LAT_SCHED_ATTR_DEFER_BYTES (256u << 20)
/* The worst events described one by one. */
#define LAT_SCHED_ATTR_WORST 8

enum lat_sched_cause {
	LAT_SCHED_CAUSE_BACKLOG,
	LAT_SCHED_CAUSE_OWN,
	LAT_SCHED_CAUSE_PROBE,
	LAT_SCHED_CAUSE_FOREIGN,
	LAT_SCHED_CAUSE_WAKEUP,
	LAT_SCHED_CAUSE_BLOCKED,
	LAT_SCHED_CAUSE_IRQ,
	LAT_SCHED_CAUSE_NORMAL,
	LAT_SCHED_CAUSE_UNEXPLAINED,
	LAT_SCHED_NCAUSES
};

/* Stable key ("backlog", "foreign", ...) and a phrase for people. */
const char *lat_sched_cause_name(enum lat_sched_cause c);
const char *lat_sched_cause_text(enum lat_sched_cause c);

/* Time by cause over a set of events, with the names behind own,
 * foreign and irq. */
struct lat_sched_attr_sum {
	uint64_t events;
	uint64_t total_ns;                 /* sum of their e2e */
	uint64_t ns[LAT_SCHED_NCAUSES];    /* sums to total_ns */
	struct lat_sched_whos foreign;     /* by task */
	struct lat_sched_whos own;         /* by pipeline thread */
	struct lat_sched_whos irq;         /* by kind / softirq vector */
};

/* One slow event, described by its largest cause. */
struct lat_sched_attr_event {
	uint64_t seq;
	uint64_t e2e_ns;
	int hop;                     /* delta index of its longest hop */
	uint64_t hop_ns;
	enum lat_sched_cause cause;  /* the largest cause within that hop */
	uint64_t cause_ns;
	char who[24];                /* task or thread or irq, "" if none */
	pid_t who_pid;
};

struct lat_sched_attr_result {
	bool ran;                    /* the probe ran */
	char unavailable[256];       /* why not, when !ran */
	int64_t threshold_ns;        /* the run's e2e p99.9 */
	struct lat_sched_attr_sum above;    /* events with e2e > threshold */
	uint64_t above_missing;      /* above p99.9 but not kept (cap) */
	/* above p99.9 (or in the flight window) but ending after the
	 * probe's timeline reached its memory cap: not attributed, as the
	 * timeline has holes from there (see timeline_dropped) */
	uint64_t above_after_cut, window_after_cut;
	int n_worst;
	struct lat_sched_attr_event worst[LAT_SCHED_ATTR_WORST];
	bool flight;                 /* the flight recorder froze */
	uint64_t flight_first_seq, flight_last_seq;
	struct lat_sched_attr_sum window; /* every event of its window */
	/* the clock join */
	int pairs;
	uint64_t pair_width_ns;      /* median bracket width */
	double mono_vs_raw_ppm;      /* MONOTONIC slope vs the calibration */
	const struct lat_sched_result *probe; /* owned by the attr */
	/* the probe's reader thread: where it ran (a spare CPU no hot
	 * thread or helper uses, or -1 unpinned when there is none) */
	pid_t reader_tid;            /* 0 if it never ran */
	int reader_cpu;
};

/*
 * A CPU for the probe's reader away from @c's hot threads: the lowest
 * usable CPU in @allowed (@n_allowed entries; from the affinity mask)
 * that no hot thread, the aggregator nor the noise thread uses, else -1
 * (leave it unpinned: on a machine with no spare CPU pinning it onto a
 * hot one would only fix which hot thread it disturbs). Unpinned hot
 * threads have no "away": -1. Pure.
 */
int lat_sched_attr_reader_cpu(const struct lat_pipe_config *c,
			      const bool *allowed, int n_allowed);

struct lat_sched_attr;

/*
 * Open the probe for @c's hot threads (followed from their prepare hook)
 * and their CPUs (all online CPUs when unpinned), install chained hooks
 * in @c->hooks, and size the stores for @c->events. @flight (may be
 * NULL) is the recorder whose window to explain; it must be fed before
 * our hook (install it first). Returns 0, -EINVAL (no stamps: the hops
 * are needed), -LAT_EUNSUPP (probe unavailable: *@out is still set, and
 * lat_sched_attr_result says why), -ENOMEM, or the probe's load error.
 */
int lat_sched_attr_init(struct lat_sched_attr **out,
			struct lat_pipe_config *c,
			const struct lat_flight *flight);

/* Attach the probe: call right before the run. */
int lat_sched_attr_start(struct lat_sched_attr *a);

/* The probe lat_sched_attr_init opened (NULL when it did not load), for
 * its settings before lat_sched_attr_start (a benchmark comparing
 * lat_sched_set_defer and lat_sched_set_hop_mono choices). */
struct lat_sched *lat_sched_attr_probe(struct lat_sched_attr *a);

/*
 * Stop the probe and attribute: @r is the finished run. Returns 0 or the
 * probe's error.
 */
int lat_sched_attr_finish(struct lat_sched_attr *a,
			  const struct lat_pipe_result *r);

const struct lat_sched_attr_result *lat_sched_attr_result(
	const struct lat_sched_attr *a);

/*
 * Hand the attribution above p99.9 to @r->sched (zeroed when the probe
 * did not run), so lat_pipe_print_table's "tail:" lines and the JSON's
 * "diagnosis" carry the probe's facts. Call after lat_sched_attr_finish.
 */
void lat_sched_attr_fill_result(const struct lat_sched_attr *a,
				struct lat_pipe_result *r);

/* The summary table, the worst events and the probe's accounting. */
int lat_sched_attr_print(FILE *out, const struct lat_sched_attr *a,
			 const struct lat_pipe_result *r);

/* The same as member "sched" of the JSON object open in @j. */
void lat_sched_attr_write_json(struct lat_json *j,
			       const struct lat_sched_attr *a,
			       const struct lat_pipe_result *r);

/* Accepts NULL. */
void lat_sched_attr_free(struct lat_sched_attr *a);

#endif

/*
 * lat_instr: per-hot-thread counters and the flight recorder, attached to
 * a pipeline run through its hooks (struct lat_pipe_hooks).
 *
 * For each hot thread (producer, stages, consumer) it opens the lat_perf
 * counters and snapshots the lat_alloc counts at the one place the thread
 * starts its measured run, and reads both where the run ends, on the
 * thread itself. For every recorded sample the aggregator hands it, it
 * feeds the flight recorder (and, for --freeze-above auto, a warm-up
 * histogram of e2e whose p99.9 then arms the recorder).
 *
 * Invariants:
 *  - The hot threads do no extra work inside their loops: everything here
 *    runs before or after them, or on the cold aggregator.
 *  - Each hot thread writes only its own lat_instr_thread; the caller
 *    reads them after lat_pipe_wait() (the join orders the writes).
 *  - Allocation happens in lat_instr_init() only (flight ring, warm-up
 *    histogram); the hooks never allocate.
 *  - Unavailable counters print n/a and their reason once, never 0.
 */
#ifndef LATLAB_INSTR_H
#define LATLAB_INSTR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/alloccount.h"
#include "latlab/flight.h"
#include "latlab/hist.h"
#include "latlab/json.h"
#include "latlab/perfctr.h"
#include "latlab/pipe.h"

/*
 * 'auto' freezing measures its threshold over the first tenth of the run,
 * at least this many samples, before it arms: a shorter run never arms.
 */
#define LAT_INSTR_WARMUP_MIN 1000

struct lat_instr_opts {
	bool counters;           /* perf + allocation counts per hot thread */
	int perf_flags;          /* lat_perf_open() flags */
	bool flight;             /* run the flight recorder */
	lat_ns_t freeze_above;   /* trigger threshold, ns (flight, !auto) */
	bool freeze_auto;        /* threshold = p99.9 of a warm-up */
	uint64_t warmup;         /* auto: warm-up samples, 0 = default */
	size_t flight_capacity;  /* 0 = LAT_FLIGHT_DEFAULT_CAPACITY */
	size_t flight_post;      /* samples kept after the trigger */
};

/* What one hot thread counted over its measured run. */
struct lat_instr_thread {
	bool ran;                /* begin and end hooks both ran */
	struct lat_perf perf;
	int perf_err;            /* 0 or lat_perf_* error */
	struct lat_perf_reading reading;
	struct lat_alloc_counts alloc_start, alloc;
	int alloc_err;           /* 0 or -LAT_EUNSUPP */
};

struct lat_instr {
	struct lat_instr_opts opts;
	int stages, n_hot, n_deltas;
	struct lat_instr_thread thread[LAT_PIPE_MAX_HOT];
	const char *alloc_reason; /* why allocations are n/a, or NULL */

	/* flight recorder, fed on the aggregator thread */
	struct lat_flight flight;
	struct lat_clock_cal cal; /* to show intended send times in ns */
	lat_cycles_t t0_origin;
	bool have_origin;
	struct lat_hist warm;    /* auto: e2e of the warm-up samples */
	uint64_t warm_seen;
	lat_ns_t auto_threshold; /* armed threshold under auto, 0 before */
};

/*
 * Prepare @in for a run of @c and install its hooks in @c->hooks (which
 * must be unused). Calibrates the clock briefly (~20 ms) when the flight
 * recorder is on. Returns 0, -EINVAL (bad options, or the flight recorder
 * without stamps), -EBUSY (hooks already set) or -ENOMEM; on failure
 * nothing stays allocated.
 */
int lat_instr_init(struct lat_instr *in, const struct lat_instr_opts *o,
		   struct lat_pipe_config *c);

/*
 * After the run, hand @r each hot thread's task-clock and context
 * switches (struct lat_pipe_thread_result.counters_known and beside), so
 * the USE audit's CPU rows count the hot threads' time as the counters
 * table does, and say whether perf counted it (a /proc "task-clock" is
 * the thread's CPU clock again); a thread without them stays unknown.
 */
void lat_instr_fill_result(const struct lat_instr *in,
			   struct lat_pipe_result *r);

/* Close counters and free the recorder. Safe on a zeroed struct. */
void lat_instr_destroy(struct lat_instr *in);

/*
 * Sum of counter @c over the hot threads that ran into *@out. Returns
 * false (and *@out = 0) when any thread lacks it: a partial sum would
 * look like a real total.
 */
bool lat_instr_sum(const struct lat_instr *in, enum lat_perf_counter c,
		   uint64_t *out);

/* Sum of heap allocations over the hot threads; false when n/a. */
bool lat_instr_allocs(const struct lat_instr *in, uint64_t *out);

/* IPC over all hot threads, or a negative value when n/a. */
double lat_instr_ipc(const struct lat_instr *in);

/*
 * Reason counter @c is n/a on some hot thread, or NULL when all have it.
 */
const char *lat_instr_reason(const struct lat_instr *in,
			     enum lat_perf_counter c);

/*
 * The per-hot-thread counters table, with every n/a reason printed once
 * under it (and the /proc fallbacks named). @r gives thread names and
 * CPUs. Returns 0 or -EIO.
 */
int lat_instr_print_counters(FILE *out, const struct lat_instr *in,
			     const struct lat_pipe_result *r);

/*
 * The counters as members "threads_counters" (array, one object per hot
 * thread: null for n/a values) and "counters_unavailable" (name ->
 * reason) of the JSON object open in @j; plus "flight" when the recorder
 * ran.
 */
void lat_instr_write_json(struct lat_json *j, struct lat_instr *in,
			  const struct lat_pipe_result *r);

#endif

/*
 * lat_flight: a flight recorder for per-event samples.
 *
 * Keeps the last N samples (default 4,096) in a fixed ring. When armed with
 * a threshold, the first sample whose e2e exceeds it triggers the recorder;
 * it keeps recording a configured number of samples after the trigger and
 * then freezes, so the window shows what led up to the outlier and what
 * followed it. The window is then dumped as a table for people (the
 * trigger marked, slow cells starred, a summary of where the time went) or
 * as CSV.
 *
 * A sample is one event: its sequence number, its intended send time, its
 * per-stage deltas (pace, q1+wake, work1, ... in ns, named at init) and
 * its end-to-end latency.
 *
 * Invariants:
 *  - Memory is allocated once, in lat_flight_init(); pushing never
 *    allocates, never blocks and makes no syscall. Samples have a fixed
 *    size (3 + ndeltas 64-bit words).
 *  - The recorder is fed by one thread (the pipeline's cold aggregator);
 *    the hot threads never see it. Not thread-safe: dump from the feeding
 *    thread or after it stopped.
 *  - Once frozen the window never changes: later pushes are refused and
 *    counted in after_freeze, so every sample offered is accounted for
 *    (seen = in the window + overwritten earlier + after_freeze).
 *  - The trigger sample stays in the window: post < capacity.
 */
#ifndef LATLAB_FLIGHT_H
#define LATLAB_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/clock.h"
#include "latlab/common.h"
#include "latlab/json.h"

#define LAT_FLIGHT_DEFAULT_CAPACITY 4096
#define LAT_FLIGHT_MAX_DELTAS 32
#define LAT_FLIGHT_NAME_LEN 24

/*
 * A cell is "slow" (starred in the table, counted in the analysis) when it
 * is at least SLOW_FACTOR times its column's median in the window and at
 * least SLOW_MIN_NS above it: the floor keeps a 3 ns -> 12 ns wobble from
 * looking like an event.
 */
#define LAT_FLIGHT_SLOW_FACTOR 4
#define LAT_FLIGHT_SLOW_MIN_NS 1000

enum lat_flight_state {
	LAT_FLIGHT_RECORDING,   /* no trigger yet (or not armed) */
	LAT_FLIGHT_TRIGGERED,   /* recording the samples after the trigger */
	LAT_FLIGHT_FROZEN,      /* window fixed; pushes refused */
};

struct lat_flight {
	size_t capacity;        /* samples in the ring */
	size_t ndeltas;         /* per-stage deltas per sample */
	size_t stride;          /* words per sample: 3 + ndeltas */
	size_t post;            /* samples to keep after the trigger */
	uint64_t *ring;         /* capacity * stride words, owned */
	uint64_t *scratch;      /* capacity words for medians, owned */
	char names[LAT_FLIGHT_MAX_DELTAS][LAT_FLIGHT_NAME_LEN];
	lat_ns_t threshold_ns;  /* trigger when e2e > this; 0 = disarmed */
	enum lat_flight_state state;
	uint64_t seen;          /* samples pushed while not frozen */
	uint64_t trigger_at;    /* index (in seen order) of the trigger */
	size_t post_left;
	uint64_t after_freeze;  /* samples refused once frozen */
};

/* One sample of the window, as read back. */
struct lat_flight_rec {
	uint64_t seq;
	lat_ns_t t0_ns;         /* intended send time (any fixed origin) */
	lat_ns_t e2e_ns;
	const uint64_t *delta_ns; /* ndeltas values, inside the ring */
	bool trigger;           /* this is the sample that triggered */
};

/* Per-column findings over the window (deltas, then e2e last). */
struct lat_flight_col {
	const char *name;
	lat_ns_t median_ns;
	lat_ns_t at_trigger_ns; /* the trigger sample's value, 0 if none */
	size_t slow;            /* slow cells in the window */
	size_t longest_run;     /* most consecutive slow cells */
	uint64_t run_first_seq; /* seq where that run starts */
	bool slow_at_trigger;   /* the trigger sample's cell is slow */
	size_t after_trigger;   /* consecutive slow cells right after it */
};

/*
 * Set up @f for @ndeltas (1..LAT_FLIGHT_MAX_DELTAS) deltas named @names
 * (copied, truncated to LAT_FLIGHT_NAME_LEN - 1), a ring of @capacity
 * samples (>= 2), keeping @post samples after the trigger (< capacity) and
 * triggering above @threshold_ns (0: disarmed until lat_flight_arm()).
 * Returns 0, -EINVAL for out-of-range arguments, or -ENOMEM; on failure
 * nothing stays allocated.
 */
int lat_flight_init(struct lat_flight *f, size_t capacity, size_t ndeltas,
		    const char *const *names, size_t post,
		    lat_ns_t threshold_ns);

/* Free the ring. Safe on a zeroed or already-destroyed struct. */
void lat_flight_destroy(struct lat_flight *f);

/*
 * Set the trigger threshold (e.g. a baseline p99.9 from a warm-up; 0
 * disarms). Only while recording: returns 0, or -EBUSY once triggered.
 */
int lat_flight_arm(struct lat_flight *f, lat_ns_t threshold_ns);

/*
 * Offer one sample: @deltas_ns holds ndeltas values. O(1), no allocation,
 * no syscall. Returns true when the recorder is frozen after this call
 * (the sample was refused if it already was).
 */
bool lat_flight_push(struct lat_flight *f, uint64_t seq, lat_ns_t t0_ns,
		     const uint64_t *deltas_ns, lat_ns_t e2e_ns);

/* Samples in the window: min(seen, capacity). */
size_t lat_flight_count(const struct lat_flight *f);

/*
 * Sample @i of the window, 0 = oldest. Returns 0 or -ERANGE for
 * i >= lat_flight_count(). The rec points into the ring: valid until the
 * next push or destroy.
 */
int lat_flight_get(const struct lat_flight *f, size_t i,
		   struct lat_flight_rec *rec);

/*
 * Window position of the trigger sample, or -1 when none is in it
 * (not triggered).
 */
long lat_flight_trigger_index(const struct lat_flight *f);

/*
 * Analyse the window into @cols (ndeltas + 1 entries: the deltas, then
 * e2e). Uses the preallocated scratch: no allocation, but it writes to @f,
 * so not concurrently with a push. Returns the number of entries written.
 */
size_t lat_flight_analyze(struct lat_flight *f, struct lat_flight_col *cols);

/*
 * Write the window as a table for people to @out: a header naming the
 * trigger and threshold, one row per sample (at most @before rows before
 * the trigger, all rows after it; SIZE_MAX for the whole window), slow
 * cells starred, the trigger row marked, then the analysis in words
 * (which column holds the trigger's excess; isolated slow cells versus
 * runs of consecutive ones). Returns 0 or -EIO on a write error.
 */
int lat_flight_dump_table(struct lat_flight *f, FILE *out, size_t before);

/*
 * The recorder's outcome for people on @out, after a run: "never
 * triggered" with the threshold (", auto" when @auto_threshold; the
 * warm-up not finished when there is none yet), or, triggered, the
 * window as lat_flight_dump_table (16 rows before the trigger) when
 * @csv_path is NULL, else one line naming the trigger's seq and the file
 * the caller wrote the CSV to. Writes to @f's scratch (lat_flight_analyze).
 */
void lat_flight_print_outcome(FILE *out, struct lat_flight *f,
			      bool auto_threshold, const char *csv_path);

/*
 * Write the whole window as CSV: seq,t0_ns,<delta names>,e2e_ns,mark with
 * values in ns and mark "trigger" or "slow:<columns>" or empty. Returns 0
 * or -EIO.
 */
int lat_flight_dump_csv(struct lat_flight *f, FILE *out);

/*
 * The recorder's state and analysis (not the samples) as a JSON object
 * under @key. Returns nothing; errors surface in lat_json_finish().
 */
void lat_flight_json(struct lat_flight *f, struct lat_json *j,
		     const char *key);

/* "recording", "triggered" or "frozen". */
const char *lat_flight_state_name(enum lat_flight_state s);

#endif

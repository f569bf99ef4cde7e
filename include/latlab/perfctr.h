/*
 * lat_perf: per-thread counters, read around a measured run.
 *
 * Counts what one thread did between lat_perf_start() and lat_perf_read():
 * time on CPU, context switches, CPU migrations, page faults, run-queue
 * wait, and (where a hardware PMU exists) cycles, instructions and cache
 * misses. The source of each counter is chosen at open time:
 *
 *   perf      perf_event_open on the thread (software events as one group,
 *             hardware events as a second group), read with one read() per
 *             group;
 *   proc      /proc/self/task/<tid>/{schedstat,sched,stat} when perf cannot
 *             count it honestly (no privilege, perf disabled);
 *   none      the counter is unavailable and carries a reason.
 *
 * Invariants:
 *  - An unavailable counter is never reported as 0: its bit in
 *    lat_perf_reading.available is clear and lat_perf_reason() says why
 *    ("no hardware PMU (ENOENT)", "perf_event_paranoid=2 and no
 *    CAP_PERFMON (EACCES)", ...).
 *  - The exclude_kernel trap: without privilege the kernel accepts
 *    context-switch and migration events only with exclude_kernel=1, and
 *    then they always read 0 (both are raised in kernel context). Such a
 *    counter is not taken from perf; it falls back to /proc or is n/a.
 *  - Hardware events that the kernel multiplexed are scaled by
 *    enabled/running and flagged in lat_perf_reading.scaled.
 *  - Nothing here is for the hot path: open, start and read are syscalls
 *    (a few microseconds each in a VM). Call them at the edges of a
 *    measured run, never inside it. No function allocates heap memory; a
 *    struct lat_perf is caller storage.
 *  - A struct lat_perf is used by one thread at a time. The /proc fallbacks
 *    need the counted thread to be alive when start and read run, so call
 *    them on the counted thread itself (perf counters keep their final
 *    values after the thread exits; /proc files do not).
 */
#ifndef LATLAB_PERFCTR_H
#define LATLAB_PERFCTR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "latlab/common.h"

enum lat_perf_counter {
	LAT_PERF_TASK_CLOCK,    /* ns the thread ran on a CPU */
	LAT_PERF_CTX_SWITCHES,  /* voluntary + involuntary */
	LAT_PERF_MIGRATIONS,    /* moves to another CPU */
	LAT_PERF_MINOR_FAULTS,  /* page faults served without I/O */
	LAT_PERF_MAJOR_FAULTS,  /* page faults that needed I/O */
	LAT_PERF_RUN_DELAY,     /* ns runnable but waiting for a CPU */
	LAT_PERF_CYCLES,        /* hardware: core cycles */
	LAT_PERF_INSTRUCTIONS,  /* hardware: retired instructions */
	LAT_PERF_CACHE_MISSES,  /* hardware: generic cache misses */
	LAT_PERF_LLC_MISSES,    /* hardware: last-level cache read misses */
	LAT_PERF_NCOUNTERS
};

enum lat_perf_source {
	LAT_PERF_SRC_NONE,      /* unavailable; see lat_perf_reason() */
	LAT_PERF_SRC_PERF,      /* perf_event_open */
	LAT_PERF_SRC_PROC,      /* /proc/self/task/<tid>/... */
};

/* Room for a reason such as "no hardware PMU (ENOENT)". */
#define LAT_PERF_REASON_LEN 96

/* Flags for lat_perf_open(). */
enum lat_perf_flags {
	/*
	 * Open every perf event with exclude_kernel=1, as an unprivileged
	 * process at perf_event_paranoid 2 must. Lets a privileged process
	 * (and the tests) see what an unprivileged user would get.
	 */
	LAT_PERF_USER_ONLY = 1 << 0,
	/* Do not use perf_event_open at all: /proc fallbacks only. */
	LAT_PERF_NO_PERF = 1 << 1,
	/*
	 * Software counters that /proc also has (task-clock, context
	 * switches, migrations, faults) come from /proc; perf is opened only
	 * for hardware events. Why: any perf event attached to a thread puts
	 * perf's switch-out/switch-in work on every context switch of that
	 * thread. On the 2-vCPU VM two threads handing a CPU back and forth
	 * with sched_yield paid 2.85 us per yield with the software group
	 * open against 1.30 us without it or with /proc (docs/pipeline.md),
	 * which doubled a yield-waiting pipeline's e2e p50. /proc costs
	 * nothing between lat_perf_start() and lat_perf_read().
	 */
	LAT_PERF_SOFT_PROC = 1 << 2,
};

struct lat_perf_slot {
	enum lat_perf_source source;
	int fd;                 /* perf fd, -1 when not from perf */
	uint64_t id;            /* perf event id within its group */
	uint64_t start;         /* value at lat_perf_start() (proc sources) */
	/* why unavailable; for proc sources why not perf; "" for perf */
	char reason[LAT_PERF_REASON_LEN];
};

struct lat_perf {
	pid_t tid;              /* counted thread */
	int flags;
	bool started;
	int sw_leader;          /* software group leader fd, -1 if none */
	int hw_leader;          /* hardware group leader fd, -1 if none */
	struct lat_perf_slot slot[LAT_PERF_NCOUNTERS];
};

/* Counter values for the run between lat_perf_start() and a read. */
struct lat_perf_reading {
	uint64_t value[LAT_PERF_NCOUNTERS]; /* 0 where unavailable: check */
	uint32_t available;     /* bit c set: value[c] is a real count */
	uint32_t scaled;        /* bit c set: multiplexed, scaled estimate */
};

/*
 * Open every counter for thread @tid of this process (0: the calling
 * thread), following @flags (0 or enum lat_perf_flags). A counter that
 * cannot be opened is marked unavailable with its reason; that is not an
 * error. Returns 0, or -EINVAL for a negative @tid or unknown flags, or
 * -ESRCH if @tid is not a thread of this process. On error nothing stays
 * open. Makes a few syscalls; no heap allocation.
 */
int lat_perf_open(struct lat_perf *p, pid_t tid, int flags);

/*
 * Zero the counters: reset and enable the perf groups, snapshot the /proc
 * sources. Call on the counted thread right before the measured run.
 * Returns 0, or -EINVAL if @p is not open, or a -errno from a /proc read
 * (the thread exited).
 */
int lat_perf_start(struct lat_perf *p);

/*
 * Read the counters accumulated since lat_perf_start() into @out; the
 * counters keep running. Costs one read() per perf group plus one per
 * /proc file in use. Returns 0, -EINVAL if not started, or a -errno from
 * the reads (a counter whose read failed is left unavailable in @out).
 */
int lat_perf_read(struct lat_perf *p, struct lat_perf_reading *out);

/* Close every fd. Safe on a zeroed, failed or already-closed struct. */
void lat_perf_close(struct lat_perf *p);

/* True when @r holds a real value for @c. */
static inline bool lat_perf_has(const struct lat_perf_reading *r,
				enum lat_perf_counter c)
{
	return (r->available >> c) & 1u;
}

/* Instructions per cycle, or a negative value when either is missing. */
double lat_perf_ipc(const struct lat_perf_reading *r);

/* Short stable name ("task-clock", "ctx-switches", ...), for JSON keys. */
const char *lat_perf_name(enum lat_perf_counter c);

/* "perf", "proc" or "none". */
const char *lat_perf_source_name(enum lat_perf_source s);

/*
 * Why @c is unavailable on @p; for a counter taken from /proc, why perf
 * could not give it; "" for a counter that perf counts.
 */
const char *lat_perf_reason(const struct lat_perf *p, enum lat_perf_counter c);

#endif

/*
 * lat_pipe: the instrumented pipeline.
 *
 *   producer --q1--> stage 1 --q2--> ... stage K --qK+1--> consumer
 *   (open loop)       (work)            (work)      (final stamp)
 *                                                        |  sample ring
 *                                                        v  (never blocks)
 *                                                   aggregator (cold)
 *
 * Invariants:
 *  - Every message carries its own stamps (raw cycles, struct lat_pipe_msg)
 *    and the consumer ships the whole message to the aggregator as the
 *    sample: the hot path never converts, records or allocates (except
 *    under the --alloc experiment, which is the point of it).
 *  - Stamps, in order, for every event:
 *      t0      intended send time from the pacer (not the actual time);
 *      t_sent  the producer's release from its pacing wait (the pacer's
 *              last clock read, a few ns before the push), re-stamped
 *              after any wait for space in q1, so it is the moment of
 *              publication: a stamp taken after the push returned could
 *              not travel in the message, and the stage may already have
 *              popped it by then;
 *      work[k].begin / .end  around stage k's work;
 *      t_final the consumer's stamp after its pop.
 *    Deltas (in this order, named by lat_pipe_delta_name): pace = t_sent -
 *    t0, q1+wake = work[0].begin - t_sent, work1, q2+wake, ..., workK,
 *    qK+1+wake = t_final - work[K-1].end, e2e = t_final - t0. The parts
 *    telescope: in cycles e2e is exactly their sum; after conversion
 *    (each part truncated to whole ns) e2e is within n_parts ns of it,
 *    and the aggregator checks that for every sample.
 *  - Accounting is exact and printed: produced = consumed (the pipeline
 *    drains, even after a stop) and consumed = recorded + dropped, where
 *    dropped counts samples the consumer could not hand to a full sample
 *    ring. Every per-delta histogram holds recorded values: total_count +
 *    overflow_count (values over the histogram's range) = recorded.
 *  - Hot threads are pinned to the CPUs in the config; the aggregator
 *    only to agg_cpu, a CPU no hot thread uses (else it is unpinned).
 *    Signals SIGINT/SIGTERM are blocked in every pipeline thread so
 *    that they reach the thread that called lat_pipe_start.
 *  - Nothing here prints on its own; the printers take a FILE * or a
 *    struct lat_json and read only struct lat_pipe_result.
 *
 * Threading: lat_pipe_start/wait/free from one controlling thread;
 * lat_pipe_stop and lat_pipe_progress from any thread (atomics only).
 */
#ifndef LATLAB_PIPE_H
#define LATLAB_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/clock.h"
#include "latlab/hist.h"
#include "latlab/json.h"
#include "latlab/pace.h"
#include "latlab/topo.h"
#include "latlab/wait.h"
#include "latlab/work.h"

#define LAT_PIPE_MAX_STAGES 8
/* Events per run at most (lat_pipe_config.events). */
#define LAT_PIPE_MAX_EVENTS 1000000000000ULL
/* producer + stages + consumer */
#define LAT_PIPE_MAX_HOT (LAT_PIPE_MAX_STAGES + 2)
/* pace, (q, work) per stage, last q, e2e */
#define LAT_PIPE_MAX_DELTAS (2 * LAT_PIPE_MAX_STAGES + 3)
/* Slots of the consumer -> aggregator sample ring (power of two). */
#define LAT_PIPE_SAMPLE_RING (1u << 16)
/* Pauses before yielding when hot threads share a CPU (lat_pipe_place). */
#define LAT_PIPE_SHARED_SPINS 16
/* Samples per aggregator slice when it shares CPUs with hot threads. */
#define LAT_PIPE_AGG_SLICE 32
/* The aggregator's sleep when the sample ring is empty (1 ms). */
#define LAT_PIPE_AGG_IDLE_NS 1000000
/* Hot threads' nice (and their session autogroup's) when they share CPUs. */
#define LAT_PIPE_SHARED_NICE (-10)
/* Guard period when hot threads share CPUs (lat_pipe_config.guard_ns). */
#define LAT_PIPE_GUARD_NS 250000.0
/* The producer yields while its next send is further away than this. */
#define LAT_PIPE_PACE_YIELD_NS 8000
/* Histogram range: 1 ns .. 1 hour at 3 significant digits. */
#define LAT_PIPE_HIST_MAX_NS 3600000000000LL
#define LAT_PIPE_HIST_SIG_FIGS LAT_HIST_DEFAULT_SIG_FIGS

/* One message, stamped as it travels; also the sample the aggregator gets. */
struct lat_pipe_msg {
	uint64_t seq;            /* 0.. events-1 */
	lat_cycles_t t0;         /* intended send time */
	lat_cycles_t t_sent;     /* producer's release / publication, q1 */
	lat_cycles_t t_final;    /* consumer, after its pop */
	struct {
		lat_cycles_t begin, end;
	} work[LAT_PIPE_MAX_STAGES]; /* only the first K travel */
};

/*
 * Bytes of a message for @stages stages: the rings move only the stamps
 * that exist (48 bytes for K = 1), not the whole struct.
 */
#define LAT_PIPE_MSG_SIZE(stages)                                            \
	(offsetof(struct lat_pipe_msg, work) +                               \
	 (size_t)(stages) * sizeof(((struct lat_pipe_msg *)0)->work[0]))

enum lat_pipe_role { LAT_PIPE_PRODUCER, LAT_PIPE_STAGE, LAT_PIPE_CONSUMER };

/*
 * Optional callbacks for instrumentation that is not the pipeline's own
 * (per-thread perf counters, allocation counting, flight recorder). All
 * may be NULL. thread_begin/thread_end run on hot thread @index (0 =
 * producer, 1..K = stages, K+1 = consumer) just before its measured loop
 * starts and just after it ends, after pinning: the place to start and
 * read per-thread counters. thread_prepare runs on the same thread after
 * pinning but before the start line, so that slow set-up (opening perf
 * counters: a dozen syscalls) does not delay the first events. sample
 * runs on the aggregator for every recorded sample, after conversion,
 * with the deltas in ns in lat_pipe_delta_name order (only e2e when
 * stamps are off).
 */
struct lat_pipe_hooks {
	void *ctx;
	void (*thread_begin)(void *ctx, int index, enum lat_pipe_role role);
	void (*thread_end)(void *ctx, int index, enum lat_pipe_role role);
	void (*sample)(void *ctx, const struct lat_pipe_msg *m,
		       const int64_t *delta_ns, int n_deltas);
	/* last, so positional initializers of the others stay valid */
	void (*thread_prepare)(void *ctx, int index, enum lat_pipe_role role);
};

struct lat_pipe_config {
	uint64_t events;          /* 1..10^12; default 2,000,000 */
	double rate;              /* events/s, (0, 10^9]; default 200,000 */
	enum lat_pace_kind arrivals; /* fixed or poisson; default fixed */
	uint64_t seed;            /* Poisson gaps; default 1 */
	int stages;               /* K, 1..LAT_PIPE_MAX_STAGES; default 1 */
	size_t capacity;          /* hot ring slots, power of two; 4096 */
	double work_ns;           /* per stage, [0, 1e9]; default 100 */
	struct lat_work_dist work_dist; /* stage 1's work: det (zeroed, the
				   * default), exp, lognormal, bimodal, drawn
				   * into a table from seed before the run;
				   * the other stages stay det. Mean work_ns */
	enum lat_wait_kind wait;  /* empty/full rings; see lat_pipe_place */
	uint32_t wait_spins;      /* pauses before yield/sleep; 0 = default */
	bool pin;                 /* pin hot threads to cpu[]; default true */
	int cpu[LAT_PIPE_MAX_HOT];/* CPU per hot thread when pin */
	bool pace_yield;          /* producer yields while early (its CPU is
				   * shared); set by lat_pipe_place */
	double pace_yield_above_ns; /* producer yields (sched_yield) while its
				   * next send is more than this away, then
				   * spins the rest: a CPU it shares with
				   * anything gets the early time; default
				   * LAT_PIPE_PACE_YIELD_NS, 0 never */
	double pace_sleep_ns;     /* producer sleeps (nanosleep) while more
				   * than this early, then spins or yields
				   * the rest; 0 (default) never sleeps */
	unsigned place_flags;     /* enum lat_topo_flags of the placement,
				   * set by lat_pipe_place, for the report */
	bool stamps;              /* intermediate stamps; false = only t0 and
				   * t_final (the overhead benchmark) */
	size_t alloc_bytes;       /* malloc+free per event in stage 1, one
				   * byte written per page; 0 off. When set,
				   * lat_pipe_start fixes glibc's mmap
				   * threshold at 128 KiB for the process so
				   * larger blocks are mmapped every time */
	bool share_line;          /* stage 1's and the consumer's counters on
				   * one cache line (else 128 bytes apart) */
	int agg_cpu;              /* the aggregator's CPU: one no hot thread
				   * uses (lat_pipe_place_pool picks it), or
				   * -1 unpinned (no CPU left, or no pin) */
	unsigned agg_slice;       /* the aggregator yields its CPU after
				   * every this many samples, so a hot thread
				   * its wake-up preempted gets the CPU back
				   * within a slice; 0 never (it has a CPU of
				   * its own); set by lat_pipe_place */
	double agg_idle_ns;       /* the aggregator sleeps this long when the
				   * sample ring is empty; 0 = default
				   * LAT_PIPE_AGG_IDLE_NS */
	double hot_slice_ns;      /* the hot threads ask the kernel for this
				   * scheduler slice (EEVDF sched_runtime,
				   * Linux 6.12+; a shorter slice preempts
				   * on wake-up); 0 leaves the kernel's */
	int hot_nice;             /* -20..19: the hot threads' nice value;
				   * below 0 (with scheduler autogroups) the
				   * session's autogroup's too for the run,
				   * put back by lat_pipe_wait (a run killed
				   * by SIGKILL leaves it to the session);
				   * needs CAP_SYS_NICE below 0 (refusals
				   * are in the result); 0 leaves both */
	double guard_ns;          /* a sleeping "guard" thread per hot CPU
				   * wakes this often (0 = none, else 50 us
				   * .. 100 ms): each wake-up lets the
				   * pipeline take its CPU back from another
				   * task between scheduler ticks */
	bool noise;               /* a memory-hammering thread beside them */
	int noise_cpu;            /* its CPU, -1 unpinned */
	uint64_t stall_seq;       /* stage 1 busy-waits on this event ... */
	double stall_ns;          /* ... this long; 0 = no stall */
	double interval_s;        /* hlog interval, > 0; default 1 */
	FILE *hlog;               /* interval log stream (the caller opens
				   * and closes it), NULL for none */
	unsigned calibrate_ms;    /* clock calibration window; default 200 */
	struct lat_pipe_hooks hooks;

	/*
	 * The CFS-throttling experiment: after calibrating, lat_pipe_start
	 * moves the whole process into a child cgroup with this share of
	 * one CPU per period (lat_cgroup_quota_begin), and lat_pipe_wait
	 * reads its throttling counters and removes it (so does
	 * lat_pipe_free after a failed start). Needs root (or a writable
	 * cpu controller): lat_cgroup_quota_ready() says so up front.
	 */
	double cpu_quota;         /* share of one CPU, (0, 1]; 0 = off */
	uint64_t cpu_period_us;   /* CFS period, 1 ms .. 1 s; default 100 ms */
	int burst_threads;        /* 0..LAT_PIPE_MAX_BURST unpinned threads
				   * that each spin a quarter of every period
				   * (a worker pool bursting past the quota) */
	const char *cgroup_root;  /* /proc and /sys prefix (tests); NULL */
};

#define LAT_PIPE_MAX_BURST 64
/* Onsets of e2e spikes kept to find how often they recur. */
#define LAT_PIPE_MAX_SPIKES 1024

/* Per hot thread, as the run went. */
struct lat_pipe_thread_result {
	char name[16];            /* "producer", "stage1", "consumer" */
	int cpu;                  /* pinned CPU, -1 unpinned */
	int ran_on;               /* CPU seen at the end of its run */
	struct lat_wait_stats wait;
	/* /proc/thread-self/schedstat over its measured run (any user) */
	bool sched_known;
	uint64_t on_cpu_ns;       /* time it ran (its CPU clock) */
	uint64_t run_delay_ns;    /* time it was runnable but not running */
	/* the counters' view of the same run, when they counted it
	 * (lat_instr_fill_result): task-clock and context switches, from
	 * perf events or (counters_by_perf false) from /proc, where
	 * task-clock is schedstat's CPU time: the CPU clock again */
	bool counters_known;
	bool counters_by_perf;
	uint64_t task_clock_ns;
	uint64_t switches;
};

/*
 * One ring as the aggregator saw it: its depth sampled off the hot path
 * (the aggregator reads both indices about every millisecond).
 */
struct lat_pipe_ring_use {
	char name[16];            /* "q1", ..., "samples" */
	size_t capacity;
	uint64_t looks;           /* depth samples taken */
	uint64_t nonempty;        /* looks that found it holding events */
	uint64_t full;            /* looks that found it full */
	int64_t depth_p50, depth_p99, depth_max;
	uint64_t errors;          /* samples dropped (sample ring only) */
};

/* The run's CPU quota experiment, when config.cpu_quota > 0. */
struct lat_pipe_quota {
	bool applied;             /* the process ran inside the child */
	int64_t quota_us;
	uint64_t period_us;
	uint64_t nr_periods, nr_throttled, throttled_ns;
	int error;                /* reading, leaving or removing failed */
	char group[256];          /* the child's path in its hierarchy */
	int version;              /* enum lat_cgroup_version */
	/* freezes: the consumer's output stopping for (period - quota) / 2
	 * or more beyond what the schedule explains; each ends where the
	 * kernel refills the quota, at a period boundary */
	uint64_t spikes;
	double spike_gap_ns;      /* median gap between the ends of
				   * consecutive freezes; 0 if < 2 */
};

struct lat_pipe_delta {
	char name[16];            /* "pace", "q1+wake", "work1", ..., "e2e" */
	struct lat_hist hist;     /* ns; owned by the result */
};

/*
 * The scheduler probe's attribution of the time above the run's e2e
 * p99.9, as plain data (lat_sched_attr_fill_result writes it after the
 * run), so the diagnosis can use it without the pipe module needing the
 * probe. Zeroed (ran false) when the probe did not run.
 */
#define LAT_PIPE_TAIL_CAUSES 10

struct lat_pipe_tail_cause {
	const char *name;         /* stable key ("own", "probe", "foreign", "irq",
				   * "unexplained", ...): static storage */
	const char *text;         /* the same for people: static storage */
	uint64_t ns;              /* the causes' ns sum to total_ns */
	char who[24];             /* its largest contributor, "" if none or
				   * the cause names nobody */
	int who_pid;              /* its pid (a thread id for our own);
				   * -1 when the probe did not see who held
				   * the CPU, 0 when there is no who */
	bool who_foreign;         /* who is a task of another process */
};

struct lat_pipe_tail_probe {
	bool ran;
	int64_t threshold_ns;     /* the e2e p99.9 the probe used */
	uint64_t events;          /* events above it that were attributed */
	uint64_t total_ns;        /* the sum of their e2e */
	int n_causes;
	struct lat_pipe_tail_cause cause[LAT_PIPE_TAIL_CAUSES];
};

struct lat_pipe_result {
	struct lat_pipe_config config;   /* as run (hooks and paths kept) */
	int n_hot;
	struct lat_pipe_thread_result thread[LAT_PIPE_MAX_HOT];
	int n_deltas;
	struct lat_pipe_delta delta[LAT_PIPE_MAX_DELTAS];

	/* accounting */
	uint64_t produced, consumed, recorded, dropped;
	uint64_t over_range;      /* sum of every delta's overflow_count */
	uint64_t clock_backwards; /* deltas whose end stamp < start stamp,
				   * recorded as 0 */
	uint64_t sum_check_failures; /* samples where e2e_ns is not within
				      * rounding of the sum of its parts */
	bool exact;               /* produced = consumed = recorded + dropped
				   * and every delta count = recorded */

	/* rate and time */
	double offered_rate;      /* events/s asked for */
	double achieved_rate;     /* produced / producer's run time */
	double wall_s;            /* first intended send to last sample */
	bool interrupted;         /* lat_pipe_stop() before all events */
	double steal_pct;         /* CPU time the hypervisor stole during the
				   * run, % of all CPUs' time (/proc/stat);
				   * -1 when unknown */
	double loadavg;           /* 1-minute load average when the run
				   * started (/proc/loadavg); -1 unknown */
	int online_cpus;          /* CPUs online when it started */

	struct lat_clock_cal cal;
	struct lat_work work;
	struct lat_work_table work_table; /* stage 1's drawn table when
				   * work_dist is not det: its mean, cv and
				   * timed check (steps is NULL here) */

	/* experiments */
	uintptr_t stage_counter_addr, consumer_counter_addr;
	uint64_t stage_counter, consumer_counter;

	/* files */
	uint64_t hlog_intervals;  /* interval lines written (all tags) */
	int hlog_error;           /* 0 or the first write error */

	/* USE audit (see lat_pipe_use) */
	int n_rings;              /* hot rings, then the sample ring */
	struct lat_pipe_ring_use ring[LAT_PIPE_MAX_HOT];
	struct lat_pipe_thread_result agg; /* the aggregator's schedstat */
	int n_use_cpus;           /* the hot threads' distinct CPUs */
	int use_cpu[LAT_PIPE_MAX_HOT]; /* each CPU, -1 = all (unpinned) */
	uint64_t cpu_busy_ns[LAT_PIPE_MAX_HOT]; /* its non-idle time over
				   * the run (/proc/stat, tick resolution),
				   * UINT64_MAX unknown */
	uint64_t run_ns;          /* the span the busy times cover */
	uint64_t rss_bytes;       /* resident set at the end */
	uint64_t minflt, majflt;  /* the process's faults during the run */
	uint64_t swap_bytes;      /* of the process, at the end */
	uint64_t alloc_failures;  /* --alloc blocks malloc refused */
	struct lat_pipe_quota quota;
	struct lat_pipe_tail_probe sched; /* filled by the probe, if it ran */

	/* what the run asked of the scheduler (hot_nice, hot_slice_ns,
	 * guard_ns) and what it refused: 0 or the first -errno */
	int nice_error;           /* a thread's setpriority(hot_nice) */
	int autogroup_error;      /* the session autogroup's nice; -ENOENT:
				   * no autogroups (thread nice is enough) */
	bool autogroup_changed;   /* the session's autogroup took hot_nice
				   * for the run (only below 0, and not
				   * under cpu_quota: in a cpu group of its
				   * own no autogroup applies) */
	int slice_error;          /* sched_setattr(hot_slice_ns) */
	int guards;               /* guard threads that ran */
	int guard_error;          /* a guard's pinning, nice or slice */
};

/* Fill @c with the defaults above. */
void lat_pipe_config_init(struct lat_pipe_config *c);

/*
 * Size a run by time: set @c->events to the events @c->rate sends in
 * @duration_ns (rounded up). Returns 0, -EDOM when @duration_ns is
 * shorter than one gap between sends (the run would be one event sent
 * at once), or -ERANGE when the count falls outside 1..LAT_PIPE_MAX_EVENTS;
 * @c->events is unchanged on error.
 */
int lat_pipe_config_duration(struct lat_pipe_config *c, double duration_ns);

/*
 * A stall from its text "<seq>:<time>" (e.g. "5000:2ms": stage 1
 * busy-waits 2 ms on event 5000) into @c->stall_seq and @c->stall_ns.
 * A bare time is in ns; it is above 0 (a zero stall would be no
 * experiment at all). Returns 0 or -EINVAL, @c unchanged on error.
 */
int lat_pipe_stall_parse(struct lat_pipe_config *c, const char *text);

/*
 * Check @c: the one place the pipeline's ranges are written. Returns 0,
 * or -EINVAL with *@why (may be NULL) set to a static lowercase message
 * that starts with the bad field's name, e.g. "stages must be between 1
 * and 8" (a command maps the field to its own flag: lat_pipe_config_field
 * gives the name alone).
 */
int lat_pipe_config_check(const struct lat_pipe_config *c, const char **why);

/*
 * The field named by a lat_pipe_config_check message: copies the first
 * word of @why into @buf ("stages", "work_ns", ...) and returns the rest
 * ("must be between 1 and 8"), or NULL when @why is NULL.
 */
const char *lat_pipe_config_field(const char *why, char *buf, size_t len);

/* Hot threads for @stages stages: stages + 2. */
static inline int lat_pipe_n_hot(int stages)
{
	return stages + 2;
}

/* Deltas for @stages stages: pace, (q, work) per stage, last q, e2e. */
static inline int lat_pipe_n_deltas(int stages)
{
	return 2 * stages + 3;
}

/*
 * Copy placement @p into @c (cpu[], place_flags; set @c->pin first: an
 * unpinned run keeps only the shared-CPU fact) and choose what
 * oversubscription needs. When two hot threads share a CPU: the producer
 * paces with yields if its own CPU is shared (@c->pace_yield), an unset
 * @c->wait_spins becomes LAT_PIPE_SHARED_SPINS, and unless @wait_chosen
 * the wait strategy becomes LAT_WAIT_YIELD (spinners sharing a CPU hand
 * off once per scheduler tick; yielding cannot livelock); otherwise it is
 * LAT_WAIT_SPIN. Short of CPUs (and not chosen by the user), a consumer
 * that would share a stage's CPU while the producer has one to itself
 * moves beside the producer, and the aggregator yields every
 * LAT_PIPE_AGG_SLICE samples (@c->agg_slice). Sharing CPUs, the hot
 * threads also take nice LAT_PIPE_SHARED_NICE (@c->hot_nice) and a guard
 * thread per hot CPU every LAT_PIPE_GUARD_NS (@c->guard_ns), so that a
 * task of another session that got a hot CPU gives it back within a
 * guard period instead of a scheduler tick; not sharing, both are 0 (see
 * docs/pipeline.md for the measurements). Returns true when the
 * placement is oversubscribed.
 */
bool lat_pipe_place(struct lat_pipe_config *c, const struct lat_topo_place *p,
		    bool wait_chosen);

/*
 * lat_pipe_place, then the cold threads' CPUs on topology @t: the
 * aggregator (@c->agg_cpu) and, with @c->noise, the noise thread each on
 * a CPU no hot thread uses (-1 when none is left, or unpinned). Returns
 * as lat_pipe_place. Pure: @t may be a fake tree (tests).
 */
bool lat_pipe_place_on(struct lat_pipe_config *c, const struct lat_topo *t,
		       const struct lat_topo_place *p, bool wait_chosen);

/*
 * The default placement on this machine, as `latlab pipeline` does it:
 * load the topology, lat_topo_place() the hot threads for @c->stages,
 * then lat_pipe_place(), and with @c->noise a lat_topo_unused_cpu() for
 * the noise thread. *@oversubscribed (may be NULL) says whether hot
 * threads share CPUs. Returns 0, -ENOMEM, or lat_topo_load/place errors.
 * Reads sysfs; allocates and frees the topology (~24 KiB).
 */
int lat_pipe_autoplace(struct lat_pipe_config *c, bool wait_chosen,
		       bool *oversubscribed);

/* What placing on a CPU pool found (lat_pipe_place_pool). */
struct lat_pipe_placement {
	bool oversubscribed;      /* hot threads share CPUs */
	int n_usable;             /* usable CPUs (online, in the mask, in
				   * the pool) */
	int bad_cpu;              /* on -ESRCH: the CPU that is not usable */
	char usable[256];         /* the machine's usable CPUs as a list
				   * ("0-3,8"), for a refusal's message */
};

/*
 * Place @c's hot threads (stages + 2) and copy the placement in with
 * lat_pipe_place(); with @c->noise, the noise thread gets a CPU no hot
 * thread uses. @cpus (@n_cpus entries, may be NULL for "the whole
 * machine") is either the CPU of each hot thread in order (@n_cpus at
 * most the number of hot threads; fewer are packed) or, when longer, a
 * pool to place within as lat_topo_place would (the placement is then
 * flagged LAT_TOPO_CHOSEN). Returns 0, -ENOMEM, -ESRCH when a listed CPU
 * is not usable (@out->bad_cpu names it), or lat_topo_load/place errors.
 * Reads sysfs; allocates and frees the topology (~24 KiB). @out may be
 * NULL.
 */
int lat_pipe_place_pool(struct lat_pipe_config *c, const int *cpus,
			int n_cpus, bool wait_chosen,
			struct lat_pipe_placement *out);

/*
 * When @pl says the hot threads of @c share CPUs, one line on @f saying
 * so and what the wait will do about it ("3 hot threads on 2 usable CPUs:
 * numbers include scheduler effects; wait 'yield' ..."); nothing
 * otherwise. Returns @pl->oversubscribed.
 */
bool lat_pipe_placement_warn(FILE *f, const struct lat_pipe_config *c,
			     const struct lat_pipe_placement *pl);

/* Name of delta @i for @stages stages ("pace", "q1+wake", ...). */
const char *lat_pipe_delta_name(int stages, int i, char *buf, size_t len);

struct lat_pipe;

/*
 * Calibrate the clock and the work, allocate the rings and histograms,
 * write the hlog header, start every thread, and release them together.
 * Returns 0 and *out, -EINVAL (bad config), -ENOMEM, -errno from pinning
 * (a CPU outside the mask) or from the hlog header; nothing is left
 * running on failure. Blocks for the calibrations (~calibrate_ms + a few ms).
 */
int lat_pipe_start(const struct lat_pipe_config *c, struct lat_pipe **out);

/*
 * Ask the producer to stop after the current event; the pipeline then
 * drains and finishes normally. Any thread, any time, idempotent.
 */
void lat_pipe_stop(struct lat_pipe *p);

/*
 * Snapshot for a progress line: events produced so far (updated every
 * 1024 events), seconds since the first intended send, and whether the
 * run has finished (lat_pipe_wait will not block). Any thread.
 */
bool lat_pipe_progress(struct lat_pipe *p, uint64_t *produced,
		       double *elapsed_s);

/*
 * Join every thread and fill @r (which then owns the histograms: release
 * with lat_pipe_result_destroy). Returns 0, or the first error a thread
 * hit (pinning, hlog writes: also in r->hlog_error). Call once.
 */
int lat_pipe_wait(struct lat_pipe *p, struct lat_pipe_result *r);

/* Free @p after lat_pipe_wait, or a failed start. Accepts NULL. */
void lat_pipe_free(struct lat_pipe *p);

/*
 * Polled by lat_pipe_watch about every LAT_PIPE_POLL_MS with the progress
 * so far; return true to stop the run (it then drains and finishes
 * normally). The place for "stop on Ctrl-C" and for a progress line.
 */
typedef bool (*lat_pipe_stop_fn)(void *ctx, uint64_t produced,
				 double elapsed_s);
#define LAT_PIPE_POLL_MS 20

/*
 * Wait until the started pipeline @p has finished, calling @stop (may be
 * NULL: just wait) every LAT_PIPE_POLL_MS and lat_pipe_stop() once it
 * says so. Returns true when @stop asked for the stop. The calling thread
 * sleeps between polls; call lat_pipe_wait next.
 */
bool lat_pipe_watch(struct lat_pipe *p, lat_pipe_stop_fn stop, void *ctx);

/*
 * start + watch + wait + free: the whole run, stoppable by @stop (may be
 * NULL), which is also polled (produced 0, elapsed 0) during the work
 * calibration. Returns lat_pipe_start's error (then @r is zeroed and owns
 * nothing; -EINTR when @stop asked during the calibration) or
 * lat_pipe_wait's. When @r->interrupted, @stop asked.
 */
int lat_pipe_run_until(const struct lat_pipe_config *c,
		       struct lat_pipe_result *r, lat_pipe_stop_fn stop,
		       void *ctx);

/* lat_pipe_run_until without a stop: for tests and benchmarks. */
int lat_pipe_run(const struct lat_pipe_config *c, struct lat_pipe_result *r);

/* Release the histograms in @r. Safe on a zeroed or destroyed result. */
void lat_pipe_result_destroy(struct lat_pipe_result *r);

/* The kind of a delta: where its time went. */
enum lat_pipe_part {
	LAT_PIPE_PART_PACE,  /* the producer sent late */
	LAT_PIPE_PART_QUEUE, /* an event waited in a ring for its thread */
	LAT_PIPE_PART_WORK,  /* a stage's work was interrupted */
	LAT_PIPE_PART_E2E,   /* the whole trip */
};

/* Kind of delta @i for @stages stages. */
enum lat_pipe_part lat_pipe_delta_part(int stages, int i);

/* "pace", "queue", "work", "e2e": stable names for JSON. */
const char *lat_pipe_part_name(enum lat_pipe_part k);

/*
 * Why the tail is what it is, as facts from one run (the "tail:" lines of
 * the table and the "diagnosis" object of the JSON both render this).
 * Each finding has a flag saying whether it applies and its numbers.
 */
struct lat_pipe_diag {
	int worst_delta;          /* part (not e2e) with the largest p99.9,
				   * index into delta[]; -1 when none */
	enum lat_pipe_part worst_part;
	int64_t worst_p999_ns;
	bool shared_cpus;         /* hot threads share CPUs: hand-offs wait
				   * for the other thread to yield */
	uint64_t yields, sleeps;  /* all hot threads' waits, summed */
	bool loaded;              /* load average >= 1 at the start */
	double loadavg;           /* -1 unknown */
	int online_cpus;
	bool stolen;              /* hypervisor steal >= LAT_PIPE_STEAL_PCT */
	double steal_pct;         /* -1 unknown */
	enum lat_work_verdict work; /* lat_work_check of the calibration */
	uint64_t dropped;         /* samples the aggregator lost */
	/* the CPU quota's fingerprint: throttled periods, and e2e spikes
	 * of up to period - quota recurring about once a period */
	bool throttled;           /* the run's group was throttled */
	int64_t stall_ns;         /* period - quota: the longest freeze */
	bool recurring;           /* >= 2 freezes whose median gap is within
				   * LAT_PIPE_GAP_TOL of a whole number of
				   * periods */
	/* the scheduler probe's facts (r->sched) when it ran, else NULL;
	 * the cause with the most time above p99.9 and its share */
	const struct lat_pipe_tail_probe *probe;
	int probe_largest;        /* index into probe->cause, -1 none */
	double probe_largest_pct;
};

/* How close the spikes' median gap must be to a whole number of periods. */
#define LAT_PIPE_GAP_TOL 0.25

/* Steal (% of CPU time) from which a run's tail is blamed on it. */
#define LAT_PIPE_STEAL_PCT 0.5

/* Fill @d from @r. Pure; never fails. */
void lat_pipe_diagnose(const struct lat_pipe_result *r,
		       struct lat_pipe_diag *d);

/*
 * The USE audit of a run (Brendan Gregg's utilization, saturation,
 * errors), one row per resource: each CPU the hot threads ran on, each
 * hot ring, the aggregator, its sample ring, the process's memory.
 * Computed from struct lat_pipe_result alone; the table prints one line
 * per row and the JSON an object "use" keyed by row name.
 */
enum lat_pipe_resource {
	LAT_PIPE_RES_CPU,
	LAT_PIPE_RES_RING,
	LAT_PIPE_RES_AGG,
	LAT_PIPE_RES_SAMPLES,
	LAT_PIPE_RES_MEMORY,
};

struct lat_pipe_use_row {
	enum lat_pipe_resource kind;
	char name[16];            /* "cpu1", "cpus" (unpinned), "q1",
				   * "aggregator", "samples", "memory" */
	char users[64];           /* cpu: the hot threads pinned to it */
	/* utilization */
	double util_pct;          /* cpu: non-idle share of the run; ring:
				   * looks that found events; aggregator:
				   * its on-CPU share; -1 unknown */
	uint64_t busy_ns;         /* cpu: non-idle time (/proc/stat ticks),
				   * UINT64_MAX unknown */
	double ours_pct;          /* cpu: the hot threads' on-CPU share */
	uint64_t ours_ns;         /* cpu: their on-CPU time: the sum of
				   * their task-clocks when the counters
				   * counted every one of them (the table's
				   * figures), else of their CPU clocks
				   * (ours_by_task_clock says which) */
	bool ours_by_task_clock;
	bool ours_by_perf;        /* ... and every task-clock was perf's */
	/*
	 * cpu, when ours is perf's task-clock and the CPU clocks are known:
	 * what
	 * the CPU clocks (sum_exec_runtime) say beyond task-clock, and per
	 * context switch of these threads. The scheduler charges a switch
	 * from its clock reading in __schedule to the task switched to;
	 * task-clock stops in prepare_task_switch and restarts in
	 * finish_task_switch. Between two counted threads the difference
	 * is the switch itself (+0.77 us each on the 2-vCPU VM of
	 * docs/pipeline.md); a wakeup that preempts a counted thread is
	 * charged to the wakee from the wakeup on, so it can be negative.
	 */
	bool switching_known;
	uint64_t clock_ns;        /* their CPU clocks */
	int64_t switching_ns;     /* clock_ns - ours_ns */
	double switching_pct;     /* switching_ns as a share, like ours_pct */
	uint64_t switches;        /* their context switches (perf) */
	uint64_t rss_bytes;       /* memory: resident set */
	/* saturation */
	uint64_t run_delay_ns;    /* cpu, aggregator: runnable, waiting */
	double waiting;           /* run_delay_ns / the run: how many of its
				   * threads waited for a CPU on average
				   * (the run-queue length); -1 unknown */
	size_t capacity;          /* ring, samples */
	uint64_t looks, full;
	int64_t depth_p50, depth_p99, depth_max;
	int64_t late_p99_ns;      /* q1: the producer's lateness (pace p99);
				   * -1 for other rows */
	uint64_t majflt, minflt, swap_bytes; /* memory */
	/* errors (0 is the only good count) */
	uint64_t errors;          /* the sum of the ones below that apply */
	uint64_t throttled;       /* cpu: quota periods throttled */
	uint64_t dropped;         /* samples */
	uint64_t over_range, clock_backwards, sum_check; /* aggregator */
	uint64_t alloc_failures;  /* memory */
};

#define LAT_PIPE_USE_ROWS (2 * LAT_PIPE_MAX_HOT + 3)

struct lat_pipe_use {
	int n;
	struct lat_pipe_use_row row[LAT_PIPE_USE_ROWS];
	bool sched_known;         /* every hot thread's schedstat was read */
};

/* Fill @u from @r. Pure; never fails. */
void lat_pipe_use(const struct lat_pipe_result *r, struct lat_pipe_use *u);

/*
 * The per-delta table (count, p50, p99, p99.9, max with units), rate,
 * wall time and accounting, for people. Returns 0 or -EIO.
 */
int lat_pipe_print_table(FILE *out, const struct lat_pipe_result *r);

/*
 * Everything in @r as members of the JSON object currently open in @j
 * (the caller opens and closes it, so it can add its own members),
 * including "diagnosis": lat_pipe_diagnose's findings as data.
 */
void lat_pipe_write_json(struct lat_json *j, const struct lat_pipe_result *r);

/*
 * One .hgrm per delta in directory @dir (created if missing), values in
 * ns: <dir>/<name>.hgrm. Returns 0 or -errno / the writer's code.
 */
int lat_pipe_write_hgrm(const char *dir, const struct lat_pipe_result *r);

/*
 * Mark the interval log @hlog of a run stopped early: one comment line
 * "#[Partial: <why> after <sent> of <planned> events]" (hlog readers skip
 * comments; the intervals above it are whole). @why says what stopped it,
 * e.g. "interrupted by SIGINT". Returns 0 or -EIO.
 */
int lat_pipe_hlog_mark_partial(FILE *hlog, const struct lat_pipe_result *r,
			       uint64_t planned, const char *why);

/*
 * A progress line for a terminal, redrawn in place: carriage return,
 * "<produced>/<planned> events, <rate>, <t> s elapsed, ETA <s> s", no
 * newline. Feed it what a lat_pipe_stop_fn receives.
 */
void lat_pipe_progress_print(FILE *f, uint64_t produced, uint64_t planned,
			     double elapsed_s);

/*
 * A run watched by a person: pass a struct lat_pipe_progress as the ctx
 * of lat_pipe_progress_watch, a lat_pipe_stop_fn. It asks @stop (the
 * caller's own stop test, e.g. "was SIGINT seen"; may be NULL) and, on
 * @out (a terminal; NULL draws nothing), redraws lat_pipe_progress_print's
 * line every 250 ms from 0.5 s on. @on_flow (may be NULL) is called once,
 * with @stop_ctx, when the first event has been sent: the set-up is over.
 * lat_pipe_progress_end erases the line if one was drawn.
 */
struct lat_pipe_progress {
	FILE *out;
	uint64_t planned;          /* events the run will send */
	lat_pipe_stop_fn stop;
	void *stop_ctx;
	void (*on_flow)(void *stop_ctx);
	double drawn_s;            /* state (zero it): last drawing */
	bool drawn, flowing;
};
bool lat_pipe_progress_watch(void *ctx, uint64_t produced, double elapsed_s);
void lat_pipe_progress_end(struct lat_pipe_progress *p);

/*
 * Write the run's percentile spectrum as a standalone SVG to @out: one
 * line per delta, e2e in black (lat_svg_percentiles); an interrupted
 * run's chart says so in red under its title, with the events it got
 * through. Returns 0, -EINVAL, -EIO.
 */
int lat_pipe_write_svg(FILE *out, const struct lat_pipe_result *r);

#endif

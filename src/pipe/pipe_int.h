/*
 * Pipeline internals shared by src/pipe_*.c. Not a public header.
 */
#ifndef LATLAB_PIPE_INT_H
#define LATLAB_PIPE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "latlab/cgroup.h"
#include "latlab/hist_io.h"
#include "latlab/pipe.h"
#include "latlab/seqring.h"
#include "latlab/spsc.h"

/* seq of the end-of-stream message each thread forwards, then exits */
#define PIPE_SEQ_END UINT64_MAX

/* start-line states (struct lat_pipe.go) */
enum { PIPE_WAIT = 0, PIPE_GO = 1, PIPE_ABORT = -1 };

/* /proc/thread-self/schedstat: what the USE audit needs per thread. */
struct pipe_sched {
	bool ok;
	uint64_t on_cpu_ns, run_delay_ns;
};

/* Read the calling thread's schedstat (never fails: ok says). */
void pipe_sched_read(struct pipe_sched *s);

/* Ask for an EEVDF slice of @slice_ns for the calling thread, keeping its
 * nice value. 0 or -errno (-EINVAL before Linux 6.12 or out of range). */
int pipe_set_slice(double slice_ns);

/*
 * One per hot thread, each on its own lines: the thread bumps its counts
 * and wait statistics every event, and neighbours must not share them.
 */
struct pipe_hot {
	_Alignas(LAT_PAD_BYTES) struct lat_pipe *p;
	int index;               /* 0 producer, 1..K stages, K+1 consumer */
	enum lat_pipe_role role;
	pthread_t tid;
	bool created;
	int err;                 /* pinning failure, written before ready */
	int slice_err;           /* hot_slice_ns refused: -errno */
	int nice_err;            /* hot_nice refused: -errno */
	int ran_on;
	struct lat_wait_stats wait;
	uint64_t count;          /* events handled (not the end marker) */
	uint64_t dropped;        /* consumer: samples refused by a full ring */
	uint64_t alloc_failures; /* stage 1 under --alloc */
	uint64_t sink;           /* work results, kept so work stays live */
	struct pipe_sched sched0, sched1; /* schedstat at enter / leave */
};

/* A guard thread (guard_ns) and what it reports after joining. */
struct pipe_guard {
	struct lat_pipe *p;
	pthread_t tid;
	int cpu;
	int err;                 /* its hot_slice_ns / hot_nice: -errno */
};

/* Aggregator state: owned by the aggregator thread until it exits. */
struct pipe_agg {
	int n_deltas;
	char name[LAT_PIPE_MAX_DELTAS][16];
	struct lat_hist total[LAT_PIPE_MAX_DELTAS];
	struct lat_hist interval[LAT_PIPE_MAX_DELTAS];
	uint64_t recorded;
	uint64_t clock_backwards;
	uint64_t sum_check_failures;
	lat_cycles_t interval_cycles;
	uint64_t interval_index;   /* of the histograms in interval[] */
	bool interval_dirty;
	lat_cycles_t last_t0, last_final;
	struct lat_hlog_writer *hlog;
	uint64_t hlog_intervals;
	int hlog_error;

	/* USE: ring depths sampled off the hot path, about every ms */
	int n_rings;                 /* hot rings + the sample ring */
	struct lat_hist depth[LAT_PIPE_MAX_HOT];
	uint64_t nonempty[LAT_PIPE_MAX_HOT], full[LAT_PIPE_MAX_HOT];
	size_t depth_max[LAT_PIPE_MAX_HOT]; /* exact: the histogram rounds */
	lat_cycles_t next_look;
	lat_cycles_t look_every;
	struct pipe_sched sched0, sched1;

	/* quota: freezes, seen as the consumer's output stopping for
	 * longer than the schedule explains; the first stamp after each */
	lat_cycles_t freeze_cycles;  /* threshold, 0 = not watching */
	uint64_t spikes;
	lat_cycles_t spike_t0[LAT_PIPE_MAX_SPIKES];
};

/* The two experiment counters of --share-line, 8 or 128 bytes apart. */
struct pipe_counters {
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t slot[2 * LAT_PAD_BYTES / 8];
};

struct lat_pipe {
	struct lat_pipe_config cfg;
	/* lat_pipe_run_until's stop, polled during the work calibration
	 * (long work takes seconds to time; Ctrl-C must not wait) */
	lat_pipe_stop_fn setup_stop;
	void *setup_stop_ctx;
	struct lat_clock_cal cal;
	struct lat_work work;
	struct lat_work_table table;   /* stage 1, when work_dist is not det */
	size_t msg_size;
	int n_hot;
	lat_cycles_t stall_cycles;
	double start_wall_s;       /* CLOCK_REALTIME at event 0's due time */
	uint64_t steal0, ticks0;   /* /proc/stat at the start line, 0 unknown */
	double loadavg;            /* /proc/loadavg at the start line, or -1 */

	/* hot rings: the latency-mode ring (a hand-off moves the slot's
	 * line only, latlab/seqring.h); the sample ring: the throughput one
	 * (the aggregator drains it in bursts) */
	struct lat_seqring *ring[LAT_PIPE_MAX_HOT - 1]; /* ring[i] feeds hot i+1 */
	struct lat_wait_pair *wait;                   /* one per ring */
	struct lat_spsc *samples;                     /* consumer -> aggregator */
	struct pipe_counters *counters;
	_Atomic uint64_t *stage_counter, *consumer_counter;

	struct pipe_hot hot[LAT_PIPE_MAX_HOT];
	pthread_t agg_tid, noise_tid;
	bool agg_created, noise_created;
	_Alignas(LAT_PAD_BYTES) struct pipe_agg agg;
	unsigned char *noise_buf;
	size_t noise_len;
	struct lat_cgroup_quota_run quota; /* cfg.cpu_quota > 0 */
	pthread_t burst_tid[LAT_PIPE_MAX_BURST];
	int n_burst;                       /* burst threads created */
	struct pipe_guard guard[LAT_PIPE_MAX_HOT]; /* one per hot CPU */
	int n_guard;                       /* guard threads created */
	int n_guard_ran, guard_err;        /* after joining them */
	int autogroup_old, autogroup_err;  /* hot_nice: the session's before */
	bool autogroup_set;                /* ... changed, to restore */
	bool autogroup_changed;            /* ... for the result */
	uint64_t busy0[LAT_PIPE_MAX_HOT];  /* per USE CPU, ticks at go */
	int use_cpu[LAT_PIPE_MAX_HOT];     /* its CPUs, -1 = all */
	int n_use_cpus;
	double go_wall_s;                  /* CLOCK_MONOTONIC at go */
	uint64_t minflt0, majflt0;

	atomic_bool stop;              /* producer: stop after this event */
	atomic_bool noise_stop;
	atomic_int ready;              /* hot threads at the start line */
	atomic_int go;                 /* PIPE_WAIT / PIPE_GO / PIPE_ABORT */
	_Atomic uint64_t start;        /* cycles: event 0 is due */
	_Atomic uint64_t produced_pub; /* progress, every 1024 events */
	atomic_bool consumer_done;     /* after the consumer's last sample */
	atomic_bool finished;          /* the aggregator has drained */
};

/* Ring @i of the USE rows: the hot rings q1.., then the sample ring.
 * Depth (a snapshot, off the hot path) and capacity. */
/* @t += @ns (>= 0), normalised: the periodic helpers' next wake-up. */
static inline void pipe_timespec_add(struct timespec *t, int64_t ns)
{
	t->tv_nsec += ns % 1000000000;
	t->tv_sec += ns / 1000000000 + t->tv_nsec / 1000000000;
	t->tv_nsec %= 1000000000;
}

static inline size_t pipe_ring_count(const struct lat_pipe *p, int i)
{
	return i <= p->cfg.stages ? lat_seqring_count(p->ring[i])
				  : lat_spsc_count(p->samples);
}

static inline size_t pipe_ring_capacity(const struct lat_pipe *p, int i)
{
	return i <= p->cfg.stages ? lat_seqring_capacity(p->ring[i])
				  : lat_spsc_capacity(p->samples);
}

void *pipe_producer_main(void *arg);
void *pipe_stage_main(void *arg);
void *pipe_consumer_main(void *arg);
void *pipe_noise_main(void *arg);
void *pipe_agg_main(void *arg);
void *pipe_burst_main(void *arg);
void *pipe_guard_main(void *arg);
/* hot_nice and hot_slice_ns on the calling thread: 0 or the first -errno */
int pipe_sched_prepare(const struct lat_pipe_config *c, int *nice_err);
/* The "sched:" line and its JSON object: what the run asked, refusals. */
void pipe_print_sched_ask(FILE *out, const struct lat_pipe_result *r);
void pipe_write_sched_ask_json(struct lat_json *j,
			       const struct lat_pipe_result *r);

/* Histograms and names for the run; 0 or -ENOMEM. Before any thread. */
int pipe_agg_init(struct lat_pipe *p);
void pipe_agg_destroy(struct pipe_agg *a);

/* The USE audit's edges (pipe_use.c): at the start line, and the
 * result once every thread has joined. */
void pipe_use_start(struct lat_pipe *p);
void pipe_use_fill(struct lat_pipe *p, struct lat_pipe_result *r);
/* The USE lines of the table and the "use" object (pipe_use_report.c). */
void pipe_print_use(FILE *out, const struct lat_pipe_result *r);
void pipe_write_use_json(struct lat_json *j, const struct lat_pipe_result *r);
/* The "cpu quota:" line, and its JSON object (pipe_diag.c). */
void pipe_print_quota(FILE *out, const struct lat_pipe_result *r);
void pipe_write_quota_json(struct lat_json *j, const struct lat_pipe_result *r);

/* The two renderings of struct lat_pipe_diag (pipe_diag.c). */
void pipe_print_diag(FILE *out, const struct lat_pipe_result *r,
		     const struct lat_pipe_diag *d);
void pipe_write_diag_json(struct lat_json *j,
			  const struct lat_pipe_result *r,
			  const struct lat_pipe_diag *d);

#endif

/*
 * lat_bench: a small harness for microbenchmarks that should not lie:
 * optimization barriers, repetition statistics (median with min and max,
 * warm-up excluded by the caller), two pinned threads started together,
 * and the physical floor a cross-core figure is checked against (a
 * measured cache-line ping-pong on the same two CPUs).
 *
 * Invariants:
 *  - Times are wall-clock ns from CLOCK_MONOTONIC over whole loops (many
 *    operations per reading), so the clock's own cost and resolution
 *    vanish in the division; per-operation cycle stamps are lat_clock's
 *    job, not this one's.
 *  - Nothing here prints; callers decide what a figure below its floor
 *    means (it means the harness is broken, not that the code is fast).
 *  - Thread functions run pinned when lat_bench_place_pair found two
 *    distinct CPUs, unpinned otherwise; the placement says which.
 */
#ifndef LATLAB_BENCH_H
#define LATLAB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/common.h"

/*
 * Optimization barriers. lat_bench_keep(x) makes the compiler believe @x
 * is read here (so the computation of x cannot be deleted or hoisted past
 * this point) without emitting any instruction. lat_bench_clobber() makes
 * it believe all memory may be read and written here.
 */
#define lat_bench_keep(x) __asm__ __volatile__("" : "+r"(x) : : "memory")
#define lat_bench_clobber() __asm__ __volatile__("" : : : "memory")

/* CLOCK_MONOTONIC in ns. A syscall-free vDSO read, ~30 ns here. */
double lat_bench_now_ns(void);

/* Median, min and max of repetitions. */
struct lat_bench_stat {
	double median;
	double min;
	double max;
	unsigned reps;
};

/*
 * Summarize @n (>= 1) samples in @v (sorted in place). The median of an
 * even count is the mean of the middle two. Returns 0 or -EINVAL.
 */
int lat_bench_stat_of(double *v, unsigned n, struct lat_bench_stat *out);

/* One measurement: fills *@value, returns 0 or a negative code. */
typedef int (*lat_bench_measure_fn)(void *ctx, double *value);

/* The most figures lat_bench_repeat measures side by side. */
#define LAT_BENCH_MAX_FIGS 12

/*
 * Measure @k (1..LAT_BENCH_MAX_FIGS) figures side by side: @warmup rounds whose values are
 * thrown away, then @reps (1..64) rounds; each round runs fn[0], fn[1],
 * ... in turn, so slow drift (frequency, host placement) hits every
 * figure alike rather than the one measured last. stats[i] summarizes
 * fn[i]. Returns 0, -EINVAL, or the first failing measurement's code.
 */
int lat_bench_repeat(const lat_bench_measure_fn *fn, void *const *ctx,
		     unsigned k, unsigned warmup, unsigned reps,
		     struct lat_bench_stat *stats);

/* Where the two threads of a cross-thread figure run. */
struct lat_bench_place {
	int cpu[2];      /* CPU numbers, -1 when unpinned */
	bool pinned;     /* two distinct CPUs, both threads pinned */
	bool siblings;   /* the two CPUs are SMT siblings of one core */
	int usable;      /* CPUs in this process's affinity mask */
	char desc[96];   /* for people: "cpu 0 and cpu 1 (2 usable, ...)" */
};

/*
 * Choose two CPUs from the affinity mask: distinct physical cores when
 * possible (SMT siblings share L1 and would flatter every figure), CPU 0
 * avoided when there are other choices (interrupts land there). With one
 * usable CPU, pinned is false. Returns 0 or -errno from
 * sched_getaffinity. Reads sysfs; not for hot paths.
 */
int lat_bench_place_pair(struct lat_bench_place *p);

typedef void (*lat_bench_fn)(void *arg);

/*
 * Run @a and @b at the same time on two new threads placed by @p (a on
 * cpu[0], b on cpu[1]); both are released together after both threads
 * are up, so thread creation is not timed. *@elapsed_ns (may be NULL) is
 * from the release to the later of the two returns. Returns 0 or -errno
 * (thread creation). Blocks until both return.
 */
int lat_bench_pair(const struct lat_bench_place *p, lat_bench_fn a,
		   lat_bench_fn b, void *arg, double *elapsed_ns);

/*
 * lat_bench_pair() for a job that moves the sequence numbers 0..@iters-1
 * and leaves the sum of what arrived in *@sum: returns -EPROTO unless every
 * number arrived exactly once, so a broken harness never yields a figure.
 * Same returns and thread use as lat_bench_pair() otherwise.
 */
int lat_bench_pair_seq(const struct lat_bench_place *p, lat_bench_fn a,
		       lat_bench_fn b, void *arg, const uint64_t *sum,
		       uint64_t iters, double *elapsed_ns);

/*
 * The floor: one cache line bounced between the two CPUs of @p @iters
 * times each way (each thread waits for the other's write, then writes).
 * *@one_way_ns is half the round trip: the least a message from one core
 * to the other can cost. Returns 0, -EINVAL without two CPUs, or -errno.
 */
int lat_bench_line_pingpong(const struct lat_bench_place *p, uint64_t iters,
			    double *one_way_ns);

/*
 * The floor of a round trip through two one-way channels (a pair of
 * rings): thread a writes line X and waits for line Y, b waits for X and
 * writes Y. Each hop moves a line to its reader and takes it back from
 * the reader's copy before the next write, which one line bounced both
 * ways (lat_bench_line_pingpong) can skip: a core that reads a line and
 * then writes it may be handed it writable at once. *@one_way_ns is half
 * the round trip. Returns 0, -EINVAL without two CPUs, or -errno.
 */
int lat_bench_two_line_pingpong(const struct lat_bench_place *p,
				uint64_t iters, double *one_way_ns);

/*
 * The 64-byte floor: what any one-way channel that moves a 64-byte
 * message and a "full" mark must pay. Each side writes a 64-byte payload
 * line, then a counter on a second line; the other waits for the counter,
 * reads the payload and answers the same way (about 2x the one-line
 * floor). *@one_way_ns is half the round trip. Returns 0, -EINVAL
 * without two CPUs, -ENOMEM, -EPROTO if a payload came back wrong, or
 * -errno.
 */
int lat_bench_line64_pingpong(const struct lat_bench_place *p,
			      uint64_t iters, double *one_way_ns);

/* ------------------------------------------------------------------ */
/* The figures `latlab bench` reports                                  */
/* ------------------------------------------------------------------ */

enum lat_bench_fig {
	LAT_BENCH_DCE_UNUSED,   /* ns/iteration of a loop whose result is
				 * unused: -O2 deletes it */
	LAT_BENCH_DCE_KEPT,     /* the same loop kept alive by a barrier */
	LAT_BENCH_ST_8B,        /* ns per push+pop pair, one thread, 8 B */
	LAT_BENCH_ST_64B,       /* the same, 64 B elements */
	LAT_BENCH_FLOOR,        /* one-way cache-line ping-pong, ns */
	LAT_BENCH_HANDOFF,      /* one-way ring handoff, ns */
	LAT_BENCH_TPUT,         /* messages/s, single push/pop */
	LAT_BENCH_TPUT_BATCH,   /* messages/s, batches of 32 */
	/* the latency-mode ring (lat_seqring), in the floor's rounds too */
	LAT_BENCH_SEQ_HANDOFF_8B,  /* one-way handoff, 8 B, ns */
	LAT_BENCH_SEQ_HANDOFF_64B, /* one-way handoff, 64 B, ns */
	LAT_BENCH_SEQ_TPUT,     /* messages/s, 8 B, single push/pop */
	LAT_BENCH_FLOOR2,       /* one-way, a line per direction, ns */
	LAT_BENCH_FLOOR64,      /* one-way, 64 B payload + mark line, ns */
	LAT_BENCH_NFIGS
};

struct lat_bench_figure {
	const char *key;        /* JSON key, e.g. "handoff_ns" */
	const char *label;      /* for people */
	bool rate;              /* messages/s, else ns */
	bool measured;          /* false: cross-thread without two CPUs */
	bool plausible;         /* false: below the physical floor (a
				 * harness bug, never a result) */
	struct lat_bench_stat st;
};

struct lat_bench_suite {
	struct lat_bench_place place;
	unsigned reps;
	uint64_t iters;         /* messages per throughput round */
	struct lat_bench_figure fig[LAT_BENCH_NFIGS];
	bool loop_deleted;      /* the unused loop took < 1/10 of the kept
				 * one: the compiler removed it */
	double loadavg;         /* at the start, -1 unknown */
};

/* What `latlab bench` runs: rounds per figure and messages per
 * throughput round, and the same with @quick (tests, a first look). */
#define LAT_BENCH_REPS 7
#define LAT_BENCH_ITERS 2000000
#define LAT_BENCH_QUICK_REPS 3
#define LAT_BENCH_QUICK_ITERS 100000

/* Set *@reps and *@iters where they are 0 to the defaults above. */
void lat_bench_suite_defaults(unsigned *reps, uint64_t *iters, bool quick);

/*
 * Measure every figure: @reps (1..64) rounds after one warm-up, figures
 * of a group interleaved (lat_bench_repeat); the cross-thread group only
 * with two CPUs, with the floor in the same rounds as the handoff it
 * judges. @iters (>= 1000) messages per throughput round (handoffs use
 * iters / 50); @quick shortens the ALU loops. Returns 0, -EINVAL,
 * -ENOMEM, or a measurement's error. Takes seconds to a minute.
 */
int lat_bench_suite_run(struct lat_bench_suite *s, unsigned reps,
			uint64_t iters, bool quick);

/*
 * The sentence under the dead-code pair, from its two figures: the
 * compiler deleted the unused loop (and what the barrier keeps), or this
 * build kept it.
 */
void lat_bench_dce_verdict(const struct lat_bench_suite *s, char *buf,
			   size_t len);

/*
 * For people on @out: placement, rounds, a load warning when the load
 * average exceeds the usable CPUs, then each group of figures (median,
 * min, max; "skipped" or "IMPLAUSIBLE" where so) with what it means,
 * and the latency-mode handoffs against their honest floors (8 B: the
 * two-line floor, a line each way, which any round trip through two
 * rings needs; 64 B: the 64-byte floor, a payload line and a mark line
 * each way) and against the one-line floor, with the two-line floor's
 * ratio to the one-line floor beside them.
 */
void lat_bench_suite_print(FILE *out, const struct lat_bench_suite *s);

/*
 * The same facts as one JSON object into @j (the caller owns
 * lat_json_init / lat_json_finish): placement{}, loadavg, reps,
 * messages_per_round, dce{..., loop_deleted, verdict}, same_thread{},
 * cross_thread{}, latency_ring{..., *_over_floor,
 * *_over_floor_two_lines, handoff_64B_over_floor_64B, honest_floor_8B,
 * honest_floor_64B (names of the floor figures), handoff_8B/64B
 * _over_honest_floor, within_1_5x_of_honest_floor,
 * floor_two_lines_over_floor}; a figure carries
 * median/min/max/reps only when measured and plausible.
 */
struct lat_json;
void lat_bench_suite_json(struct lat_json *j, const struct lat_bench_suite *s);

/* The text (!@json) or one JSON document of @s on @out, flushed:
 * lat_json_or_text's 0, -EINVAL (unbalanced JSON) or -EIO. */
int lat_bench_suite_write(FILE *out, bool json,
			  const struct lat_bench_suite *s);

#endif

/*
 * lat_mem: the memory hierarchy and contention, measured on this machine.
 *
 * Four experiments, each a handful of calls the `latlab mem` command
 * strings together (and any program can):
 *
 *  1. Load-to-use latency by working-set size: a dependent pointer chase
 *     over a random cyclic permutation of cache lines (one pointer per
 *     line, each load's address comes from the previous load, so neither
 *     the out-of-order core nor the prefetcher can run ahead), timed in
 *     samples of consecutive loads with the cycle clock and recorded in a
 *     latlab histogram; the plateaus of the curve found automatically and
 *     named against the cache sizes sysfs reports (lat_topo_caches).
 *     Variants: the same chase on huge pages (fewer TLB misses), page by
 *     page (one TLB miss per page: the caches' capacity without the
 *     TLB's reach), and a sequential chase (line i points to line i+1:
 *     the prefetcher's best case).
 *  2. Core-to-core: the one-way cache-line hand-off between every pair of
 *     usable CPUs, by lat_bench_line_pingpong (the floor `latlab bench`
 *     judges the ring against) or, when the caller asks, the same bounce
 *     at SCHED_FIFO with a deadline on every wait, each pair labelled
 *     from lat_topo.
 *  3. False sharing: two threads incrementing their own counters, on one
 *     line, 64 B apart and 128 B apart, on two CPUs (optionally at
 *     SCHED_FIFO, so that on a loaded machine they really run at once)
 *     and forced onto one.
 *  4. Read-mostly: N readers and one writer over a small table behind a
 *     pthread rwlock, an RCU-style pointer swap (lat_mem_rcu, below), and
 *     64 padded locks, one per reader shard.
 *
 * Invariants:
 *  - Times are measured in cycles of lat_clock and converted with the
 *    caller's calibration; both are reported so the cycle figures can be
 *    checked against `latlab clock`'s rate.
 *  - Every run counts what it did (loads, increments, reads, writes, torn
 *    reads) and checks what can be checked (each counter ends at exactly
 *    the increments counted; readers verify the table they read is whole).
 *  - Nothing here prints or exits; sysfs and /proc roots are parameters
 *    where tests need fake trees. Measuring loops allocate nothing and
 *    make no syscall; setup (buffers, threads, histograms) allocates.
 *  - A run that takes a duration sleeps for it on CLOCK_MONOTONIC and then
 *    stops its threads, so a caller can stop between runs on a signal.
 *  - A thread that raises itself to SCHED_FIFO does so only on the CPU it
 *    was pinned to and only for a loop that ends by its own deadline.
 *  - Each thread's own counters and histogram header sit on their own
 *    128-byte region: the harness must not falsely share lines itself.
 *
 * Thread-safety: each function is reentrant on distinct structs; the
 * lat_mem_rcu contract is stated with it.
 */
#ifndef LATLAB_MEM_H
#define LATLAB_MEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/bench.h"
#include "latlab/clock.h"
#include "latlab/common.h"
#include "latlab/hist.h"
#include "latlab/topo.h"

/* ------------------------------------------------------------------ */
/* Memory (the caches sysfs describes are lat_topo_caches, topo.h)     */

/*
 * MemAvailable from <proc_root>/meminfo (NULL: "/proc") in bytes, or 0
 * when unknown. For refusing a working set that would swap or be killed.
 */
uint64_t lat_mem_available(const char *proc_root);

/* ------------------------------------------------------------------ */
/* Buffers, with and without huge pages                                */

enum lat_mem_pages {
	LAT_MEM_PAGES_BASE,     /* ordinary pages (4 KiB on x86_64) */
	LAT_MEM_PAGES_HUGETLB,  /* MAP_HUGETLB from the reserved pool */
	LAT_MEM_PAGES_THP,      /* madvise(MADV_HUGEPAGE): transparent huge
				 * pages, as many as the kernel could give */
};

struct lat_mem_buf {
	void *base;               /* LAT_PAD_BYTES-aligned, >= len bytes */
	size_t len;
	size_t map_len;           /* what was mapped (rounded up) */
	enum lat_mem_pages pages; /* what was obtained, not what was asked */
	size_t huge_bytes;        /* bytes of base..len backed by huge pages,
				   * from /proc/self/smaps (0 for BASE) */
	int huge_err;             /* -errno of the MAP_HUGETLB attempt (why
				   * THP was used instead), or of madvise
				   * (why base pages); 0 otherwise */
	void *map_base;           /* the mapping's start (<= base) */
};

/*
 * Map @len (> 0) bytes of anonymous memory and touch every page (so page
 * faults are paid here, not in a measurement). With @huge, try
 * MAP_HUGETLB first, then a 2 MiB-aligned mapping with
 * madvise(MADV_HUGEPAGE); b->pages says which worked and b->huge_bytes
 * how much of the buffer the kernel really backs with huge pages (THP
 * may give none: fragmentation, "never" in
 * /sys/kernel/mm/transparent_hugepage/enabled). Without @huge the buffer
 * is advised MADV_NOHUGEPAGE, so "base pages" means base pages even with
 * THP "always". Returns 0, -EINVAL, or -ENOMEM.
 */
int lat_mem_buf_map(struct lat_mem_buf *b, size_t len, bool huge);

/*
 * The transparent huge page mode from <sys_root>/kernel/mm/
 * transparent_hugepage/enabled (NULL: "/sys"): the bracketed word
 * ("always", "madvise", "never") into @out. Returns 0, -errno (no such
 * file: no THP in this kernel), -LAT_EFORMAT, or -EINVAL.
 */
int lat_mem_thp_mode(const char *sys_root, char *out, size_t len);

/* Unmap @b's memory and zero @b. Safe on a zeroed struct. */
void lat_mem_buf_unmap(struct lat_mem_buf *b);

/* ------------------------------------------------------------------ */
/* What `latlab mem` runs by default: a program that wants the command's
 * figures uses the same. */
#define LAT_MEM_CHASE_SAMPLES 100      /* timed samples per size */
#define LAT_MEM_CHASE_LOADS 1024       /* dependent loads per sample */
#define LAT_MEM_CHASE_STEPS 4          /* sizes per doubling */
#define LAT_MEM_CHASE_MIN 4096         /* smallest working set, bytes */
#define LAT_MEM_LLC_PROBE_S 2.0        /* lat_mem_llc_drift_run, seconds */
#define LAT_MEM_ROUNDS 5               /* interleaved rounds (c2c, false
					* sharing; read-mostly takes <= 2) */
#define LAT_MEM_C2C_ITERS 20000        /* round trips per c2c run */
#define LAT_MEM_SHARE_NS 50e6          /* per false-sharing run (2 CPUs) */
#define LAT_MEM_RM_NS 200e6            /* per read-mostly run */
#define LAT_MEM_RM_WRITE_INTERVAL_NS 100e3 /* the writer's pause */

/* @text (a verdict sentence) as a `  -> ` paragraph on @out, wrapped at
 * 78 columns with a 5-column hanging indent. */
void lat_mem_verdict_print(FILE *out, const char *text);

/* ------------------------------------------------------------------ */
/* The chase                                                           */

/*
 * Fill next[0..n-1] with a uniformly random cyclic permutation (Sattolo's
 * algorithm): following i -> next[i] from any start visits all n indices
 * once before returning. Deterministic for a given @seed. n in
 * 1..UINT32_MAX; n == 1 gives next[0] == 0. Returns 0 or -EINVAL.
 */
int lat_mem_cycle_build(uint32_t *next, size_t n, uint64_t seed);

/*
 * The same, page by page: one cycle through all n indices that visits
 * the @per_page (1..LAT_MEM_MAX_PAGE_LINES) consecutive indices of one
 * page, in a random order of their own, before it moves on to the next
 * page of a random cycle of pages (the last page may be partial). Laid
 * over 4 KiB pages (per_page 64) it misses the TLB once per 64 loads
 * instead of on almost every load, so a cache's capacity shows without
 * the page walks of a random chase over more pages than the TLB holds.
 * Deterministic for a given @seed. Returns 0 or -EINVAL. No allocation.
 */
#define LAT_MEM_MAX_PAGE_LINES 1024
int lat_mem_cycle_build_paged(uint32_t *next, size_t n, unsigned per_page,
			      uint64_t seed);

/*
 * Lay a chain in @base: line i (at base + i * LAT_CACHELINE) holds a
 * pointer to line next[i]. With @next NULL the chain is sequential: line
 * i points to line i + 1 and the last to line 0. n >= 1.
 */
void lat_mem_chain_link(void *base, const uint32_t *next, size_t n);

/*
 * Follow the chain from @p for @loads dependent loads; returns where it
 * stopped (the caller keeps it, so the loads cannot be deleted). Inline,
 * unrolled by 8: each load's address is the previous load's value.
 */
LAT_INLINE void *lat_mem_chase(void *p, uint64_t loads)
{
	void *const *q = (void *const *)p;

	while (loads >= 8) {
		q = (void *const *)*q; q = (void *const *)*q;
		q = (void *const *)*q; q = (void *const *)*q;
		q = (void *const *)*q; q = (void *const *)*q;
		q = (void *const *)*q; q = (void *const *)*q;
		loads -= 8;
	}
	while (loads--)
		q = (void *const *)*q;
	return (void *)q;
}

/*
 * Working-set sizes from @min to at least @max bytes, @steps (1..16)
 * per doubling: min * 2^(k/steps) rounded to whole cache lines, the last
 * one >= max. Writes up to @cap sizes to @out; returns how many there
 * are (which may exceed @cap: call with cap 0 to size the array), or
 * -EINVAL (min < one line, max < min, steps out of range).
 */
int lat_mem_sizes(uint64_t min, uint64_t max, unsigned steps, uint64_t *out,
		  int cap);

/*
 * The largest working set that shows every cache and then DRAM: 4x the
 * last-level cache in @c, or 64 MiB when sysfs lists none.
 */
uint64_t lat_mem_chase_default_max(const struct lat_topo_caches *c);

/*
 * Memory a chase up to @max_size bytes takes: its buffer (a second one on
 * huge pages with @hugepages) and the permutation's 4 bytes per line.
 * Compare with lat_mem_available before asking for it.
 */
uint64_t lat_mem_chase_bytes_needed(uint64_t max_size, bool hugepages);

/*
 * Whether a chase up to @max_size fits: lat_mem_chase_bytes_needed
 * against 90% of @avail (lat_mem_available; 0 = unknown, then it fits).
 * Returns 0 or -ENOMEM; *need gets the bytes it needs.
 */
int lat_mem_chase_fits(uint64_t max_size, bool hugepages, uint64_t avail,
		       uint64_t *need);

enum lat_mem_order {
	LAT_MEM_RANDOM,       /* random cyclic permutation of the lines */
	LAT_MEM_SEQUENTIAL,   /* line i -> line i + 1: the prefetcher wins */
	LAT_MEM_PAGE_LOCAL,   /* lat_mem_cycle_build_paged over the base
			       * page size: one TLB miss per page */
};

struct lat_mem_chase_cfg {
	enum lat_mem_order order;
	unsigned samples;          /* timed samples per size (>= 1) */
	unsigned loads_per_sample; /* dependent loads per sample (>= 8) */
	uint64_t warmup_loads;     /* untimed loads first (at least one
				    * lap for chains up to 2^20 lines) */
	uint64_t seed;             /* permutation seed */
	bool (*stop)(void *ctx);   /* may be NULL; asked every
				    * LAT_MEM_STOP_EVERY samples, untimed */
	void *stop_ctx;
};
#define LAT_MEM_STOP_EVERY 256

/* One size's result. ns and cycles are per load. */
struct lat_mem_point {
	uint64_t bytes;
	uint64_t lines;
	uint64_t loads;        /* timed loads: samples * loads_per_sample */
	double min_ns, p50_ns, p90_ns, p99_ns, max_ns;
	double p50_cycles;     /* counter cycles per load at p50 */
	int64_t over_range;    /* samples the histogram refused (counted,
				* kept out of the percentiles) */
};

/*
 * Measure one working-set size: lay the chain over the first @bytes of
 * @buf (rounded down to whole lines, >= 1 line) in @cfg->order using
 * @scratch (>= bytes / LAT_CACHELINE entries, for the permutation; may
 * be NULL for LAT_MEM_SEQUENTIAL), run max(warmup_loads, min(lines,
 * 2^20)) untimed loads (one lap of any chain a cache can hold, so every
 * line that fits is in it), then cfg->samples samples of
 * loads_per_sample loads, each timed with lat_clock_start/end and
 * recorded in a histogram of cycles. Fills @out with per-load figures.
 * Returns 0, -EINVAL (bad config, size beyond the buffer), -ENOMEM, or
 * -EINTR when cfg->stop said stop (@out is then not filled).
 * Allocates one histogram per call; the timed loop allocates nothing.
 */
int lat_mem_chase_size(const struct lat_mem_chase_cfg *cfg,
		       const struct lat_clock_cal *cal, struct lat_mem_buf *buf,
		       uint32_t *scratch, uint64_t bytes,
		       struct lat_mem_point *out);

/*
 * Cost in counter cycles of an empty lat_clock_start/end pair (median of
 * 1001 pairs). The chase subtracts it from every sample, so a sample
 * times only its loads; figures that time one operation each (false
 * sharing) include it and print it. No allocation, no syscall.
 */
uint64_t lat_mem_stamp_overhead(void);

/*
 * Estimate the core clock in GHz from a chain of dependent multiplies
 * (3 cycles each on every x86_64 core of the last decade; dependent adds,
 * 1 cycle, on aarch64), timed in the thread's CPU time (preemption left
 * out) for about @ms milliseconds, the best of 20 runs kept. An estimate: turbo and the hypervisor move it. Turns
 * counter-cycle figures into the core cycles textbooks quote. Returns
 * the GHz, or 0 when the timing failed.
 */
double lat_mem_core_ghz(unsigned ms);

/* ------------------------------------------------------------------ */
/* Plateaus                                                            */

#define LAT_MEM_MEMORY (-1)   /* plateau beyond every cache: DRAM */
#define LAT_MEM_UNNAMED (-2)

/* Two flat runs whose levels differ by less than this factor are one
 * level (noise or a TLB step); a cache level is at least this much
 * slower than the one before it on every machine we know. */
#define LAT_MEM_LEVEL_JUMP 1.5
/* DRAM is at least this much slower than the last-level cache (10-20 ns
 * against 60-150 ns on every machine we know): a smaller step past the
 * last cache is that cache's tail, not memory. */
#define LAT_MEM_DRAM_JUMP 3.0

struct lat_mem_plateau {
	int first, last;      /* indices into the curve, inclusive */
	double level;         /* median of y[first..last] */
	int edge;             /* index of the last size before the curve
			       * crosses half-way (geometric) to the next
			       * plateau's level: the capacity, as the curve
			       * shows it; -1 for the last plateau */
	int cache;            /* index into lat_topo_caches, LAT_MEM_MEMORY,
			       * or LAT_MEM_UNNAMED */
	double steps_off;     /* (log2(bytes[edge]) - log2(cache size)) *
			       * steps: 0 = the edge is at the cache's size,
			       * -2 = two steps early; NAN without an edge */
};

/*
 * Find the plateaus of a latency curve: @y[i] at working set @bytes[i]
 * (ascending), @n points. First the flat runs: at least @min_points (>= 2)
 * consecutive points each within @tol (relative, e.g. 0.25) above the run's lowest
 * value (compared with the lowest, not with the neighbour, so a slowly
 * rising curve cannot creep into one run). Then runs whose levels differ
 * by less than LAT_MEM_LEVEL_JUMP are merged (with the points between
 * them) into one plateau, so noise and small steps do not split a level;
 * a run shorter than @min_points is a slope between levels, not a level
 * (use about 3/4 of the sizes per doubling).
 * Each plateau but the last gets an edge (see struct). Writes up to
 * @cap plateaus; returns how many there are, or -EINVAL. Pure: no
 * allocation, no I/O.
 */
int lat_mem_plateaus(const uint64_t *bytes, const double *y, int n,
		     double tol, int min_points, struct lat_mem_plateau *out,
		     int cap);

/*
 * Name plateaus after the caches, in order: the first is the smallest
 * cache (L1d), the next the next cache, and the one after the largest
 * cache is LAT_MEM_MEMORY; a plateau that starts more than one step past
 * the largest cache is LAT_MEM_MEMORY whatever its rank, and plateaus
 * beyond that are LAT_MEM_UNNAMED. Either way a candidate less than
 * LAT_MEM_DRAM_JUMP above the plateau before it is LAT_MEM_UNNAMED, and
 * the next one may be memory. Sets steps_off from each named
 * cache's edge (@steps sizes per doubling). No allocation.
 */
void lat_mem_plateaus_name(struct lat_mem_plateau *p, int np,
			   const uint64_t *bytes,
			   const struct lat_topo_caches *c, unsigned steps);

/* ------------------------------------------------------------------ */
/* Core to core                                                        */

enum lat_mem_relation {
	LAT_MEM_SMT_SIBLING,  /* one physical core: shared L1 and L2 */
	LAT_MEM_SAME_LLC,     /* different cores, one last-level cache */
	LAT_MEM_CROSS_LLC,    /* different last-level caches (domains) */
	LAT_MEM_REL_UNKNOWN,  /* sysfs does not say */
};

/* How @a and @b share hardware, from @t. */
enum lat_mem_relation lat_mem_relation_of(const struct lat_topo *t, int a,
					  int b);

/* "SMT sibling", "same cache domain", "cross domain", "unknown". */
const char *lat_mem_relation_text(enum lat_mem_relation r);

/*
 * One round of the hand-off between @a and @b (distinct usable CPUs): a
 * cache line bounced @iters times each way, both threads pinned;
 * *@one_way_ns = round trip / 2. With @fifo_cal NULL this is
 * lat_bench_line_pingpong. With a calibration, the same bounce with both
 * threads at SCHED_FIFO where permitted (*@fifo, may be NULL, says if
 * both got it) and every wait of a side that got it bounded by a
 * deadline of 10 us per hand-off, so a peer that never runs costs a
 * timeout, not a hang (a side the kernel refused waits like any thread).
 * Returns 0, -EINVAL (same CPU, iters 0), -ETIMEDOUT (deadline passed),
 * -ENOMEM or the -errno of thread creation.
 */
int lat_mem_c2c_once(int a, int b, uint64_t iters,
		     const struct lat_clock_cal *fifo_cal, double *one_way_ns,
		     bool *fifo);

/* ------------------------------------------------------------------ */
/* False sharing                                                       */

#define LAT_MEM_SHARE_BATCH 32 /* increments per stamp pair */

struct lat_mem_share_cfg {
	int cpu[2];           /* CPU of each thread; equal = one CPU */
	size_t offset;        /* bytes between the two counters: 8 (same
			       * line), 64, 128; multiple of 8, <= 4096 */
	double duration_ns;   /* how long both threads increment */
	bool fifo;            /* on two CPUs: run the measured loop at
			       * SCHED_FIFO 1 (needs CAP_SYS_NICE), so other
			       * processes cannot keep the two threads from
			       * running at the same time */
};

struct lat_mem_share_result {
	uint64_t increments[2];  /* counted by each thread... */
	bool exact;              /* ...and equal to its counter's final
				  * value (nothing lost) */
	bool fifo;               /* both threads ran at SCHED_FIFO */
	double elapsed_ns;
	double per_s;            /* increments of both threads per second */
	double mean_ns;          /* per increment per thread, the whole run:
				  * 2 * elapsed / increments (loop and stamps
				  * included, the same for every layout) */
	double p50_ns;           /* per increment: p50 of the timed
				  * batches / LAT_MEM_SHARE_BATCH */
};

/*
 * Two threads pinned to cfg->cpu[0] and cfg->cpu[1] each increment their
 * own counter (a relaxed atomic fetch-add, which needs the line
 * exclusive) in batches of LAT_MEM_SHARE_BATCH, each batch timed with
 * lat_clock_start/end (long enough to amortize the stamps and resolve a
 * VM's coarse counter; the other core still takes the line within a
 * batch, though a core may keep it for a few increments, so figures
 * understate the cost of one transfer per increment); the counters are cfg->offset bytes apart in one
 * 128-byte-aligned block, and each thread's own bookkeeping is on its
 * own lines. Batch times (cycles; per increment = value /
 * LAT_MEM_SHARE_BATCH) are added to @cycles when it is not NULL
 * (caller-initialized).
 * Both CPUs must be usable (see lat_topo): pinning is lat_bench_pair's,
 * best effort. Returns 0, -EINVAL, -ENOMEM, or the -errno of thread
 * creation.
 */
int lat_mem_share_run(const struct lat_mem_share_cfg *cfg,
		      const struct lat_clock_cal *cal,
		      struct lat_hist *cycles,
		      struct lat_mem_share_result *out);

/* The whole experiment, as `latlab mem --false-sharing` runs it. */
#define LAT_MEM_SHARE_MAX_ROUNDS 64

/* One placement and distance, over the rounds. */
struct lat_mem_share_cell {
	struct lat_hist h;             /* batch cycles, every round */
	double p50[LAT_MEM_SHARE_MAX_ROUNDS];  /* ns per increment, p50 */
	double mean[LAT_MEM_SHARE_MAX_ROUNDS]; /* ns per increment, mean */
	double rate[LAT_MEM_SHARE_MAX_ROUNDS]; /* increments per second */
	unsigned n;                    /* rounds run */
	unsigned fifo_runs;            /* runs whose threads got SCHED_FIFO */
	bool exact;                    /* no increment lost in any run */
	struct lat_bench_stat p50_st, rate_st, mean_st; /* over the rounds */
};

struct lat_mem_share_sweep {
	/* in */
	int cpu_list[LAT_TOPO_MAX_CPUS]; /* usable CPUs, first = home */
	int n_cpus;
	unsigned rounds;               /* 1..LAT_MEM_SHARE_MAX_ROUNDS */
	double duration_ns;            /* per two-CPU run (one CPU: twice) */
	bool rt;                       /* try SCHED_FIFO on two CPUs */
	/* out */
	int cpus[2][2];                /* [0]: two CPUs (different cores when
					* there is a choice), [1]: one CPU */
	int placements;                /* 2, or 1 with one usable CPU */
	struct lat_mem_share_cell cell[2][3]; /* [placement][8, 64, 128 B] */
	bool complete;                 /* false: @stop ended it */
	double stamp_ns, cycles_per_ns;
	/* the finding: NAN / false where not measured */
	double two_ratio;              /* two CPUs: same line / 128 B, p50 */
	bool two_resolved;             /* their middle rounds do not overlap */
	double adj_ratio;              /* two CPUs: 64 B / 128 B, p50 */
	bool adj_resolved;
	double one_ratio;              /* one CPU: same line / 128 B, p50 */
	bool one_within;               /* within the rounds' spread */
	char verdict[900];
};

/*
 * Run s->rounds interleaved rounds of every cell (lat_mem_share_run),
 * asking @stop (may be NULL) before each run, then the statistics, the
 * finding and the verdict. Returns 0, -EINVAL, -ENOMEM or a run's error.
 * @s is large: static or heap; lat_mem_share_sweep_release after a
 * success (an error has already given everything back).
 */
int lat_mem_share_sweep_run(struct lat_mem_share_sweep *s,
			    const struct lat_topo *topo,
			    const struct lat_clock_cal *cal,
			    bool (*stop)(void *ctx), void *ctx);
void lat_mem_share_sweep_release(struct lat_mem_share_sweep *s);

/* The table for people on @out, whether the two-CPU runs got the
 * SCHED_FIFO asked for, and s->verdict under it as a `  -> ` paragraph. */
void lat_mem_share_print(FILE *out, const struct lat_mem_share_sweep *s);

/* How many of the two-CPU runs asked for SCHED_FIFO got it (@fifo) of
 * how many ran (@runs): s->rt asks; without CAP_SYS_NICE none get it. */
void lat_mem_share_fifo_runs(const struct lat_mem_share_sweep *s,
			     unsigned *fifo, unsigned *runs);

/* The same as the member "false_sharing" of the object open in @j. */
struct lat_json;
void lat_mem_share_json(struct lat_json *j,
			const struct lat_mem_share_sweep *s);

/* ------------------------------------------------------------------ */
/* RCU-style publication                                               */

/*
 * lat_mem_rcu: one pointer that readers follow without writing anything
 * shared, and a writer that swaps it and waits for a grace period before
 * reusing or freeing the old object.
 *
 * Each reader owns a slot on its own 128-byte region. Entering a read
 * section the reader copies the global epoch into its slot (a seq_cst
 * store: the only write, and to its own line) and loads the pointer
 * (seq_cst); leaving, it stores 0 (release). The writer swaps the pointer
 * (seq_cst), advances the epoch to e, and waits until every slot is 0 or
 * >= e. Why that is enough: a reader whose slot the writer read as 0 made
 * its store after that read in the single seq_cst order, so its pointer
 * load, later still, sees the new pointer; a reader whose slot holds
 * >= e loaded the epoch after the writer advanced it (acquire), so it
 * also sees the new pointer; a reader with an older epoch may hold the
 * old object and is waited for until its release store of 0, which then
 * happens-before the writer's reuse. Every edge is an atomic operation
 * (no standalone fence), so ThreadSanitizer sees them all.
 *
 * Contract: reader r (0 <= r < readers) is one thread at a time; read
 * sections do not nest; between begin and end a reader may use the
 * object returned by begin and nothing else it got from this domain.
 * One writer at a time (callers serialize writers). Readers never block
 * and never wait; the writer's grace period waits for readers that are
 * inside a section which began before the swap (spin, then sched_yield,
 * so a preempted reader gets its CPU back).
 */
struct lat_mem_rcu_slot {
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t epoch; /* 0 = quiescent */
};

struct lat_mem_rcu {
	_Alignas(LAT_PAD_BYTES) _Atomic(void *) ptr;
	_Alignas(LAT_PAD_BYTES) _Atomic uint64_t epoch; /* starts at 1 */
	/* readers the writer had to wait for; written by the writer only,
	 * atomic so that another thread may watch it while it waits */
	_Atomic uint64_t grace_waits;
	int readers;
	struct lat_mem_rcu_slot *slot; /* @readers slots, owned */
};

/*
 * Initialise @r for @readers (1..4096) readers with @initial as the
 * published object (may be NULL). Allocates the slots. Returns 0,
 * -EINVAL or -ENOMEM (then @r is zeroed).
 */
int lat_mem_rcu_init(struct lat_mem_rcu *r, int readers, void *initial);

/* Free the slots and zero @r. The published object stays the caller's. */
void lat_mem_rcu_destroy(struct lat_mem_rcu *r);

/*
 * Enter a read section as reader @reader; returns the published object,
 * valid until lat_mem_rcu_read_end(). Inline; one store to the reader's
 * own line, two loads; no allocation, syscall or lock.
 */
LAT_INLINE void *lat_mem_rcu_read_begin(struct lat_mem_rcu *r, int reader)
{
	/* acquire pairs with the writer's seq_cst epoch advance in
	 * lat_mem_rcu_synchronize: seeing it means seeing the swap */
	uint64_t e = atomic_load_explicit(&r->epoch, memory_order_acquire);

	/* seq_cst store then seq_cst load: against the writer's seq_cst
	 * swap and slot read (the store-buffering pattern; see above) */
	atomic_store_explicit(&r->slot[reader].epoch, e, memory_order_seq_cst);
	return atomic_load_explicit(&r->ptr, memory_order_seq_cst);
}

/* Leave the read section. Inline; one release store to the own line. */
LAT_INLINE void lat_mem_rcu_read_end(struct lat_mem_rcu *r, int reader)
{
	/* release pairs with the writer's load of this slot: everything
	 * this reader read happens-before the old object's reuse */
	atomic_store_explicit(&r->slot[reader].epoch, 0, memory_order_release);
}

/*
 * Publish @next and return the previous object, which readers may still
 * be using: pass it to lat_mem_rcu_synchronize() before reusing it.
 */
void *lat_mem_rcu_publish(struct lat_mem_rcu *r, void *next);

/*
 * Wait for a grace period: every read section that began before this
 * call has ended. After it, an object replaced by lat_mem_rcu_publish()
 * before the call is no longer read. Writer only; blocks (spin, then
 * sched_yield) while a reader is inside an old section; no allocation.
 */
void lat_mem_rcu_synchronize(struct lat_mem_rcu *r);

/* ------------------------------------------------------------------ */
/* Read-mostly                                                         */

enum lat_mem_rm_kind {
	LAT_MEM_RM_RWLOCK,    /* pthread_rwlock (writer-preferring) */
	LAT_MEM_RM_RCU,       /* lat_mem_rcu pointer swap */
	LAT_MEM_RM_SHARDED,   /* 64 padded mutexes, one per reader shard;
			       * the writer takes all 64 */
};

#define LAT_MEM_RM_SHARDS 64
#define LAT_MEM_RM_TABLE 16        /* entries in the table */
#define LAT_MEM_RM_MAX_READERS 256

/* "rwlock", "rcu", "sharded". */
const char *lat_mem_rm_kind_name(enum lat_mem_rm_kind k);

struct lat_mem_rm_cfg {
	enum lat_mem_rm_kind kind;
	int readers;             /* 1..LAT_MEM_RM_MAX_READERS */
	const int *cpus;         /* readers are pinned round-robin here */
	int n_cpus;              /* >= 1 */
	double duration_ns;      /* how long the readers read, from the
				  * moment every reader has made its first
				  * lookup */
	double write_interval_ns;/* the writer sleeps this long between
				  * updates (it is a read-mostly table) */
	bool (*stop)(void *ctx); /* optional: asked every ~50 ms, true ends
				  * the run early (a run may be asked to
				  * last up to a minute) */
	void *stop_ctx;
};

struct lat_mem_rm_result {
	uint64_t reads;          /* every reader's lookups, all timed */
	uint64_t writes;         /* table updates */
	uint64_t torn;           /* lookups that saw a half-written table:
				  * must be 0 for every kind */
	double elapsed_ns;
	double reads_per_s;
	double writes_per_s;
};

/*
 * Run one read-mostly configuration: cfg->readers threads each looking
 * up the table (one entry per lookup, and a check that the table's
 * entries all carry one version) as fast as they can, every lookup timed
 * and added to @read_cycles; one unpinned writer updating every entry to
 * a new version every write_interval_ns, each update (lock wait, or copy,
 * swap and grace period) timed into @write_cycles. Both histograms are
 * caller-initialized (cycles) and may be NULL. Returns 0, -EINVAL,
 * -ENOMEM, or the -errno of thread creation or pinning.
 */
int lat_mem_rm_run(const struct lat_mem_rm_cfg *cfg,
		   struct lat_hist *read_cycles, struct lat_hist *write_cycles,
		   struct lat_mem_rm_result *out);

/* ---- read-mostly: what `latlab mem read-mostly` runs and reports ---- */

#define LAT_MEM_RM_MAX_READER_SETS 8

/* One reader count and kind, over the rounds. */
struct lat_mem_rm_cell {
	struct lat_hist rh, wh;        /* read / write cycles */
	uint64_t reads, writes, torn;
	double elapsed_ns;
	unsigned n;                    /* runs */
};

struct lat_mem_rm_sweep {
	/* in */
	int threads[LAT_MEM_RM_MAX_READER_SETS]; /* reader counts */
	int n_threads;
	int cpu_list[LAT_TOPO_MAX_CPUS];
	int n_cpus;
	unsigned rounds;               /* at most 2 are run */
	double duration_ns;            /* per run */
	double write_interval_ns;
	/* out */
	struct lat_mem_rm_cell cell[LAT_MEM_RM_MAX_READER_SETS][3];
	bool complete;                 /* false: @stop ended it */
	double cycles_per_ns;
	int finding_at;                /* the reader set judged (2 readers
					* when asked), -1 when none */
	double ratio;                  /* rwlock p99 / RCU-style p99 there,
					* NAN when not measured */
	char verdict[700];             /* "" when not measured */
};

/*
 * Run every reader count and kind (lat_mem_rm_run) in interleaved rounds
 * (at most 2), asking @stop (may be NULL) before each run, then the
 * finding and the verdict. Returns 0, -EINVAL, -ENOMEM or a run's error.
 * @s is large: static or heap; lat_mem_rm_sweep_release after a
 * success (an error has already given everything back).
 */
/*
 * The reader counts worth a row on @usable CPUs: 1, 2, 4, ... up to
 * @usable, @usable itself, then 2 x @usable (oversubscribed: the writer
 * and the readers queue for the CPUs). Writes at most @cap (>= 2) counts
 * to @threads and returns how many.
 */
int lat_mem_rm_default_threads(int usable, int *threads, int cap);

int lat_mem_rm_sweep_run(struct lat_mem_rm_sweep *s,
			 const struct lat_clock_cal *cal,
			 bool (*stop)(void *ctx), void *ctx);
void lat_mem_rm_sweep_release(struct lat_mem_rm_sweep *s);

/* The table for people on @out, and s->verdict under it (when there is
 * one) as a `  -> ` paragraph. */
void lat_mem_rm_print(FILE *out, const struct lat_mem_rm_sweep *s);

/* The same as the member "read_mostly" of the object open in @j. */
struct lat_json;
void lat_mem_rm_json(struct lat_json *j, const struct lat_mem_rm_sweep *s);

/* ---- the last-level cache this process really gets ------------------ */

/*
 * sysfs gives the whole last-level cache (on a VM, what the hypervisor
 * presents); other cores, on a VM other guests', share it, and this
 * process gets what they leave. Model: a chase over @bytes beyond what it
 * gets hits the cache on a fraction hit = C / bytes of its loads, so
 * ns = llc_ns + (1 - hit) (dram_ns - llc_ns) and C = bytes * hit (hit
 * clamped to 0..1: a size that all fits gives C = bytes, a lower bound).
 * Returns the effective capacity C in bytes, NAN when the levels make no
 * sense (dram_ns <= llc_ns, or a level <= 0). Pure.
 */
double lat_mem_llc_effective(uint64_t bytes, double ns, double llc_ns,
			     double dram_ns);

/*
 * The largest lat_mem_llc_effective over a curve's points @first..n-1
 * (@y[i] ns per load at @bytes[i]): the capacity the curve shows, the
 * partial hits beyond the edge counted. NAN when no point gives one.
 */
double lat_mem_llc_curve_capacity(const uint64_t *bytes, const double *y,
				  int n, int first, double llc_ns,
				  double dram_ns);

#define LAT_MEM_LLC_CHUNK 1024      /* loads per timed chunk of a lap */
#define LAT_MEM_LLC_MAX_CHUNKS 4096 /* timed chunks per lap (the rest of
				     * a longer lap runs untimed) */
#define LAT_MEM_LLC_MAX_LAPS 4096

/* One working set chased lap after lap: what it got, lap by lap. */
struct lat_mem_llc_drift {
	uint64_t bytes;          /* the working set (whole lines) */
	double llc_ns, dram_ns;  /* the levels the model used */
	unsigned laps;           /* laps timed */
	double seconds;          /* over this long */
	bool interrupted;        /* the stop callback ended it */
	/* each lap's median chunk, ns per load (a preempted chunk does not
	 * move a lap), over the laps */
	double lap_min_ns, lap_p10_ns, lap_p50_ns, lap_p90_ns, lap_max_ns;
	/* lat_mem_llc_effective of each lap, bytes, over the laps */
	double cap_min, cap_p10, cap_p50, cap_max, cap_p90;
};

/*
 * Lay a random cycle over the first @bytes of @buf (@scratch: one entry
 * per line), run one lap untimed, then lap after lap for @seconds (at
 * most LAT_MEM_LLC_MAX_LAPS), each lap's chunks of LAT_MEM_LLC_CHUNK
 * loads timed. Nothing in the process changes between laps, so a spread
 * in what they got (cap_min..cap_max) is the cache's other users coming
 * and going. @stop (may be NULL) is asked before each lap. Returns 0
 * (out->laps may be 0 when stopped at once) or -EINVAL (under one chunk
 * of lines, beyond @buf, levels that make no sense). No allocation.
 */
int lat_mem_llc_drift_run(struct lat_mem_buf *buf, uint32_t *scratch,
			  uint64_t bytes, double llc_ns, double dram_ns,
			  double seconds, const struct lat_clock_cal *cal,
			  bool (*stop)(void *ctx), void *ctx,
			  struct lat_mem_llc_drift *out);

/*
 * Whether what the laps got changed: the p10 and p90 laps' hit fractions
 * ((dram_ns - ns) / (dram_ns - llc_ns)) at least LAT_MEM_LLC_DRIFT_SPREAD
 * apart. A fraction, not a ratio of capacities: near DRAM level a few ns
 * of memory jitter would be a large ratio of two small capacities.
 */
#define LAT_MEM_LLC_DRIFT_SPREAD 0.25
bool lat_mem_llc_drift_changes(const struct lat_mem_llc_drift *d);

/* ---- the chase sweep: what `latlab mem chase` runs and reports ------- */

#define LAT_MEM_CHASE_MAX_SIZES 512

/* The orders and pages each size is chased with. */
enum lat_mem_chase_variant {
	LAT_MEM_CHASE_RANDOM,   /* random cycle over base pages */
	LAT_MEM_CHASE_HUGE,     /* the same on huge pages */
	LAT_MEM_CHASE_SEQ,      /* line i -> i+1: the prefetcher's case */
	LAT_MEM_CHASE_PAGED,    /* random, but page by page (base pages):
				 * one TLB miss per page, not per load */
	LAT_MEM_CHASE_VARIANTS,
};

struct lat_mem_chase_sweep {
	/* in: the sizes (lat_mem_sizes), how to sample, the machine */
	uint64_t sizes[LAT_MEM_CHASE_MAX_SIZES];
	int n_sizes;
	unsigned steps;         /* sizes per doubling */
	unsigned samples;       /* samples per size */
	unsigned loads;         /* loads per sample */
	struct lat_topo_caches caches; /* to name the plateaus after */
	double core_ghz;        /* estimated core clock, for core cycles */
	double llc_probe_s;     /* when no curve shows the last-level cache
				 * at its sysfs size: seconds of
				 * lat_mem_llc_drift_run at the size half-way
				 * from its level to DRAM's (0: none) */
	/* out */
	double cycles_per_ns;   /* the calibration the sweep ran with */
	int done;               /* sizes finished */
	int failed;             /* size index a chase failed at, or -1 */
	bool interrupted;       /* the stop callback ended it */
	struct lat_mem_point pt[LAT_MEM_CHASE_VARIANTS]
			       [LAT_MEM_CHASE_MAX_SIZES];
	bool on[LAT_MEM_CHASE_VARIANTS];
	struct lat_mem_buf buf, huge; /* what the kernel gave (unmapped) */
	char thp[16];           /* transparent_hugepage/enabled: "always",
				 * "madvise", "never", "" when unknown */
	struct lat_mem_plateau pl[16]; /* of the random curve, base pages */
	int n_pl;
	/* the same finder on every random curve (base pages, huge pages,
	 * page by page; none for sequential): where each cache's edge is
	 * with a TLB miss on almost every load, and without */
	struct lat_mem_plateau vpl[LAT_MEM_CHASE_VARIANTS][16];
	int vn_pl[LAT_MEM_CHASE_VARIANTS];
	bool llc_seen;          /* some curve's last-level edge is within
				 * one step of its sysfs size */
	int llc_edge;           /* the largest last-level edge on any curve
				 * (size index), -1 when none */
	int llc_edge_variant;   /* the curve it is on */
	/* lat_mem_llc_curve_capacity of the random curves on base and
	 * huge pages (p50s, levels from its last-level and DRAM plateaus),
	 * bytes; NAN when none (and always page by page, whose levels are
	 * the prefetchers') */
	double llc_capacity[LAT_MEM_CHASE_VARIANTS];
	bool llc_drift_on;      /* llc_drift was measured */
	int llc_drift_variant;  /* on the buffer of this curve */
	struct lat_mem_llc_drift llc_drift;
	double llc_drift_sweep_ns;  /* the sweep's p50 at the drift's size */
	double llc_drift_sweep_cap; /* what that p50 got (bytes) */
	bool llc_changes;       /* the laps' hit fractions spread, or their
				 * median is not the sweep's: what this
				 * process gets changes while it does the
				 * same thing (lat_mem_llc_drift_changes and
				 * LAT_MEM_LLC_DRIFT_SPREAD) */
	double counter_ratio;   /* counter cycles/ns over the sweep */
	double dram_ns;         /* level beyond the caches, 0 if none */
	int dram_from;          /* its first size index, -1 if none */
	char verdict[1024];     /* the plateaus and edges in one sentence */
	char llc_note[2048];    /* the last-level cache: each curve's edge,
				 * and whether the sysfs size was seen */
};

/*
 * Chase every size of @r in random order (and on huge pages with
 * @hugepages) and in sequence, the variants of one size back to back;
 * measure the counter against CLOCK_MONOTONIC_RAW over the sweep; then
 * lat_mem_chase_analyse. @stop (may be NULL) is asked before each size.
 * Returns 0 (r->interrupted says whether @stop ended it), -EINVAL for
 * no or too many sizes, -ENOMEM or the mapping's -errno (r->done 0), or
 * a chase's error (r->failed is its size index; the r->done sizes before
 * it are measured and analysed, a partial result). @r is large: static
 * or heap storage.
 */
/*
 * Fill the inputs of @r: sizes from @min to @max at @steps per doubling
 * (lat_mem_sizes), @samples of @loads loads per size, the caches to name
 * the plateaus after, the core clock, and LAT_MEM_LLC_PROBE_S (@quick:
 * a tenth) for the last-level check. Returns 0, -EINVAL (what
 * lat_mem_sizes refuses) or -E2BIG (more than LAT_MEM_CHASE_MAX_SIZES).
 */
int lat_mem_chase_sweep_setup(struct lat_mem_chase_sweep *r, uint64_t min,
			      uint64_t max, unsigned steps, unsigned samples,
			      unsigned loads,
			      const struct lat_topo_caches *caches,
			      double core_ghz, bool quick);

int lat_mem_chase_sweep_run(struct lat_mem_chase_sweep *r,
			    const struct lat_clock_cal *cal, bool hugepages,
			    bool (*stop)(void *ctx), void *ctx);

/*
 * The plateaus of the random curve's fastest samples (a loaded machine's
 * p50 carries other processes' evictions), named after r->caches; the
 * DRAM level; the verdict sentence; the same finder on the huge-page and
 * page-by-page curves, and the note on the last-level cache (llc_*):
 * whether any curve reaches its sysfs size, and if none does, the
 * evidence (each curve's edge) rather than a claimed match.
 * lat_mem_chase_sweep_run calls it.
 */
void lat_mem_chase_analyse(struct lat_mem_chase_sweep *r);

/* The table per size and the findings under it, for people, on @out. */
void lat_mem_chase_print(FILE *out, const struct lat_mem_chase_sweep *r);

/*
 * The same as a "chase" member of the object open in @j: points per
 * size and variant, plateaus, DRAM over L1, the verdict; @complete false
 * when the sweep was interrupted.
 */
struct lat_json;
void lat_mem_chase_json(struct lat_json *j,
			const struct lat_mem_chase_sweep *r, bool complete);

/*
 * The chart on @out as a standalone SVG: p50 per load over log2(bytes),
 * one line per variant, the sysfs cache sizes marked. Needs two sizes
 * done (-EINVAL otherwise); returns 0 or the lat_svg error.
 */
int lat_mem_chase_svg(FILE *out, const struct lat_mem_chase_sweep *r);

/* ---- the core-to-core matrix: what `latlab mem c2c` runs ------------ */

#define LAT_MEM_C2C_MAX_PAIRS 4096
#define LAT_MEM_C2C_MAX_ROUNDS 64

struct lat_mem_c2c_pair {
	int a, b;                       /* the CPUs */
	enum lat_mem_relation rel;      /* SMT siblings, same LLC, ... */
	double v[LAT_MEM_C2C_MAX_ROUNDS]; /* one-way ns, each round */
	unsigned n;                     /* rounds done */
	struct lat_bench_stat st;       /* median, min, max of v */
};

struct lat_mem_c2c_matrix {
	/* in */
	int cpus[LAT_TOPO_MAX_CPUS];    /* the CPUs to pair, in order */
	int n_cpus;
	unsigned rounds;                /* at most LAT_MEM_C2C_MAX_ROUNDS */
	uint64_t iters;                 /* round trips per round */
	bool rt;                        /* try SCHED_FIFO for each run */
	double l1_ns;                   /* an L1 hit for the verdict, or 0 */
	/* out */
	struct lat_mem_c2c_pair pair[LAT_MEM_C2C_MAX_PAIRS];
	int n_pairs;
	int best, worst;                /* pair indices, -1 when none ran */
	unsigned fifo_runs, runs;       /* runs at SCHED_FIFO, of all runs */
	bool complete;                  /* false: @stop ended it */
	int failed;                     /* the pair whose run failed, or -1 */
	char verdict[600];
};

/*
 * Pair every two of m->cpus (up to LAT_MEM_C2C_MAX_PAIRS), name each
 * pair's relation from @topo, and run m->rounds rounds over all pairs
 * (lat_mem_c2c_once; @cal is used for SCHED_FIFO runs when m->rt), asking
 * @stop (may be NULL) before each run; then the statistics per pair and
 * the verdict. Returns 0, -EINVAL for too many rounds or CPUs, or a
 * run's error (m->failed names the pair). @m is large: static or heap.
 */
int lat_mem_c2c_matrix_run(struct lat_mem_c2c_matrix *m,
			   const struct lat_topo *topo,
			   const struct lat_clock_cal *cal,
			   bool (*stop)(void *ctx), void *ctx);

/* The matrix (up to 16 CPUs), one line per pair, the FIFO count and the
 * verdict, for people, on @out. */
void lat_mem_c2c_print(FILE *out, const struct lat_mem_c2c_matrix *m);

/* The same as a "c2c" member of the object open in @j. */
void lat_mem_c2c_json(struct lat_json *j, const struct lat_mem_c2c_matrix *m);

/*
 * The machine a memory run describes before its results: the caches its
 * plateaus are named after, the counter clock its cycles come from, the
 * estimated core clock and how busy the machine was when it started.
 */
struct lat_mem_machine {
	struct lat_topo_caches caches; /* as sysfs lists them for one CPU */
	struct lat_clock_cal cal;      /* counter cycles per ns */
	double core_ghz;               /* lat_mem_core_ghz; 0 if unknown */
	double loadavg;                /* 1-minute load average (lat_loadavg) */
	int usable;                    /* online CPUs in the affinity mask */
};

/*
 * Calibrate @m->cal for @cal_ms milliseconds (lat_clock_calibrate),
 * estimate the core clock (lat_mem_core_ghz(50)) and read the load
 * average; the caches and usable count are the caller's (lat_topo).
 * Returns 0 or the calibration's negative errno.
 */
int lat_mem_machine_measure(struct lat_mem_machine *m, unsigned cal_ms);

/*
 * Two lines on @f: the @n_cpus CPUs in use (@cpus, as a list) and the
 * caches with their sizes; the counter clock and the core clock estimate.
 */
void lat_mem_machine_print(FILE *f, const struct lat_mem_machine *m,
			   const int *cpus, int n_cpus);

/* The same as a "machine" member of the object open in @j, with the
 * load average. */
void lat_mem_machine_json(struct lat_json *j,
			  const struct lat_mem_machine *m, const int *cpus,
			  int n_cpus);


/* ---- a whole run: what `latlab mem` does, for any program ------------ */

enum lat_mem_experiment {
	LAT_MEM_EXP_CHASE = 1 << 0,  /* lat_mem_chase_sweep */
	LAT_MEM_EXP_C2C = 1 << 1,    /* lat_mem_c2c_matrix */
	LAT_MEM_EXP_SHARE = 1 << 2,  /* lat_mem_share_sweep */
	LAT_MEM_EXP_RM = 1 << 3,     /* lat_mem_rm_sweep */
	LAT_MEM_EXP_ALL = 15,
};

/* "chase", "c2c", "false-sharing", "read-mostly" or "all" as its
 * enum lat_mem_experiment bits, or -EINVAL. */
int lat_mem_experiment_parse(const char *name);

/* What a quick run (tests, a first look) uses where the caller left a
 * default: small sizes, few samples, short runs. */
#define LAT_MEM_QUICK_MAX_SIZE (2u << 20)
#define LAT_MEM_QUICK_SAMPLES 16
#define LAT_MEM_QUICK_ROUNDS 2
#define LAT_MEM_QUICK_RM_NS 20e6
#define LAT_MEM_QUICK_C2C_ITERS 2000
#define LAT_MEM_QUICK_SHARE_NS 10e6

/*
 * The experiments in order (chase, c2c, false sharing, read-mostly) on
 * one machine description, each run's report written as it finishes.
 *
 *     static struct lat_mem_session s;      (large: static or heap)
 *     lat_mem_session_init(&s);             reads the CPUs and caches
 *     s.what = LAT_MEM_EXP_CHASE; ...       the inputs below
 *     lat_mem_session_check(&s);            defaults, sizes, memory
 *     lat_mem_session_run(&s, stdout, NULL);
 *
 * A field left 0 gets its default in lat_mem_session_check: the
 * LAT_MEM_* defaults above, or with @quick the LAT_MEM_QUICK_* ones.
 */
struct lat_mem_session {
	/* in */
	unsigned what;              /* enum lat_mem_experiment bits, 0: all */
	bool quick;
	bool hugepages;             /* the chase also on huge pages */
	bool rt;                    /* two-thread loops try SCHED_FIFO */
	uint64_t min_size;          /* chase sizes, bytes (init: the
				     * default; at least one line) */
	uint64_t max_size;          /* 0: lat_mem_chase_default_max */
	unsigned steps, samples, loads;
	unsigned rounds;            /* c2c, false sharing, read-mostly */
	uint64_t c2c_iters;
	double share_ns, rm_ns, write_interval_ns;
	int threads[LAT_MEM_RM_MAX_READER_SETS]; /* read-mostly reader
				     * counts; n_threads 0:
				     * lat_mem_rm_default_threads */
	int n_threads;
	int cpus[LAT_TOPO_MAX_CPUS]; /* in use: init sets every usable CPU,
				     * lat_mem_session_use_cpus narrows */
	int n_cpus;
	bool (*stop)(void *ctx);    /* asked between runs; may be NULL */
	void *stop_ctx;
	/* the machine (init; run measures the clocks) */
	struct lat_topo topo;
	struct lat_mem_machine m;
	uint64_t need_bytes, avail_bytes; /* check's -ENOMEM: the chase's
				     * need against MemAvailable */
	/* out: each experiment's result, when it ran */
	struct lat_mem_chase_sweep chase;
	struct lat_mem_c2c_matrix c2c;
	struct lat_mem_share_sweep share;
	struct lat_mem_rm_sweep rm;
	bool complete;              /* false: @stop ended it */
	const char *failed_in;      /* "machine", "chase", "c2c",
				     * "false_sharing", "read_mostly", or
				     * NULL */
	char error[256];            /* what failed, one line, "" if none */
	double wall_ns;             /* from the start of run */
};

/*
 * Zero @s, set the defaults that are not 0 (min_size, steps, loads,
 * write_interval_ns), read the topology, the usable CPUs and the caches
 * of the first. Returns 0, -ENODEV (no usable CPU) or the -errno of
 * reading sysfs.
 */
int lat_mem_session_init(struct lat_mem_session *s);

/*
 * Use the @n CPUs of @cpus (in that order, duplicates dropped) instead
 * of every usable one. Returns 0, or -EINVAL with *bad the first that is
 * not usable (offline, outside the affinity mask, out of range).
 */
int lat_mem_session_use_cpus(struct lat_mem_session *s, const int *cpus,
			     int n, int *bad);

/*
 * Fill the defaults (above) and check the inputs before anything runs:
 * returns 0, -EDOM (min_size below one cache line), -ERANGE (max_size
 * below min_size), -ENOMEM (the chase needs s->need_bytes and only
 * s->avail_bytes are available: lat_mem_chase_fits), -E2BIG (more than
 * LAT_MEM_CHASE_MAX_SIZES sizes) or -EINVAL (other inputs out of range).
 */
int lat_mem_session_check(struct lat_mem_session *s);

/*
 * Measure the machine (lat_mem_machine_measure) and run every
 * experiment in s->what, in order, until one is stopped. With @j (an
 * initialised writer with nothing written yet) the whole run is one JSON
 * object: "machine", one member per experiment, "complete",
 * "interrupted", "wall_s"; else the machine, a warning when the load
 * average exceeds the CPUs, each report and the wall time on @out.
 * Returns 0 (s->complete false when @stop ended it: what finished is
 * reported, the one stopped marked partial) or the failure's -errno: the
 * reports before it are written, s->failed_in and s->error say what
 * failed, and the JSON object still closes, with "error", "failed_in"
 * and "complete": false.
 */
int lat_mem_session_run(struct lat_mem_session *s, FILE *out,
			struct lat_json *j);

#endif

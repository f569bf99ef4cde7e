/*
 * lat_sched internals: the consumer's state machine (sched_state.c), fed
 * one ring-buffer record at a time, and the timeline it can keep for the
 * attribution (sched_attr.c). No libbpf here: the state machine is plain
 * C, so tests drive it with synthetic records.
 */
#ifndef LATLAB_SCHED_INT_H
#define LATLAB_SCHED_INT_H

#include <linux/types.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "latlab/sched.h"
#include "sched/sched_event.h"

_Static_assert(sizeof(struct lat_sched_ev) == 72, "record layout");
_Static_assert(offsetof(struct lat_sched_batch, type) ==
		       offsetof(struct lat_sched_ev, type),
	       "a batch's type is where a record's is");
_Static_assert((int)LAT_SCHED_IRQ_NKINDS == (int)LAT_SCHED_NIRQKIND, "irq kinds");

/* Where a followed thread is. */
enum lat_sched_tstate {
	LAT_SCHED_T_UNKNOWN,    /* not seen yet */
	LAT_SCHED_T_ONCPU,
	LAT_SCHED_T_WOKEN,      /* runnable after a wakeup */
	LAT_SCHED_T_PREEMPTED,  /* runnable after a preemption */
	LAT_SCHED_T_BLOCKED,    /* sleeping */
};

/* One interval of a followed thread off its CPU (timeline). */
struct lat_sched_tspan {
	uint64_t from, to;      /* from first: see timeline_drop */
	uint32_t state;         /* WOKEN, PREEMPTED or BLOCKED */
	int32_t cpu;            /* the CPU it ran on next, -1 unknown */
};

/* One interval a task held a watched CPU, or an interrupt on it. */
struct lat_sched_cspan {
	uint64_t from, to;
	pid_t pid, tgid;        /* pid 0: idle; for irqs: pid = irq number,
				 * tgid = the key of its "who" entry (the
				 * kind, the vector + LAT_SCHED_IRQ_KEY_SOFT,
				 * or the irq + LAT_SCHED_IRQ_KEY_DEVICE) */
	uint32_t kind;          /* enum lat_sched_ckind */
	char comm[16];
};

/* Keys of interrupts in "who" tables, apart from each other. */
#define LAT_SCHED_IRQ_KEY_SOFT 100
#define LAT_SCHED_IRQ_KEY_DEVICE 1000

enum lat_sched_ckind {
	LAT_SCHED_C_IDLE,
	LAT_SCHED_C_OWN,        /* a followed thread */
	LAT_SCHED_C_FOREIGN,
	LAT_SCHED_C_IRQ,        /* comm holds the irq kind's name */
	LAT_SCHED_C_SOFTIRQ,    /* comm holds the vector's name */
};

/* A growable array of spans (cold path: the consumer thread). */
struct lat_sched_spans {
	void *v;
	size_t n, cap, elem;
};

/* A "who" table while counting: room for many tasks, folded into the
 * public top LAT_SCHED_TOP + other when the window closes. */
#define LAT_SCHED_WHO_ACC 64
struct lat_sched_whos_acc {
	int n;
	struct lat_sched_who who[LAT_SCHED_WHO_ACC];
	uint64_t other_count, other_ns;
};

/* Recent holders of a watched CPU, for waited_behind. */
#define LAT_SCHED_RECENT 512

struct lat_sched_tstate_rec {
	struct lat_sched_thread t;   /* the public part */
	enum lat_sched_tstate state;
	uint64_t since;              /* when it entered state */
	int cpu;                     /* last CPU seen on, -1 */
	pid_t preemptor;             /* who took the CPU at the preemption */
	char preemptor_comm[16];
	pid_t preemptor_tgid;
	struct lat_sched_whos_acc preempted_by, waited_behind;
	struct lat_sched_spans spans; /* timeline: off-CPU intervals */
};

struct lat_sched_cstate {
	struct lat_sched_cpu c;      /* the public part */
	bool known;                  /* holder known (a switch was seen) */
	uint64_t since;              /* holder since */
	pid_t pid, tgid;
	bool own;
	char comm[16];
	struct lat_sched_cspan recent[LAT_SCHED_RECENT]; /* ring */
	unsigned recent_n;           /* total pushed */
	struct lat_sched_whos_acc intruders;
	struct lat_sched_spans holders; /* timeline: holders */
	struct lat_sched_spans irqs;    /* timeline: interrupts */
};

struct lat_sched_state {
	bool per_thread, timeline;
	uint64_t from_ns, to_ns;     /* counting window (to 0: open) */
	uint64_t records, unpaired, timeline_dropped;
	uint64_t dropped;            /* see lat_sched_result */
	uint64_t inferred, chain_breaks;
	size_t timeline_bytes;       /* kept so far, capped */
	uint64_t timeline_cut_ns;    /* the earliest span not kept: the
				      * timeline is whole only before it
				      * (0: nothing dropped) */
	/* threads: open addressing on tid */
	struct lat_sched_tstate_rec *th;
	int n_th, cap_th;
	int *slot;                   /* hash slot -> th index + 1 */
	int n_slot;                  /* power of two, >= 2 cap_th */
	/* watched CPUs */
	int n_cpu;
	struct lat_sched_cstate *cpu;
	int *cpu_index;              /* cpu number -> index + 1 */
	int cpu_index_len;
	/* totals */
	struct lat_sched_thread total;
	struct lat_hist hist[3];     /* totals: rq_wakeup, rq_preempt, blocked */
	struct lat_sched_whos_acc total_preempted_by, total_waited_behind;
	/* the result's arrays, filled by lat_sched_state_finish */
	struct lat_sched_thread *out_threads;
	struct lat_sched_cpu *out_cpus;
};

/* Timeline memory cap: past it intervals are counted, not kept. 1 GiB
 * holds the default 10 s pipeline run with its guard threads (~100 bytes
 * an interval, ~600,000 intervals a second on 2 vCPUs): the attribution
 * needs the whole run, and a slow event after the cap is not attributed. */
#define LAT_SCHED_TIMELINE_MAX (1024u << 20)

int lat_sched_state_init(struct lat_sched_state *st, bool per_thread,
			 bool timeline, const int *cpus, int n_cpus);
void lat_sched_state_destroy(struct lat_sched_state *st);

/* Zero every count (a new window from @from_ns); keep the states. */
void lat_sched_state_reset(struct lat_sched_state *st, uint64_t from_ns);

/* Consume one record. Returns 0, -ENOMEM (a thread table that cannot
 * grow: the record is counted in dropped) or -EINVAL (an unknown record
 * type: counted in unpaired). */
int lat_sched_state_feed(struct lat_sched_state *st,
			 const struct lat_sched_ev *ev);

/*
 * Hop @i of batch @b as the switch record it stands for; false when @i is
 * past the hops or names a thread slot the batch does not have (a batch
 * from a hostile or broken writer: counted as unpaired by the caller).
 */
bool lat_sched_batch_hop(const struct lat_sched_batch *b, uint32_t i,
			 struct lat_sched_ev *ev);

/* Close the window at @to_ns: open intervals are counted up to it, and
 * the public result is filled (pointers into @st). */
void lat_sched_state_finish(struct lat_sched_state *st, uint64_t to_ns,
			    struct lat_sched_result *r);

/* Thread record for @tid, or NULL. */
struct lat_sched_tstate_rec *lat_sched_state_thread(struct lat_sched_state *st,
						    pid_t tid);
/* Watched CPU record, or NULL. */
struct lat_sched_cstate *lat_sched_state_cpu(struct lat_sched_state *st,
					     int cpu);

/* The probe's state (the attribution reads its timeline after stop). */
struct lat_sched_state *lat_sched_state_of(struct lat_sched *s);

/* The probe's reader thread: its tid (0 before it ran) and the CPU it
 * was pinned to (-1 unpinned, or the pin was refused). Read after
 * lat_sched_stop (the join orders it). */
pid_t lat_sched_reader_tid(const struct lat_sched *s);
int lat_sched_reader_cpu(const struct lat_sched *s);

/*
 * The attribution of one runnable stretch [@x, @y] on @cpu, as the
 * pipeline's attribution does it: ns by enum lat_sched_cause added into
 * @ns (LAT_SCHED_NCAUSES entries), with @reader_tid (the probe's reader)
 * apart from our other threads. For tests with synthetic records.
 * Returns 0 or -ENOMEM.
 */
int lat_sched_attr_runnable_ns(struct lat_sched_state *st, int cpu,
			       uint64_t x, uint64_t y, pid_t reader_tid,
			       uint64_t *ns);

/*
 * The attribution of an on-CPU stretch [@x, @y] on @cpu: interrupts
 * there (nested spans counted once), then up to @budget ns of ordinary
 * time, the rest unexplained; ns by cause added into @ns. For tests with
 * synthetic records. Returns 0.
 */
int lat_sched_attr_on_cpu_ns(struct lat_sched_state *st, int cpu, uint64_t x,
			     uint64_t y, uint64_t budget, uint64_t *ns);

/* ", timeline truncated after 8.12 s (memory cap 256 MiB): N intervals
 * not kept" for @r, or "" when nothing was dropped; in @buf. */
const char *lat_sched_timeline_note(const struct lat_sched_result *r,
				    char *buf, size_t len);

/* Add @count and @ns for task (@pid, @tgid, @comm) into @w. */
void lat_sched_whos_add(struct lat_sched_whos_acc *w, pid_t pid, pid_t tgid,
			const char *comm, uint64_t count, uint64_t ns);
/* The top LAT_SCHED_TOP by time into @out, the rest in other. Sorts @w. */
void lat_sched_whos_fold(struct lat_sched_whos_acc *w,
			 struct lat_sched_whos *out);

#endif

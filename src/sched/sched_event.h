/*
 * The record the scheduler probe's BPF programs (bpf/sched.bpf.c) send to
 * user space through the ring buffer, and the maps' limits. Shared by the
 * kernel side and the user side, so it uses only __u32/__u64 (vmlinux.h
 * on one side, <linux/types.h> on the other) and no pointers.
 */
#ifndef LATLAB_SCHED_EVENT_H
#define LATLAB_SCHED_EVENT_H

/* Threads and processes the probe can follow, CPUs it can watch. */
#define LAT_SCHED_MAX_TIDS 1024
#define LAT_SCHED_MAX_TGIDS 16
#define LAT_SCHED_MAX_CPUS 1024

enum lat_sched_ev_type {
	/* A followed thread became runnable (woken, or new). */
	LAT_SCHED_EV_WAKEUP = 1,
	LAT_SCHED_EV_WAKEUP_NEW = 2,
	/* A context switch on a watched CPU or involving a followed thread. */
	LAT_SCHED_EV_SWITCH = 3,
	/* A followed thread was moved to another CPU. */
	LAT_SCHED_EV_MIGRATE = 4,
	/* A hard interrupt handler, a system vector (x86: local timer, IPIs)
	 * or a softirq ran on a watched CPU: ts is its start, arg its length. */
	LAT_SCHED_EV_IRQ = 5,
	LAT_SCHED_EV_SOFTIRQ = 6,
	/* A struct lat_sched_batch: hand-offs between followed threads on
	 * one watched CPU, sent together (see there). */
	LAT_SCHED_EV_BATCH = 7,
};

/* Flags in the arg2 of a SWITCH record. */
enum lat_sched_sw_flags {
	LAT_SCHED_SW_PREEMPT = 1,     /* the kernel's preempt argument */
	LAT_SCHED_SW_PREV_OURS = 2,   /* prev is a followed thread */
	LAT_SCHED_SW_NEXT_OURS = 4,   /* next is a followed thread */
};

/* Kinds of hard interrupt, in lat_sched_ev.arg2 of an IRQ record. */
enum lat_sched_irq_kind {
	LAT_SCHED_IRQ_HANDLER = 0, /* device irq; pid2 = irq number */
	LAT_SCHED_IRQ_LOCAL_TIMER = 1,
	LAT_SCHED_IRQ_RESCHEDULE = 2,
	LAT_SCHED_IRQ_CALL_FUNCTION = 3,
	LAT_SCHED_IRQ_CALL_FUNCTION_SINGLE = 4,
	LAT_SCHED_IRQ_WORK = 5,
	LAT_SCHED_IRQ_NKINDS = 6,
};

/*
 * One record, 72 bytes (80 in the ring with its header).
 *   WAKEUP(_NEW): pid/tgid/comm = the woken thread, pid2/comm2 = the waker
 *                 (the task current on the waking CPU), cpu = waking CPU,
 *                 arg = the wakee's target CPU.
 *   SWITCH:       pid/tgid/comm = prev (leaving), pid2/tgid2/comm2 = next,
 *                 arg = prev_state (0: still runnable), arg2 = flags
 *                 LAT_SCHED_SW_* (preempted; prev / next followed).
 *   MIGRATE:      pid/tgid/comm = the thread, arg = from CPU, arg2 = to CPU.
 *   IRQ/SOFTIRQ:  ts = entry, arg = length in ns, arg2 = kind (IRQ) or
 *                 vector (SOFTIRQ), pid2 = irq number and comm = the
 *                 handler's name, as in /proc/interrupts (IRQ_HANDLER).
 */
struct lat_sched_ev {
	__u64 ts; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, ns */
	__u32 type;
	__u32 cpu;
	__u32 pid, tgid;
	__u32 pid2, tgid2;
	__u32 arg, arg2;
	char comm[16];
	char comm2[16];
};

/*
 * Hand-offs between our own threads, batched. A switch on a watched CPU
 * whose prev and next are both followed and prev is still runnable (a
 * yield or a preemption among our threads: what two hot threads sharing
 * a CPU do hundreds of thousands of times a second) is not sent alone:
 * the kernel appends it to its CPU's batch (8 bytes: the time from the
 * batch's first hand-off, and which of the batch's threads left and
 * came), and sends the batch when it is full, older than
 * LAT_SCHED_BATCH_AGE_NS at the next hand-off, or before any other
 * switch record from that CPU. User space turns every hop back into the
 * switch record it stands for, so nothing is lost; what is saved is a
 * ring reservation, a record and a wake-up of the reader's cache per
 * switch. The loader reads what is still in the batches after the
 * programs are detached.
 *
 * Only the first hop of a batch reads CLOCK_MONOTONIC (bpf_ktime_get_ns,
 * ~70 ns a call in a VM: most of the probe's cost per switch). The
 * others are timed by the run-queue clock the scheduler has just read
 * for this switch (rq->clock, sched_clock), as a distance from the first
 * hop's: a hop's time is ts + (its rq clock - clk0). The two clocks tick
 * alike (NTP slews MONOTONIC by at most 500 ppm: 0.5 us over a batch's
 * 1 ms); rq->clock is read a little earlier in each switch, by a nearly
 * constant amount, which the difference cancels.
 */
#define LAT_SCHED_BATCH 64
#define LAT_SCHED_BATCH_THREADS 4
#define LAT_SCHED_BATCH_AGE_NS 1000000ull

struct lat_sched_batch_thread {
	__u32 pid, tgid;
	char comm[16];
};

struct lat_sched_hop {
	__u32 dt;     /* ns after the batch's ts */
	__u8 prev;    /* index in thread[] of the thread that left */
	__u8 next;    /* ... and of the one that came on */
	__u8 preempt; /* the kernel's preempt argument */
	__u8 pad;
};

struct lat_sched_batch {
	__u64 ts;     /* the first hop's time */
	__u32 type;   /* LAT_SCHED_EV_BATCH, where lat_sched_ev has its type */
	__u32 cpu;
	__u32 n;      /* hops used */
	__u32 n_threads;
	__u64 clk0;   /* the first hop's rq->clock (0: every hop read ts) */
	/* the kernel's: the last batch's (MONOTONIC - rq clock), and when */
	__u64 anchor_off, anchor_clk;
	struct lat_sched_batch_thread thread[LAT_SCHED_BATCH_THREADS];
	struct lat_sched_hop hop[LAT_SCHED_BATCH];
};

#endif

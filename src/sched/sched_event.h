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
 *                 vector (SOFTIRQ), pid2 = irq number (IRQ_HANDLER).
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

#endif

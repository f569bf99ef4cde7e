/*
 * Shared by the off-CPU eBPF program (bpf/prof_offcpu.bpf.c) and its
 * loader (prof_offcpu.c): the map layouts. Plain fixed-width types only,
 * so both compilers lay them out the same.
 */
#ifndef LATLAB_PROF_OFFCPU_H
#define LATLAB_PROF_OFFCPU_H

/*
 * Why a thread left its CPU. The program tells runnable from asleep by
 * sched_switch's prev_state; a runnable switch whose kernel stack passes
 * through sched_yield is told apart as yielded when the stacks are
 * symbolized (sched_switch's preempt flag is no help: a return to user
 * mode with a reschedule pending passes false too).
 */
enum prof_offcpu_reason {
	PROF_OFF_PREEMPTED = 0, /* still runnable: the scheduler took the CPU */
	PROF_OFF_YIELDED = 1,   /* still runnable: it gave the CPU up */
	PROF_OFF_BLOCKED = 2,   /* asleep: waiting for an event, a lock, I/O */
	PROF_OFF_NREASONS
};

#define PROF_OFF_MAX_TGIDS 64
#define PROF_OFF_MAX_THREADS 16384
#define PROF_OFF_MAX_KEYS 16384
#define PROF_OFF_MAX_STACKS 8192
#define PROF_OFF_STACK_DEPTH 127

/* A thread off its CPU since @ts, and the stacks it left with. */
struct prof_off_start {
	unsigned long long ts;
	unsigned int tgid;
	int kstack, ustack;     /* stack map ids, or a -errno */
	unsigned int reason;
};

/* The total off-CPU time is summed per thread, stacks and reason. */
struct prof_off_key {
	unsigned int tid, tgid;
	int kstack, ustack;
	unsigned int reason;
	unsigned int pad;
};

/* Counters slot indices (an array map), so nothing is lost silently. */
enum prof_off_counter {
	PROF_OFF_C_KEYS_FULL,   /* intervals dropped: the sum map was full */
	PROF_OFF_C_START_FULL,  /* switch-outs not followed: thread map full */
	PROF_OFF_C_STACK_ERR,   /* stacks not captured (kept, as [no stack]) */
	PROF_OFF_NCOUNTERS
};

#endif

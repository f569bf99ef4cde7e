// SPDX-License-Identifier: GPL-2.0
/*
 * latlab's scheduler probe, kernel side. It decides only what is worth
 * sending: scheduler events of the followed threads (a TID set, or every
 * thread of a followed process) and every switch, interrupt and softirq on
 * the watched ("hot") CPUs. All bookkeeping (run-queue latency, off-CPU
 * reasons, intervals held by foreign tasks) is done in user space from the
 * records, so the histograms there have full precision and the rules live
 * in one place (src/sched/sched_state.c).
 *
 * Each program exists twice: tp_btf (direct field loads, the cheap one)
 * and raw_tp (fields through bpf_probe_read_kernel), for kernels that
 * refuse tp_btf. The loader autoloads one set. The shared bodies are
 * always_inline with a constant `direct` flag, so clang drops the other
 * access path from each program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sched/sched_event.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* the loader may resize it */
} events SEC(".maps");

/* Followed threads: tid -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_SCHED_MAX_TIDS);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

/* Followed processes (every thread, including ones created later): tgid -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_SCHED_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* Watched CPUs: cpu -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAT_SCHED_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

/* Records the ring buffer had no room for, per CPU: never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Entry time of the hard interrupt / softirq running on this CPU
 * (slot 0 hardirq, 1 softirq: a hardirq can nest in a softirq). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} irq_start SEC(".maps");

static __always_inline int followed(__u32 pid, __u32 tgid)
{
	if (pid == 0)
		return 0; /* the idle task is never ours */
	return bpf_map_lookup_elem(&tids, &pid) ||
	       bpf_map_lookup_elem(&tgids, &tgid);
}

static __always_inline int watched_cpu(__u32 cpu)
{
	__u8 *on = bpf_map_lookup_elem(&cpus, &cpu);

	return on && *on;
}

static __always_inline struct lat_sched_ev *reserve(void)
{
	struct lat_sched_ev *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	if (!ev) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&lost, &zero);

		if (n)
			(*n)++; /* per-CPU slot: no other writer */
	}
	return ev;
}

/* Read a task field: a direct load under tp_btf, a probe read under raw_tp. */
#define TASK_FIELD(direct, t, f) ((direct) ? (t)->f : BPF_CORE_READ(t, f))

static __always_inline void task_comm(int direct, struct task_struct *t,
				      char dst[16])
{
	if (direct)
		__builtin_memcpy(dst, t->comm, 16);
	else
		bpf_probe_read_kernel(dst, 16, &t->comm);
}

static __always_inline int on_switch(int direct, bool preempt,
				     struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 ppid = TASK_FIELD(direct, prev, pid);
	__u32 ptgid = TASK_FIELD(direct, prev, tgid);
	__u32 npid = TASK_FIELD(direct, next, pid);
	__u32 ntgid = TASK_FIELD(direct, next, tgid);
	struct lat_sched_ev *ev;

	if (!watched_cpu(cpu) && !followed(ppid, ptgid) &&
	    !followed(npid, ntgid))
		return 0;
	ev = reserve();
	if (!ev)
		return 0;
	ev->ts = bpf_ktime_get_ns();
	ev->type = LAT_SCHED_EV_SWITCH;
	ev->cpu = cpu;
	ev->pid = ppid;
	ev->tgid = ptgid;
	ev->pid2 = npid;
	ev->tgid2 = ntgid;
	ev->arg = prev_state;
	ev->arg2 = preempt;
	task_comm(direct, prev, ev->comm);
	task_comm(direct, next, ev->comm2);
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

static __always_inline int on_wakeup(int direct, struct task_struct *p,
				     __u32 type)
{
	__u32 pid = TASK_FIELD(direct, p, pid);
	__u32 tgid = TASK_FIELD(direct, p, tgid);
	struct lat_sched_ev *ev;
	__u64 id;

	if (!followed(pid, tgid))
		return 0;
	ev = reserve();
	if (!ev)
		return 0;
	ev->ts = bpf_ktime_get_ns();
	ev->type = type;
	ev->cpu = bpf_get_smp_processor_id();
	ev->pid = pid;
	ev->tgid = tgid;
	id = bpf_get_current_pid_tgid();
	ev->pid2 = (__u32)id;
	ev->tgid2 = id >> 32;
	ev->arg = bpf_core_field_exists(p->wake_cpu) ?
			  TASK_FIELD(direct, p, wake_cpu) : ~0u;
	ev->arg2 = 0;
	task_comm(direct, p, ev->comm);
	bpf_get_current_comm(ev->comm2, sizeof(ev->comm2));
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

static __always_inline int on_migrate(int direct, struct task_struct *p,
				      int dest_cpu)
{
	__u32 pid = TASK_FIELD(direct, p, pid);
	__u32 tgid = TASK_FIELD(direct, p, tgid);
	struct lat_sched_ev *ev;

	if (!followed(pid, tgid))
		return 0;
	ev = reserve();
	if (!ev)
		return 0;
	ev->ts = bpf_ktime_get_ns();
	ev->type = LAT_SCHED_EV_MIGRATE;
	ev->cpu = bpf_get_smp_processor_id();
	ev->pid = pid;
	ev->tgid = tgid;
	ev->pid2 = 0;
	ev->tgid2 = 0;
	ev->arg = bpf_core_field_exists(p->wake_cpu) ?
			  TASK_FIELD(direct, p, wake_cpu) : ~0u;
	ev->arg2 = dest_cpu;
	task_comm(direct, p, ev->comm);
	__builtin_memset(ev->comm2, 0, sizeof(ev->comm2));
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/* Interrupts: stamp on entry, send one record with the length on exit. */
static __always_inline int irq_enter(__u32 slot)
{
	__u64 *t;

	if (!watched_cpu(bpf_get_smp_processor_id()))
		return 0;
	t = bpf_map_lookup_elem(&irq_start, &slot);
	if (t)
		*t = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int irq_exit(__u32 slot, __u32 type, __u32 kind,
				    __u32 num)
{
	struct lat_sched_ev *ev;
	__u64 *t, start, now;

	t = bpf_map_lookup_elem(&irq_start, &slot);
	if (!t || !*t)
		return 0; /* entered before the probe attached, or not watched */
	start = *t;
	*t = 0;
	now = bpf_ktime_get_ns();
	ev = reserve();
	if (!ev)
		return 0;
	ev->ts = start;
	ev->type = type;
	ev->cpu = bpf_get_smp_processor_id();
	ev->pid = 0;
	ev->tgid = 0;
	ev->pid2 = num;
	ev->tgid2 = 0;
	ev->arg = now - start;
	ev->arg2 = kind;
	__builtin_memset(ev->comm, 0, sizeof(ev->comm));
	__builtin_memset(ev->comm2, 0, sizeof(ev->comm2));
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/* ---- tp_btf programs ---- */

SEC("tp_btf/sched_switch")
int BPF_PROG(btf_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(1, preempt, prev, next, prev_state);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(btf_wakeup, struct task_struct *p)
{
	return on_wakeup(1, p, LAT_SCHED_EV_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(btf_wakeup_new, struct task_struct *p)
{
	return on_wakeup(1, p, LAT_SCHED_EV_WAKEUP_NEW);
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(btf_migrate, struct task_struct *p, int dest_cpu)
{
	return on_migrate(1, p, dest_cpu);
}

/* ---- raw_tp twins ---- */

SEC("raw_tp/sched_switch")
int BPF_PROG(raw_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(0, preempt, prev, next, prev_state);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(raw_wakeup, struct task_struct *p)
{
	return on_wakeup(0, p, LAT_SCHED_EV_WAKEUP);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(raw_wakeup_new, struct task_struct *p)
{
	return on_wakeup(0, p, LAT_SCHED_EV_WAKEUP_NEW);
}

SEC("raw_tp/sched_migrate_task")
int BPF_PROG(raw_migrate, struct task_struct *p, int dest_cpu)
{
	return on_migrate(0, p, dest_cpu);
}

/*
 * Interrupt programs take only integers, so one body serves both flavours;
 * the loader turns each pair off when the kernel lacks the tracepoint.
 */
#define IRQ_PAIR(flavour, tp, prefix)                                        \
	SEC(flavour "/" #tp "_entry")                                        \
	int BPF_PROG(prefix##_##tp##_entry) { return irq_enter(0); }         \
	SEC(flavour "/" #tp "_exit")                                         \
	int BPF_PROG(prefix##_##tp##_exit)                                   \
	{ return irq_exit(0, LAT_SCHED_EV_IRQ, KIND_##tp, 0); }

#define KIND_local_timer LAT_SCHED_IRQ_LOCAL_TIMER
#define KIND_reschedule LAT_SCHED_IRQ_RESCHEDULE
#define KIND_call_function LAT_SCHED_IRQ_CALL_FUNCTION
#define KIND_call_function_single LAT_SCHED_IRQ_CALL_FUNCTION_SINGLE
#define KIND_irq_work LAT_SCHED_IRQ_WORK

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(btf_irq_handler_entry, int irq) { return irq_enter(0); }
SEC("tp_btf/irq_handler_exit")
int BPF_PROG(btf_irq_handler_exit, int irq)
{
	return irq_exit(0, LAT_SCHED_EV_IRQ, LAT_SCHED_IRQ_HANDLER, irq);
}
SEC("raw_tp/irq_handler_entry")
int BPF_PROG(raw_irq_handler_entry, int irq) { return irq_enter(0); }
SEC("raw_tp/irq_handler_exit")
int BPF_PROG(raw_irq_handler_exit, int irq)
{
	return irq_exit(0, LAT_SCHED_EV_IRQ, LAT_SCHED_IRQ_HANDLER, irq);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(btf_softirq_entry, unsigned int vec) { return irq_enter(1); }
SEC("tp_btf/softirq_exit")
int BPF_PROG(btf_softirq_exit, unsigned int vec)
{
	return irq_exit(1, LAT_SCHED_EV_SOFTIRQ, vec, 0);
}
SEC("raw_tp/softirq_entry")
int BPF_PROG(raw_softirq_entry, unsigned int vec) { return irq_enter(1); }
SEC("raw_tp/softirq_exit")
int BPF_PROG(raw_softirq_exit, unsigned int vec)
{
	return irq_exit(1, LAT_SCHED_EV_SOFTIRQ, vec, 0);
}

/* x86 system vectors: interrupts that bypass irq_handler_entry. */
#if defined(__TARGET_ARCH_x86)
IRQ_PAIR("tp_btf", local_timer, btf)
IRQ_PAIR("raw_tp", local_timer, raw)
IRQ_PAIR("tp_btf", reschedule, btf)
IRQ_PAIR("raw_tp", reschedule, raw)
IRQ_PAIR("tp_btf", call_function, btf)
IRQ_PAIR("raw_tp", call_function, raw)
IRQ_PAIR("tp_btf", call_function_single, btf)
IRQ_PAIR("raw_tp", call_function_single, raw)
IRQ_PAIR("tp_btf", irq_work, btf)
IRQ_PAIR("raw_tp", irq_work, raw)
#endif

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

/*
 * Wake the consumer only when the ring is this full (set by the loader to
 * a quarter of the ring); otherwise it drains on its own timer. Waking it
 * on every record would make the probe its own biggest intruder: each
 * switch of a followed thread would wake the consumer, which preempts the
 * thread, whose switch wakes the consumer...
 */
const volatile __u64 wake_bytes = 1 << 20;
#define LAT_SCHED_ANCHOR_NS 10000000ull

static __always_inline void submit(struct lat_sched_ev *ev)
{
	__u64 queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	bpf_ringbuf_submit(ev, queued >= wake_bytes ? BPF_RB_FORCE_WAKEUP
						    : BPF_RB_NO_WAKEUP);
}

/*
 * The filter runs on every context switch of the machine, so it is kept
 * to plain loads where it can be: the followed processes and the watched
 * CPUs are fixed before the programs load (read-only data, set by the
 * loader); only the followed TIDs, which can be added while the probe
 * runs, are a hash map, looked up only when it is not empty. (Four hash
 * lookups per switch made the filter most of the program's time.)
 */
const volatile __u32 n_tgids = 0;
const volatile __u32 tgid_list[LAT_SCHED_MAX_TGIDS] = {};
const volatile __u8 cpu_on[LAT_SCHED_MAX_CPUS] = {};

/* Set by the loader: time every hand-off by CLOCK_MONOTONIC, as every
 * other record (what the probe did before; a benchmark compares). */
__u32 hop_mono = 0;

/* Set by the loader once the first TID is in the map. */
__u32 tids_any = 0;

/* Followed threads: tid -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LAT_SCHED_MAX_TIDS);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

/* Records the ring buffer had no room for, per CPU: never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* This CPU's batch of hand-offs between our threads (sched_event.h).
 * Only the sched_switch program touches it, under the CPU's run-queue
 * lock with interrupts off: nothing else writes it meanwhile. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_sched_batch);
} batch SEC(".maps");

/* The latest CLOCK_MONOTONIC stamp of a record sent from this CPU: a
 * hop timed by the run-queue clock is never placed before it (a thread
 * woken here is not switched in before its wakeup record's time). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mono_seen SEC(".maps");

static __always_inline void saw_mono(__u64 ts)
{
	__u32 zero = 0;
	__u64 *m = bpf_map_lookup_elem(&mono_seen, &zero);

	if (m && ts > *m)
		*m = ts;
}

/* @ts, or the latest stamp sent from this CPU when that is later. */
static __always_inline __u64 not_before_seen(__u64 ts)
{
	__u32 zero = 0;
	__u64 *m = bpf_map_lookup_elem(&mono_seen, &zero);

	return m && *m > ts ? *m : ts;
}

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
	__u32 i;

	if (pid == 0)
		return 0; /* the idle task is never ours */
#pragma unroll
	for (i = 0; i < LAT_SCHED_MAX_TGIDS; i++) {
		if (i >= n_tgids)
			break;
		if (tgid_list[i] == tgid)
			return 1;
	}
	return tids_any && bpf_map_lookup_elem(&tids, &pid);
}

static __always_inline int watched_cpu(__u32 cpu)
{
	return cpu < LAT_SCHED_MAX_CPUS && cpu_on[cpu];
}

/* A record stamped @ts (taken first: the reservation may spin on the
 * ring's lock while another CPU reserves). */
static __always_inline struct lat_sched_ev *reserve(__u64 ts)
{
	struct lat_sched_ev *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	saw_mono(ts);
	if (!ev) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&lost, &zero);

		if (n)
			(*n)++; /* per-CPU slot: no other writer */
		return NULL;
	}
	ev->ts = ts;
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

/* Send this CPU's batch, if it holds hops; a batch the ring has no room
 * for counts every hop in it as lost. */
static __always_inline void batch_flush(struct lat_sched_batch *b)
{
	__u64 queued;

	if (!b->n)
		return;
	queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	if (bpf_ringbuf_output(&events, b, sizeof(*b),
			       queued >= wake_bytes ? BPF_RB_FORCE_WAKEUP
						    : BPF_RB_NO_WAKEUP)) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&lost, &zero);

		if (n)
			*n += b->n;
	}
	b->n = 0;
	b->n_threads = 0;
}

/* @t's index in the batch, added if new; -1 when the batch is full of
 * other threads. */
static __always_inline int batch_thread(int direct, struct lat_sched_batch *b,
					struct task_struct *t, __u32 pid,
					__u32 tgid)
{
	__u32 i;

#pragma unroll
	for (i = 0; i < LAT_SCHED_BATCH_THREADS; i++)
		if (i < b->n_threads && b->thread[i].pid == pid)
			return (int)i;
	i = b->n_threads;
	if (i >= LAT_SCHED_BATCH_THREADS)
		return -1;
	/* for the verifier: a mask clang cannot drop as redundant */
	asm volatile("" : "+r"(i));
	i &= LAT_SCHED_BATCH_THREADS - 1;
	b->thread[i].pid = pid;
	b->thread[i].tgid = tgid;
	task_comm(direct, t, b->thread[i].comm);
	b->n_threads = i + 1;
	return (int)i;
}

/*
 * The run-queue clock of the CPU @t is switching on (sched_clock, just
 * read by __schedule for this switch), or 0 when this kernel has no path
 * to it (cfs_rq->rq exists with CONFIG_FAIR_GROUP_SCHED).
 */
static __always_inline __u64 rq_clock_of(int direct, struct task_struct *t,
					 __u32 cpu)
{
	struct rq *rq;

	if (!bpf_core_field_exists(((struct cfs_rq *)0)->rq))
		return 0;
	if (direct) {
		struct cfs_rq *cfs = t->se.cfs_rq;

		rq = cfs ? cfs->rq : NULL;
		/* this CPU's run queue, or the path is not what we think */
		return rq && (__u32)rq->cpu == cpu ? rq->clock : 0;
	}
	rq = BPF_CORE_READ(t, se.cfs_rq, rq);
	return rq && (__u32)BPF_CORE_READ(rq, cpu) == cpu ?
		       BPF_CORE_READ(rq, clock) : 0;
}

/* The time of a hop in batch @b, by @clk (see sched_event.h): no
 * earlier than the batch's previous hop. */
static __always_inline __u64 batch_time(const struct lat_sched_batch *b,
					__u64 clk)
{
	__u32 last = b->n - 1;
	__u64 dt = clk - b->clk0;

	asm volatile("" : "+r"(last));
	last &= LAT_SCHED_BATCH - 1;
	if (clk < b->clk0 || dt < b->hop[last].dt)
		dt = b->hop[last].dt;
	return not_before_seen(b->ts + dt);
}

/* Append a hand-off prev -> next to @b: at @clk by the run-queue clock
 * when the batch has begun and @clk is known, else now. */
static __always_inline void batch_add(int direct, struct lat_sched_batch *b,
				      __u64 clk, __u32 cpu, bool preempt,
				      struct task_struct *prev, __u32 ppid,
				      __u32 ptgid, struct task_struct *next,
				      __u32 npid, __u32 ntgid)
{
	__u64 now = 0, mono = 0;
	int pi, ni;
	__u32 n;

	if (hop_mono)
		clk = 0;
	if (b->n && b->n <= LAT_SCHED_BATCH) {
		if (clk && b->clk0) {
			now = batch_time(b, clk);
		} else if (!clk && !b->clk0) {
			/* a batch timed by CLOCK_MONOTONIC, hop by hop */
			mono = bpf_ktime_get_ns();
			now = mono;
		}
	}
	if (!now || b->n >= LAT_SCHED_BATCH ||
	    now - b->ts > LAT_SCHED_BATCH_AGE_NS) {
		/* a new batch: read the clock before sending the old one
		 * (the copy into the ring is not this switch's time) */
		if (!mono)
			mono = bpf_ktime_get_ns();
		batch_flush(b);
	}
	pi = batch_thread(direct, b, prev, ppid, ptgid);
	ni = batch_thread(direct, b, next, npid, ntgid);
	if (pi < 0 || ni < 0) {
		/* a fifth thread: start a batch with these two */
		batch_flush(b);
		pi = batch_thread(direct, b, prev, ppid, ptgid);
		ni = batch_thread(direct, b, next, npid, ntgid);
		if (pi < 0 || ni < 0)
			return;
	}
	if (!b->n) {
		/* a batch begins: its one read of CLOCK_MONOTONIC */
		if (!mono)
			mono = bpf_ktime_get_ns();
		now = mono;
		if (clk) {
			/*
			 * MONOTONIC - rq clock, read at this switch: the
			 * clocks' offset plus how long ago __schedule read
			 * rq->clock, which varies with the switch's path
			 * and grows when the hypervisor stops the vCPU in
			 * between. The smallest over the last 10 ms is the
			 * closest to the offset itself (NTP moves it by
			 * 5 us at most in 10 ms, ~0 in practice).
			 */
			__u64 off = mono - clk;

			if (b->anchor_off && clk - b->anchor_clk < LAT_SCHED_ANCHOR_NS &&
			    b->anchor_off < off) {
				off = b->anchor_off;
			} else {
				b->anchor_off = off;
				b->anchor_clk = clk;
			}
			now = clk + off;
			if (now > mono)
				now = mono;
			now = not_before_seen(now);
		}
		b->ts = now;
		b->clk0 = clk;
		b->type = LAT_SCHED_EV_BATCH;
		b->cpu = cpu;
	}
	n = b->n;
	if (n >= LAT_SCHED_BATCH)
		return;
	asm volatile("" : "+r"(n)); /* as above */
	n &= LAT_SCHED_BATCH - 1;
	b->hop[n].dt = (__u32)(now - b->ts);
	b->hop[n].prev = (__u8)pi;
	b->hop[n].next = (__u8)ni;
	b->hop[n].preempt = preempt;
	b->hop[n].pad = 0;
	b->n = n + 1;
}

static __always_inline int on_switch(int direct, bool preempt,
				     struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	__u64 now;
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 ppid = TASK_FIELD(direct, prev, pid);
	__u32 ptgid = TASK_FIELD(direct, prev, tgid);
	__u32 npid = TASK_FIELD(direct, next, pid);
	__u32 ntgid = TASK_FIELD(direct, next, tgid);
	struct lat_sched_ev *ev;
	struct lat_sched_batch *b = NULL;
	int prev_ours = followed(ppid, ptgid);
	int next_ours = followed(npid, ntgid);
	int watched = watched_cpu(cpu);
	__u32 zero = 0;

	/* most switches of the machine end here: read no clock for them */
	if (!watched && !prev_ours && !next_ours)
		return 0;
	if (watched) {
		b = bpf_map_lookup_elem(&batch, &zero);
		if (b && prev_ours && next_ours && prev_state == 0) {
			batch_add(direct, b, rq_clock_of(direct, prev, cpu), cpu,
				  preempt, prev, ppid, ptgid, next, npid,
				  ntgid);
			return 0;
		}
	}
	now = bpf_ktime_get_ns();
	/* anything else on this CPU: the hops before it go first */
	if (b)
		batch_flush(b);
	ev = reserve(now);
	if (!ev)
		return 0;
	ev->type = LAT_SCHED_EV_SWITCH;
	ev->cpu = cpu;
	ev->pid = ppid;
	ev->tgid = ptgid;
	ev->pid2 = npid;
	ev->tgid2 = ntgid;
	ev->arg = prev_state;
	ev->arg2 = (preempt ? LAT_SCHED_SW_PREEMPT : 0) |
		   (prev_ours ? LAT_SCHED_SW_PREV_OURS : 0) |
		   (next_ours ? LAT_SCHED_SW_NEXT_OURS : 0);
	task_comm(direct, prev, ev->comm);
	task_comm(direct, next, ev->comm2);
	submit(ev);
	return 0;
}

/*
 * A record about one followed task p (a wakeup or a migration), with its
 * CPU before the event in arg; NULL when p is not followed or the ring is
 * full.
 */
static __always_inline struct lat_sched_ev *task_record(int direct,
							struct task_struct *p,
							__u32 type)
{
	__u32 pid = TASK_FIELD(direct, p, pid);
	__u32 tgid = TASK_FIELD(direct, p, tgid);
	struct lat_sched_ev *ev;

	if (!followed(pid, tgid))
		return NULL;
	ev = reserve(bpf_ktime_get_ns());
	if (!ev)
		return NULL;
	ev->type = type;
	ev->cpu = bpf_get_smp_processor_id();
	ev->pid = pid;
	ev->tgid = tgid;
	ev->arg = bpf_core_field_exists(p->wake_cpu) ?
			  TASK_FIELD(direct, p, wake_cpu) : ~0u;
	task_comm(direct, p, ev->comm);
	return ev;
}

static __always_inline int on_wakeup(int direct, struct task_struct *p,
				     __u32 type)
{
	struct lat_sched_ev *ev = task_record(direct, p, type);
	__u64 id;

	if (!ev)
		return 0;
	id = bpf_get_current_pid_tgid();
	ev->pid2 = (__u32)id;
	ev->tgid2 = id >> 32;
	ev->arg2 = 0;
	bpf_get_current_comm(ev->comm2, sizeof(ev->comm2));
	submit(ev);
	return 0;
}

static __always_inline int on_migrate(int direct, struct task_struct *p,
				      int dest_cpu)
{
	struct lat_sched_ev *ev = task_record(direct, p, LAT_SCHED_EV_MIGRATE);

	if (!ev)
		return 0;
	ev->pid2 = 0;
	ev->tgid2 = 0;
	ev->arg2 = dest_cpu;
	__builtin_memset(ev->comm2, 0, sizeof(ev->comm2));
	submit(ev);
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

/* @action: the device handler's struct irqaction (its name goes in the
 * record's comm), NULL for the others. */
static __always_inline int irq_exit(__u32 slot, __u32 type, __u32 kind,
				    __u32 num, struct irqaction *action)
{
	struct lat_sched_ev *ev;
	__u64 *t, start, now;

	t = bpf_map_lookup_elem(&irq_start, &slot);
	if (!t || !*t)
		return 0; /* entered before the probe attached, or not watched */
	start = *t;
	*t = 0;
	now = bpf_ktime_get_ns();
	ev = reserve(start);
	if (!ev)
		return 0;
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
	if (action) {
		const char *name = BPF_CORE_READ(action, name);

		if (name)
			bpf_probe_read_kernel_str(ev->comm, sizeof(ev->comm),
						  name);
	}
	submit(ev);
	return 0;
}

/*
 * Each body takes the raw argument array; under tp_btf the verifier still
 * types ctx[i] from the tracepoint's BTF, so the direct loads are allowed
 * there. TWIN(tp, body) makes the pair btf_<tp>, raw_<tp>.
 */
#define TWIN(tp, body)                                                       \
	SEC("tp_btf/" #tp) int btf_##tp(__u64 *ctx) { return body(1, ctx); } \
	SEC("raw_tp/" #tp) int raw_##tp(__u64 *ctx) { return body(0, ctx); }

static __always_inline int switch_body(int direct, __u64 *ctx)
{
	/* sched_switch(bool preempt, prev, next, unsigned int prev_state):
	 * prev_state is an argument since Linux 5.18. */
	return on_switch(direct, (bool)ctx[0], (struct task_struct *)ctx[1],
			 (struct task_struct *)ctx[2], (unsigned int)ctx[3]);
}

static __always_inline int wakeup_body(int direct, __u64 *ctx)
{
	return on_wakeup(direct, (struct task_struct *)ctx[0],
			 LAT_SCHED_EV_WAKEUP);
}

static __always_inline int wakeup_new_body(int direct, __u64 *ctx)
{
	return on_wakeup(direct, (struct task_struct *)ctx[0],
			 LAT_SCHED_EV_WAKEUP_NEW);
}

static __always_inline int migrate_body(int direct, __u64 *ctx)
{
	return on_migrate(direct, (struct task_struct *)ctx[0], (int)ctx[1]);
}

TWIN(sched_switch, switch_body)
TWIN(sched_wakeup, wakeup_body)
TWIN(sched_wakeup_new, wakeup_new_body)
TWIN(sched_migrate_task, migrate_body)

/* Interrupts (integer arguments only); the loader turns a pair off when
 * the kernel lacks its tracepoint. */
#define HARDIRQ_ENTER(direct, ctx) irq_enter(0)
#define SOFTIRQ_ENTER(direct, ctx) irq_enter(1)
#define HANDLER_EXIT(direct, ctx)                                            \
	irq_exit(0, LAT_SCHED_EV_IRQ, LAT_SCHED_IRQ_HANDLER, (__u32)ctx[0],     \
		 (struct irqaction *)ctx[1])
#define SOFTIRQ_EXIT(direct, ctx)                                            \
	irq_exit(1, LAT_SCHED_EV_SOFTIRQ, (__u32)ctx[0], 0, NULL)

TWIN(irq_handler_entry, HARDIRQ_ENTER)
TWIN(irq_handler_exit, HANDLER_EXIT)
TWIN(softirq_entry, SOFTIRQ_ENTER)
TWIN(softirq_exit, SOFTIRQ_EXIT)

/* x86 system vectors: interrupts that bypass irq_handler_entry. */
#if defined(__TARGET_ARCH_x86)
#define VECTOR_EXIT(kind) irq_exit(0, LAT_SCHED_EV_IRQ, kind, 0, NULL)
#define TIMER_EXIT(d, c) VECTOR_EXIT(LAT_SCHED_IRQ_LOCAL_TIMER)
#define RESCHED_EXIT(d, c) VECTOR_EXIT(LAT_SCHED_IRQ_RESCHEDULE)
#define CALLFN_EXIT(d, c) VECTOR_EXIT(LAT_SCHED_IRQ_CALL_FUNCTION)
#define CALLFN1_EXIT(d, c) VECTOR_EXIT(LAT_SCHED_IRQ_CALL_FUNCTION_SINGLE)
#define IRQWORK_EXIT(d, c) VECTOR_EXIT(LAT_SCHED_IRQ_WORK)
TWIN(local_timer_entry, HARDIRQ_ENTER)
TWIN(local_timer_exit, TIMER_EXIT)
TWIN(reschedule_entry, HARDIRQ_ENTER)
TWIN(reschedule_exit, RESCHED_EXIT)
TWIN(call_function_entry, HARDIRQ_ENTER)
TWIN(call_function_exit, CALLFN_EXIT)
TWIN(call_function_single_entry, HARDIRQ_ENTER)
TWIN(call_function_single_exit, CALLFN1_EXIT)
TWIN(irq_work_entry, HARDIRQ_ENTER)
TWIN(irq_work_exit, IRQWORK_EXIT)
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU time of the profiled processes, kernel side: at each
 * sched_switch, a followed thread leaving its CPU records when and with
 * which stacks (kernel and user, bpf_get_stackid) and why; when it comes
 * back, the interval is added to the sum for (thread, stacks, reason).
 * Only the sums cross to user space, once, at the end.
 *
 * Each program exists as tp_btf (direct loads) and raw_tp (probe reads);
 * the loader autoloads one pair.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "prof/prof_offcpu.h"

char LICENSE[] SEC("license") = "GPL";

/* Followed processes: tgid -> 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROF_OFF_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* tid -> when and how it left the CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROF_OFF_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct prof_off_start);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROF_OFF_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROF_OFF_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* (thread, stacks, reason) -> ns off CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROF_OFF_MAX_KEYS);
	__type(key, struct prof_off_key);
	__type(value, __u64);
} sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PROF_OFF_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		__sync_fetch_and_add(c, 1);
}

#define TASK_FIELD(direct, t, f) ((direct) ? (t)->f : BPF_CORE_READ(t, f))

static __always_inline int on_switch(int direct, void *ctx,
				     struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	__u32 ptgid = TASK_FIELD(direct, prev, tgid);
	__u32 ntid = TASK_FIELD(direct, next, pid);
	__u64 now = bpf_ktime_get_ns();
	struct prof_off_start *s;

	if (TASK_FIELD(direct, prev, pid) && bpf_map_lookup_elem(&tgids, &ptgid)) {
		struct prof_off_start st = { .ts = now, .tgid = ptgid };
		__u32 ptid = TASK_FIELD(direct, prev, pid);

		/* we run in prev's context: these are its stacks */
		st.kstack = bpf_get_stackid(ctx, &stacks, 0);
		st.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (st.kstack < 0 || st.ustack < 0)
			count(PROF_OFF_C_STACK_ERR);
		/* still runnable (preempted, or yielded: user space tells
		 * them apart by the kernel stack) or asleep */
		st.reason = prev_state == 0 ? PROF_OFF_PREEMPTED :
					      PROF_OFF_BLOCKED;
		if (bpf_map_update_elem(&start, &ptid, &st, BPF_ANY))
			count(PROF_OFF_C_START_FULL);
	}
	s = bpf_map_lookup_elem(&start, &ntid);
	if (s) {
		struct prof_off_key k = {
			.tid = ntid, .tgid = s->tgid, .kstack = s->kstack,
			.ustack = s->ustack, .reason = s->reason,
		};
		__u64 delta = now - s->ts, *sum;

		bpf_map_delete_elem(&start, &ntid);
		sum = bpf_map_lookup_elem(&sums, &k);
		if (sum) {
			__sync_fetch_and_add(sum, delta);
		} else if (bpf_map_update_elem(&sums, &k, &delta,
					       BPF_NOEXIST)) {
			/* lost the race to a twin key, or the map is full */
			sum = bpf_map_lookup_elem(&sums, &k);
			if (sum)
				__sync_fetch_and_add(sum, delta);
			else
				count(PROF_OFF_C_KEYS_FULL);
		}
	}
	return 0;
}

/* sched_switch(bool preempt, prev, next, unsigned int prev_state):
 * prev_state is an argument since Linux 5.18. */
SEC("tp_btf/sched_switch")
int btf_sched_switch(__u64 *ctx)
{
	return on_switch(1, ctx, (struct task_struct *)ctx[1],
			 (struct task_struct *)ctx[2], (unsigned int)ctx[3]);
}

SEC("raw_tp/sched_switch")
int raw_sched_switch(__u64 *ctx)
{
	return on_switch(0, ctx, (struct task_struct *)ctx[1],
			 (struct task_struct *)ctx[2], (unsigned int)ctx[3]);
}

/*
 * The scheduler probe's bookkeeping: one record at a time, the state of
 * every followed thread and watched CPU, and the counts and histograms of
 * the window. Runs on the probe's consumer thread (or a test), so it may
 * allocate (new threads, the timeline); the traced program never runs it.
 *
 * The rules, as the kernel counts (kernel/sched/core.c __schedule):
 *  - a switch-out is voluntary when the kernel did not preempt the task
 *    and it was not runnable (prev_state != 0): that is when it bumps
 *    nvcsw; everything else (preempted, or sched_yield) bumps nivcsw;
 *  - still queued at switch-out (runnable, or preempted: the kernel
 *    dequeues only a task that sleeps by its own choice) -> PREEMPTED,
 *    back on a CPU ends rq_preempt; sleeping at switch-out -> BLOCKED,
 *    its wakeup ends `blocked` and starts WOKEN, back on a CPU ends
 *    rq_wakeup;
 *  - a wakeup of a thread still on its CPU (it is woken before it got to
 *    switch out: ttwu_runnable) changes nothing, and a wakeup stamped
 *    before the thread's last transition (records from two CPUs arrive
 *    slightly out of order) is stale: both counted as unpaired;
 *  - this VM's kernel reports nothing while certain tasks are current
 *    (its agent's threads: perf sees nothing either), so a followed
 *    thread's wakeup or switch-in can be missing: the stretch whose end
 *    was not seen is counted and timed as hidden, never guessed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"

/* TASK_DEAD in task_struct.__state: the switch-out of an exiting task. */
#define LAT_SCHED_TASK_DEAD 0x80u

/* ---- who tables ---- */

/* A task name into 16 bytes: a record's comm (16 bytes, maybe without a
 * NUL) or a shorter literal such as "(idle)". */
static void copy_comm(char dst[16], const char *comm)
{
	strncpy(dst, comm, 15);
	dst[15] = '\0';
}

void lat_sched_whos_add(struct lat_sched_whos_acc *w, pid_t pid, pid_t tgid,
			const char *comm, uint64_t count, uint64_t ns)
{
	int i;

	for (i = 0; i < w->n; i++) {
		if (w->who[i].pid == pid) {
			w->who[i].count += count;
			w->who[i].ns += ns;
			/* latest name; compared first, as the name rarely
			 * changes and this runs for every switch */
			if (strncmp(w->who[i].comm, comm, 15))
				copy_comm(w->who[i].comm, comm);
			return;
		}
	}
	if (w->n == LAT_SCHED_WHO_ACC) {
		w->other_count += count;
		w->other_ns += ns;
		return;
	}
	w->who[w->n].pid = pid;
	w->who[w->n].tgid = tgid;
	copy_comm(w->who[w->n].comm, comm);
	w->who[w->n].count = count;
	w->who[w->n].ns = ns;
	w->n++;
}

static int who_cmp(const void *a, const void *b)
{
	const struct lat_sched_who *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void lat_sched_whos_fold(struct lat_sched_whos_acc *w,
			 struct lat_sched_whos *out)
{
	int i;

	qsort(w->who, (size_t)w->n, sizeof(w->who[0]), who_cmp);
	memset(out, 0, sizeof(*out));
	out->other_count = w->other_count;
	out->other_ns = w->other_ns;
	for (i = 0; i < w->n; i++) {
		if (i < LAT_SCHED_TOP) {
			out->top[out->n++] = w->who[i];
		} else {
			out->other_count += w->who[i].count;
			out->other_ns += w->who[i].ns;
		}
	}
}

/* ---- timeline ---- */

/* A span not kept: from its start on, the timeline has holes. (Every
 * span type starts with its uint64_t from.) */
static void timeline_drop(struct lat_sched_state *st, const void *span)
{
	uint64_t from;

	memcpy(&from, span, sizeof(from));
	st->timeline_dropped++;
	if (!st->timeline_cut_ns || from < st->timeline_cut_ns)
		st->timeline_cut_ns = from;
}

static void spans_push(struct lat_sched_state *st, struct lat_sched_spans *s,
		       size_t elem, const void *v)
{
	if (!st->timeline)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		size_t left = LAT_SCHED_TIMELINE_MAX - st->timeline_bytes;
		void *p;

		/* near the cap, grow by what is left rather than not at
		 * all: doubling would stop a big array at half the cap */
		if ((cap - s->cap) * elem > left)
			cap = s->cap + left / elem;
		if (cap == s->cap) {
			timeline_drop(st, v);
			return;
		}
		p = realloc(s->v, cap * elem);
		if (!p) {
			timeline_drop(st, v);
			return;
		}
		st->timeline_bytes += (cap - s->cap) * elem;
		s->v = p;
		s->cap = cap;
		s->elem = elem;
	}
	memcpy((char *)s->v + s->n * elem, v, elem);
	s->n++;
}

/* ---- set-up ---- */

static int hists_init(struct lat_hist h[3])
{
	int i, rc;

	for (i = 0; i < 3; i++) {
		rc = lat_hist_init(&h[i], 1, LAT_SCHED_HIST_MAX_NS,
				   LAT_SCHED_HIST_SIG_FIGS);
		if (rc) {
			while (i--)
				lat_hist_destroy(&h[i]);
			return rc;
		}
	}
	return 0;
}

int lat_sched_state_init(struct lat_sched_state *st, bool per_thread,
			 bool timeline, const int *cpus, int n_cpus)
{
	int i, maxcpu = 0, rc;

	memset(st, 0, sizeof(*st));
	st->per_thread = per_thread;
	st->timeline = timeline;
	for (i = 0; i < n_cpus; i++) {
		if (cpus[i] < 0 || cpus[i] >= LAT_SCHED_MAX_CPUS)
			return -EINVAL;
		if (cpus[i] + 1 > maxcpu)
			maxcpu = cpus[i] + 1;
	}
	rc = hists_init(st->hist);
	if (rc)
		return rc;
	st->cap_th = 64;
	st->n_slot = 256;
	st->th = calloc((size_t)st->cap_th, sizeof(*st->th));
	st->slot = calloc((size_t)st->n_slot, sizeof(*st->slot));
	st->cpu = calloc((size_t)(n_cpus ? n_cpus : 1), sizeof(*st->cpu));
	st->cpu_index = calloc((size_t)(maxcpu ? maxcpu : 1),
			       sizeof(*st->cpu_index));
	if (!st->th || !st->slot || !st->cpu || !st->cpu_index) {
		lat_sched_state_destroy(st);
		return -ENOMEM;
	}
	st->cpu_index_len = maxcpu;
	for (i = 0; i < n_cpus; i++) {
		if (st->cpu_index[cpus[i]])
			continue; /* listed twice */
		st->cpu[st->n_cpu].c.cpu = cpus[i];
		st->cpu_index[cpus[i]] = ++st->n_cpu;
	}
	return 0;
}

static void thread_free(struct lat_sched_tstate_rec *t)
{
	if (t->t.rq_wakeup) {
		lat_hist_free(t->t.rq_wakeup);
		lat_hist_free(t->t.rq_preempt);
		lat_hist_free(t->t.blocked);
	}
	free(t->spans.v);
}

void lat_sched_state_destroy(struct lat_sched_state *st)
{
	int i;

	for (i = 0; st->th && i < st->n_th; i++)
		thread_free(&st->th[i]);
	for (i = 0; st->cpu && i < st->n_cpu; i++) {
		free(st->cpu[i].holders.v);
		free(st->cpu[i].irqs.v);
	}
	for (i = 0; i < 3; i++)
		lat_hist_destroy(&st->hist[i]);
	free(st->th);
	free(st->slot);
	free(st->cpu);
	free(st->cpu_index);
	free(st->out_threads);
	free(st->out_cpus);
	memset(st, 0, sizeof(*st));
}

static void counts_zero(struct lat_sched_thread *t)
{
	t->wakeups = t->switches_vol = t->switches_invol = t->hidden = 0;
	t->preempted = t->migrations = 0;
	t->oncpu_ns = t->runnable_ns = t->blocked_ns = t->hidden_ns = 0;
}

void lat_sched_state_reset(struct lat_sched_state *st, uint64_t from_ns)
{
	int i;

	st->from_ns = from_ns;
	st->records = st->unpaired = st->inferred = st->chain_breaks = 0;
	st->dropped = 0;
	counts_zero(&st->total);
	memset(&st->total_preempted_by, 0, sizeof(st->total_preempted_by));
	memset(&st->total_waited_behind, 0, sizeof(st->total_waited_behind));
	for (i = 0; i < 3; i++)
		lat_hist_reset(&st->hist[i]);
	for (i = 0; i < st->n_th; i++) {
		struct lat_sched_tstate_rec *t = &st->th[i];

		counts_zero(&t->t);
		memset(&t->preempted_by, 0, sizeof(t->preempted_by));
		memset(&t->waited_behind, 0, sizeof(t->waited_behind));
		if (t->t.rq_wakeup) {
			lat_hist_reset(t->t.rq_wakeup);
			lat_hist_reset(t->t.rq_preempt);
			lat_hist_reset(t->t.blocked);
		}
	}
	for (i = 0; i < st->n_cpu; i++) {
		struct lat_sched_cstate *c = &st->cpu[i];
		int cpu = c->c.cpu;

		memset(&c->c, 0, sizeof(c->c));
		c->c.cpu = cpu;
		memset(&c->intruders, 0, sizeof(c->intruders));
	}
}

/* ---- lookups ---- */

static unsigned tid_hash(pid_t tid, int n_slot)
{
	return ((uint32_t)tid * 2654435761u) & (unsigned)(n_slot - 1);
}

struct lat_sched_tstate_rec *lat_sched_state_thread(struct lat_sched_state *st,
						    pid_t tid)
{
	unsigned h = tid_hash(tid, st->n_slot);

	while (st->slot[h]) {
		struct lat_sched_tstate_rec *t = &st->th[st->slot[h] - 1];

		if (t->t.tid == tid)
			return t;
		h = (h + 1) & (unsigned)(st->n_slot - 1);
	}
	return NULL;
}

static int rehash(struct lat_sched_state *st, int n_slot)
{
	int *slot = calloc((size_t)n_slot, sizeof(*slot)), i;

	if (!slot)
		return -ENOMEM;
	free(st->slot);
	st->slot = slot;
	st->n_slot = n_slot;
	for (i = 0; i < st->n_th; i++) {
		unsigned h = tid_hash(st->th[i].t.tid, n_slot);

		while (slot[h])
			h = (h + 1) & (unsigned)(n_slot - 1);
		slot[h] = i + 1;
	}
	return 0;
}

static struct lat_sched_tstate_rec *thread_find_or_add(
	struct lat_sched_state *st, pid_t tid, pid_t tgid, const char *comm)
{
	struct lat_sched_tstate_rec *t = lat_sched_state_thread(st, tid);

	if (t) {
		memcpy(t->t.comm, comm, 16); /* exec renames */
		t->t.comm[15] = '\0';
		return t;
	}
	if (st->n_th == st->cap_th) {
		struct lat_sched_tstate_rec *p =
			realloc(st->th, 2 * (size_t)st->cap_th * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + st->cap_th, 0, (size_t)st->cap_th * sizeof(*p));
		st->th = p;
		st->cap_th *= 2;
	}
	if (2 * (st->n_th + 1) > st->n_slot && rehash(st, 2 * st->n_slot))
		return NULL;
	t = &st->th[st->n_th];
	memset(t, 0, sizeof(*t));
	t->t.tid = tid;
	t->t.tgid = tgid;
	memcpy(t->t.comm, comm, 16);
	t->t.comm[15] = '\0';
	t->cpu = -1;
	if (st->per_thread &&
	    (lat_hist_create(1, LAT_SCHED_HIST_MAX_NS, LAT_SCHED_HIST_SIG_FIGS,
			     &t->t.rq_wakeup) ||
	     lat_hist_create(1, LAT_SCHED_HIST_MAX_NS, LAT_SCHED_HIST_SIG_FIGS,
			     &t->t.rq_preempt) ||
	     lat_hist_create(1, LAT_SCHED_HIST_MAX_NS, LAT_SCHED_HIST_SIG_FIGS,
			     &t->t.blocked))) {
		thread_free(t);
		memset(t, 0, sizeof(*t));
		return NULL;
	}
	{
		unsigned h = tid_hash(tid, st->n_slot);

		while (st->slot[h])
			h = (h + 1) & (unsigned)(st->n_slot - 1);
		st->slot[h] = ++st->n_th;
	}
	return t;
}

/*
 * The record of @tid, added when new. NULL when the thread table could
 * not grow: that event is counted in st->dropped here, once for every
 * kind of event, so that no caller can forget to count it.
 */
static struct lat_sched_tstate_rec *thread_get(struct lat_sched_state *st,
					       pid_t tid, pid_t tgid,
					       const char *comm)
{
	struct lat_sched_tstate_rec *t =
		thread_find_or_add(st, tid, tgid, comm);

	if (!t)
		st->dropped++; /* the thread table could not grow */
	return t;
}

struct lat_sched_cstate *lat_sched_state_cpu(struct lat_sched_state *st,
					     int cpu)
{
	if (cpu < 0 || cpu >= st->cpu_index_len || !st->cpu_index[cpu])
		return NULL;
	return &st->cpu[st->cpu_index[cpu] - 1];
}

/* ---- the rules ---- */

static bool counting(const struct lat_sched_state *st, uint64_t ts)
{
	return ts >= st->from_ns && (!st->to_ns || ts <= st->to_ns);
}

/* The part of [a, b] inside the window. */
static uint64_t in_window(const struct lat_sched_state *st, uint64_t a,
			  uint64_t b)
{
	uint64_t to = st->to_ns ? st->to_ns : UINT64_MAX;

	if (a < st->from_ns)
		a = st->from_ns;
	if (b > to)
		b = to;
	return b > a ? b - a : 0;
}

static void record(struct lat_sched_state *st, struct lat_sched_tstate_rec *t,
		   int which, uint64_t ns)
{
	struct lat_hist *mine[3] = { t->t.rq_wakeup, t->t.rq_preempt,
				     t->t.blocked };

	lat_hist_record(&st->hist[which], (int64_t)ns);
	if (mine[which])
		lat_hist_record(mine[which], (int64_t)ns);
}

/* The tasks that held @cpu during [a, b], from its recent holders. */
static void waited_behind(struct lat_sched_state *st,
			  struct lat_sched_tstate_rec *t, int cpu, uint64_t a,
			  uint64_t b)
{
	struct lat_sched_cstate *c = lat_sched_state_cpu(st, cpu);
	unsigned i, n;

	if (!c)
		return;
	n = c->recent_n < LAT_SCHED_RECENT ? c->recent_n : LAT_SCHED_RECENT;
	for (i = 0; i < n; i++) {
		const struct lat_sched_cspan *h =
			&c->recent[(c->recent_n - 1 - i) % LAT_SCHED_RECENT];
		uint64_t lo = h->from > a ? h->from : a;
		uint64_t hi = h->to < b ? h->to : b;

		if (h->to <= a)
			break; /* older ones end earlier still */
		if (hi > lo && h->pid != t->t.tid) {
			const char *comm = h->pid ? h->comm : "(idle)";
			uint64_t ns = in_window(st, lo, hi);

			lat_sched_whos_add(&t->waited_behind, h->pid, h->tgid,
					   comm, 1, ns);
			lat_sched_whos_add(&st->total_waited_behind, h->pid,
					   h->tgid, comm, 1, ns);
		}
	}
}

static void off_cpu_span(struct lat_sched_state *st,
			 struct lat_sched_tstate_rec *t, uint64_t to, int cpu)
{
	struct lat_sched_tspan s = { t->since, to, (uint32_t)t->state, cpu };

	spans_push(st, &t->spans, sizeof(s), &s);
}

static void on_wakeup(struct lat_sched_state *st, const struct lat_sched_ev *ev)
{
	struct lat_sched_tstate_rec *t =
		thread_get(st, (pid_t)ev->pid, (pid_t)ev->tgid, ev->comm);

	if (!t)
		return; /* counted as dropped by thread_get */
	if (counting(st, ev->ts)) {
		t->t.wakeups++;
		st->total.wakeups++;
	}
	if (t->state == LAT_SCHED_T_BLOCKED && ev->ts >= t->since) {
		uint64_t ns = ev->ts - t->since;

		if (counting(st, ev->ts))
			record(st, t, 2, ns);
		t->t.blocked_ns += in_window(st, t->since, ev->ts);
		st->total.blocked_ns += in_window(st, t->since, ev->ts);
		off_cpu_span(st, t, ev->ts, -1);
		t->state = LAT_SCHED_T_WOKEN;
		t->since = ev->ts;
	} else if (t->state == LAT_SCHED_T_UNKNOWN) {
		t->state = LAT_SCHED_T_WOKEN;
		t->since = ev->ts;
	} else if (t->state == LAT_SCHED_T_ONCPU ||
		   ev->ts < t->since) {
		st->unpaired++; /* still on its CPU, or stale */
	}
	/* Already runnable: the first wakeup is the one that counts. */
}

/*
 * The stretch of @t from its last transition to @ts has an end the kernel
 * did not report: counted (in the window of its start) and timed, never
 * split into blocked / runnable / on-CPU.
 */
static void hidden(struct lat_sched_state *st, struct lat_sched_tstate_rec *t,
		   uint64_t ts)
{
	uint64_t ns = in_window(st, t->since, ts);

	if (counting(st, t->since)) {
		t->t.hidden++;
		st->total.hidden++;
	}
	t->t.hidden_ns += ns;
	st->total.hidden_ns += ns;
}

/* Thread @tid is on CPU @cpu from @ts. */
static void on_cpu_from(struct lat_sched_state *st,
			struct lat_sched_tstate_rec *t, uint64_t ts, int cpu)
{
	if ((t->state == LAT_SCHED_T_WOKEN ||
	     t->state == LAT_SCHED_T_PREEMPTED) && ts >= t->since) {
		bool woken = t->state == LAT_SCHED_T_WOKEN;

		if (counting(st, ts))
			record(st, t, woken ? 0 : 1, ts - t->since);
		t->t.runnable_ns += in_window(st, t->since, ts);
		st->total.runnable_ns += in_window(st, t->since, ts);
		if (!woken && t->preemptor >= 0) {
			const char *comm = t->preemptor ? t->preemptor_comm
							: "(idle)";
			uint64_t w = in_window(st, t->since, ts);

			lat_sched_whos_add(&t->preempted_by, t->preemptor,
					   t->preemptor_tgid, comm, 1, w);
			lat_sched_whos_add(&st->total_preempted_by,
					   t->preemptor, t->preemptor_tgid,
					   comm, 1, w);
		}
		waited_behind(st, t, cpu, t->since, ts);
		off_cpu_span(st, t, ts, cpu);
	} else if (t->state == LAT_SCHED_T_BLOCKED) {
		/* Woken, but the wakeup was not reported (it happened while a
		 * task the kernel does not trace was current): the stretch is
		 * counted as hidden, its split into blocked and runnable is
		 * not known. */
		hidden(st, t, ts);
		off_cpu_span(st, t, ts, cpu);
	}
	t->state = LAT_SCHED_T_ONCPU;
	t->since = ts;
	t->cpu = cpu;
	t->preemptor = -1;
}

/*
 * @bound: when the switch-in of prev was not reported but its CPU is
 * watched, the last reported switch there (prev came on after it);
 * 0 when unknown.
 */
static void switch_out(struct lat_sched_state *st,
		       const struct lat_sched_ev *ev, bool counted,
		       uint64_t bound)
{
	struct lat_sched_tstate_rec *t =
		thread_get(st, (pid_t)ev->pid, (pid_t)ev->tgid, ev->comm);
	bool preempt = ev->arg2 & LAT_SCHED_SW_PREEMPT;
	/* still on the run queue: the kernel dequeues prev only when it
	 * sleeps by its own choice; a task preempted between setting its
	 * sleep state and calling schedule() stays queued, and comes back
	 * on without a wakeup */
	bool runnable = ev->arg == 0 || preempt;

	if (!t)
		return; /* counted as dropped by thread_get */
	if (t->state != LAT_SCHED_T_ONCPU && t->state != LAT_SCHED_T_UNKNOWN) {
		/*
		 * Switched out, but its switch-in never came (nor, if it was
		 * asleep, its wakeup): this kernel reports no scheduler event
		 * at all while certain tasks (the VM agent's threads) are
		 * current, so what happened on their watch is hidden. When
		 * the CPU is watched and it was runnable, it came on at the
		 * earliest after @bound (the last reported switch there).
		 */
		if (t->state != LAT_SCHED_T_BLOCKED && bound &&
		    bound >= t->since) {
			on_cpu_from(st, t, bound, (int)ev->cpu);
			st->inferred++;
		} else {
			/* came on unseen, and maybe was woken unseen: from
			 * since to now, where it was is not known */
			hidden(st, t, ev->ts);
			t->state = LAT_SCHED_T_UNKNOWN;
		}
	}
	if (t->state == LAT_SCHED_T_ONCPU) {
		t->t.oncpu_ns += in_window(st, t->since, ev->ts);
		st->total.oncpu_ns += in_window(st, t->since, ev->ts);
	}
	if (counted) {
		if (!runnable) { /* slept by its own choice (runnable
				  * covers preempt) */
			t->t.switches_vol++;
			st->total.switches_vol++;
		} else {
			t->t.switches_invol++;
			st->total.switches_invol++;
		}
	}
	t->cpu = (int)ev->cpu;
	t->since = ev->ts;
	if (runnable) {
		t->state = LAT_SCHED_T_PREEMPTED;
		if (counted) {
			t->t.preempted++;
			st->total.preempted++;
		}
		t->preemptor = (pid_t)ev->pid2;
		t->preemptor_tgid = (pid_t)ev->tgid2;
		memcpy(t->preemptor_comm, ev->comm2, 16);
	} else if (ev->arg & LAT_SCHED_TASK_DEAD) {
		/* gone: its time ends here (not blocked until the window
		 * closes) */
		t->t.exited = true;
		t->state = LAT_SCHED_T_UNKNOWN;
	} else {
		t->state = LAT_SCHED_T_BLOCKED;
	}
}

static void switch_in(struct lat_sched_state *st, const struct lat_sched_ev *ev)
{
	struct lat_sched_tstate_rec *t =
		thread_get(st, (pid_t)ev->pid2, (pid_t)ev->tgid2, ev->comm2);

	if (!t)
		return; /* counted as dropped by thread_get */
	on_cpu_from(st, t, ev->ts, (int)ev->cpu);
}

/* From @ev on, switch's next task holds CPU @c, known from now. */
static void next_holds(struct lat_sched_cstate *c,
		       const struct lat_sched_ev *ev)
{
	c->known = true;
	c->since = ev->ts;
	c->pid = (pid_t)ev->pid2;
	c->tgid = (pid_t)ev->tgid2;
	c->own = ev->arg2 & LAT_SCHED_SW_NEXT_OURS;
	memcpy(c->comm, ev->comm2, 16);
}

/* The holder of watched CPU @c changes at @ts. */
static void cpu_switch(struct lat_sched_state *st, struct lat_sched_cstate *c,
		       const struct lat_sched_ev *ev)
{
	uint64_t from = c->known ? c->since : st->from_ns;
	uint64_t ns;
	struct lat_sched_cspan h;

	if (counting(st, ev->ts))
		c->c.switches++;
	bool broken = c->known && c->pid != (pid_t)ev->pid;

	if (!c->known) {
		/* First switch seen: prev held it since the window opened. */
		c->pid = (pid_t)ev->pid;
		c->tgid = (pid_t)ev->tgid;
		c->own = ev->arg2 & LAT_SCHED_SW_PREV_OURS;
		memcpy(c->comm, ev->comm, 16);
	}
	ns = in_window(st, from, ev->ts);
	if (broken) {
		/*
		 * The holder we knew was switched out without a record (some
		 * kernels never report certain tasks' switch-outs, e.g. this
		 * VM's agent threads: perf sees none either). Who held the
		 * CPU from then until prev's switch-out is unknown.
		 */
		if (counting(st, ev->ts)) {
			c->c.chain_breaks++;
			st->chain_breaks++;
		}
		c->c.unknown_ns += ns;
		c->c.break_ns += ns;
		next_holds(c, ev);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.from = from;
	h.to = ev->ts;
	h.pid = c->pid;
	h.tgid = c->tgid;
	memcpy(h.comm, c->comm, 16);
	if (c->pid == 0) {
		h.kind = LAT_SCHED_C_IDLE;
		c->c.idle_ns += ns;
	} else if (c->own) {
		h.kind = LAT_SCHED_C_OWN;
		c->c.own_ns += ns;
	} else {
		h.kind = LAT_SCHED_C_FOREIGN;
		c->c.foreign_ns += ns;
		if (ns) {
			c->c.intrusions++;
			lat_sched_whos_add(&c->intruders, c->pid, c->tgid,
					   c->comm, 1, ns);
			if (ns > c->c.longest_ns) {
				c->c.longest_ns = ns;
				c->c.longest_pid = c->pid;
				memcpy(c->c.longest_comm, c->comm, 16);
			}
		}
	}
	c->recent[c->recent_n++ % LAT_SCHED_RECENT] = h;
	spans_push(st, &c->holders, sizeof(h), &h);
	next_holds(c, ev);
}

static const char *const softirq_names[LAT_SCHED_NSOFTIRQ] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

const char *lat_sched_softirq_name(int v)
{
	return v >= 0 && v < LAT_SCHED_NSOFTIRQ ? softirq_names[v] : "?";
}

const char *lat_sched_irq_kind_name(int kind)
{
	static const char *const n[LAT_SCHED_NIRQKIND] = {
		"irq", "timer", "resched", "callfn", "callfn1", "irq_work",
	};

	return kind >= 0 && kind < LAT_SCHED_NIRQKIND ? n[kind] : "?";
}

static void on_irq(struct lat_sched_state *st, const struct lat_sched_ev *ev)
{
	struct lat_sched_cstate *c = lat_sched_state_cpu(st, (int)ev->cpu);
	bool soft = ev->type == LAT_SCHED_EV_SOFTIRQ;
	struct lat_sched_cspan s;

	if (!c)
		return;
	if (counting(st, ev->ts)) {
		if (soft && ev->arg2 < LAT_SCHED_NSOFTIRQ) {
			c->c.softirq_count[ev->arg2]++;
			c->c.softirq_ns[ev->arg2] += ev->arg;
		} else if (!soft && ev->arg2 < LAT_SCHED_NIRQKIND) {
			c->c.irq_count[ev->arg2]++;
			c->c.irq_ns[ev->arg2] += ev->arg;
		}
	}
	memset(&s, 0, sizeof(s));
	s.from = ev->ts;
	s.to = ev->ts + ev->arg;
	s.kind = soft ? LAT_SCHED_C_SOFTIRQ : LAT_SCHED_C_IRQ;
	s.pid = (pid_t)ev->pid2; /* the irq number for device irqs */
	s.tgid = (pid_t)ev->arg2;
	if (!soft && ev->arg2 == LAT_SCHED_IRQ_HANDLER && ev->comm[0]) {
		/* a device irq by its handler's name, as /proc/interrupts
		 * shows it (the number stays in pid), told apart from the
		 * other kinds and irqs in who tables */
		memcpy(s.comm, ev->comm, sizeof(s.comm) - 1);
		s.tgid = LAT_SCHED_IRQ_KEY_DEVICE + (pid_t)ev->pid2;
	} else {
		strncpy(s.comm, soft ? lat_sched_softirq_name((int)ev->arg2)
				     : lat_sched_irq_kind_name((int)ev->arg2),
			sizeof(s.comm) - 1);
		if (soft) /* apart from the irq kinds of the same number */
			s.tgid += LAT_SCHED_IRQ_KEY_SOFT;
	}
	spans_push(st, &c->irqs, sizeof(s), &s);
}

int lat_sched_state_feed(struct lat_sched_state *st,
			 const struct lat_sched_ev *ev)
{
	bool counted = counting(st, ev->ts);
	uint64_t dropped = st->dropped;

	if (counted)
		st->records++;
	switch (ev->type) {
	case LAT_SCHED_EV_WAKEUP:
	case LAT_SCHED_EV_WAKEUP_NEW:
		on_wakeup(st, ev);
		break;
	case LAT_SCHED_EV_SWITCH: {
		struct lat_sched_cstate *c =
			lat_sched_state_cpu(st, (int)ev->cpu);

		uint64_t bound = c && c->known && c->pid != (pid_t)ev->pid
					 ? c->since : 0;

		/* The CPU's holder first: switch_in looks at it. */
		if (c)
			cpu_switch(st, c, ev);
		if (ev->arg2 & LAT_SCHED_SW_PREV_OURS)
			switch_out(st, ev, counted, bound);
		if (ev->arg2 & LAT_SCHED_SW_NEXT_OURS)
			switch_in(st, ev);
		break;
	}
	case LAT_SCHED_EV_MIGRATE: {
		struct lat_sched_tstate_rec *t = thread_get(
			st, (pid_t)ev->pid, (pid_t)ev->tgid, ev->comm);

		if (t && counted) { /* !t: counted as dropped by thread_get */
			t->t.migrations++;
			st->total.migrations++;
		}
		break;
	}
	case LAT_SCHED_EV_IRQ:
	case LAT_SCHED_EV_SOFTIRQ:
		on_irq(st, ev);
		break;
	default:
		st->unpaired++;
		return -EINVAL;
	}
	return st->dropped == dropped ? 0 : -ENOMEM;
}

bool lat_sched_batch_hop(const struct lat_sched_batch *b, uint32_t i,
			 struct lat_sched_ev *ev)
{
	const struct lat_sched_hop *h = &b->hop[i];
	const struct lat_sched_batch_thread *p, *n;
	uint32_t nt = b->n_threads;

	if (i >= b->n || i >= LAT_SCHED_BATCH || h->prev >= nt ||
	    h->next >= nt || nt > LAT_SCHED_BATCH_THREADS)
		return false;
	p = &b->thread[h->prev];
	n = &b->thread[h->next];
	memset(ev, 0, sizeof(*ev));
	ev->ts = b->ts + h->dt;
	ev->type = LAT_SCHED_EV_SWITCH;
	ev->cpu = b->cpu;
	ev->pid = p->pid;
	ev->tgid = p->tgid;
	ev->pid2 = n->pid;
	ev->tgid2 = n->tgid;
	ev->arg = 0; /* prev still runnable: that is what a hop is */
	ev->arg2 = LAT_SCHED_SW_PREV_OURS | LAT_SCHED_SW_NEXT_OURS |
		   (h->preempt ? LAT_SCHED_SW_PREEMPT : 0);
	memcpy(ev->comm, p->comm, 16);
	memcpy(ev->comm2, n->comm, 16);
	return true;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct lat_sched_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cpu_cmp(const void *a, const void *b)
{
	const struct lat_sched_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

void lat_sched_state_finish(struct lat_sched_state *st, uint64_t to_ns,
			    struct lat_sched_result *r)
{
	int i;

	if (!st->to_ns || st->to_ns > to_ns)
		st->to_ns = to_ns;
	for (i = 0; i < st->n_th; i++) {
		struct lat_sched_tstate_rec *t = &st->th[i];
		uint64_t ns = in_window(st, t->since, st->to_ns);

		switch (t->state) {
		case LAT_SCHED_T_ONCPU:
			t->t.oncpu_ns += ns;
			st->total.oncpu_ns += ns;
			break;
		case LAT_SCHED_T_WOKEN:
		case LAT_SCHED_T_PREEMPTED:
			t->t.runnable_ns += ns;
			st->total.runnable_ns += ns;
			break;
		case LAT_SCHED_T_BLOCKED:
			t->t.blocked_ns += ns;
			st->total.blocked_ns += ns;
			break;
		default:
			break;
		}
		if (t->state != LAT_SCHED_T_ONCPU &&
		    t->state != LAT_SCHED_T_UNKNOWN)
			off_cpu_span(st, t, st->to_ns, -1);
		t->state = LAT_SCHED_T_UNKNOWN; /* finish once */
		lat_sched_whos_fold(&t->preempted_by, &t->t.preempted_by);
		lat_sched_whos_fold(&t->waited_behind, &t->t.waited_behind);
	}
	for (i = 0; i < st->n_cpu; i++) {
		struct lat_sched_cstate *c = &st->cpu[i];
		struct lat_sched_ev ev;

		/* Close the holder's interval with a switch to itself. */
		memset(&ev, 0, sizeof(ev));
		ev.type = LAT_SCHED_EV_SWITCH;
		ev.ts = st->to_ns;
		ev.cpu = (uint32_t)c->c.cpu;
		if (c->known) {
			uint64_t sw = c->c.switches;

			ev.pid = ev.pid2 = (uint32_t)c->pid;
			ev.tgid = ev.tgid2 = (uint32_t)c->tgid;
			ev.arg2 = c->own ? LAT_SCHED_SW_PREV_OURS |
						   LAT_SCHED_SW_NEXT_OURS
					 : 0;
			memcpy(ev.comm, c->comm, 16);
			memcpy(ev.comm2, c->comm, 16);
			cpu_switch(st, c, &ev);
			c->c.switches = sw;
		} else {
			/* No switch all window: one unknown task held it. */
			c->c.unknown_ns += in_window(st, st->from_ns, st->to_ns);
		}
		lat_sched_whos_fold(&c->intruders, &c->c.intruders);
	}
	memset(r, 0, sizeof(*r));
	r->from_ns = st->from_ns;
	r->to_ns = st->to_ns;
	r->records = st->records;
	r->unpaired = st->unpaired;
	r->dropped = st->dropped;
	r->inferred = st->inferred;
	r->chain_breaks = st->chain_breaks;
	r->timeline_dropped = st->timeline_dropped;
	r->timeline_cut_ns = st->timeline_cut_ns;
	r->total = st->total;
	r->total.tid = r->total.tgid = 0;
	strcpy(r->total.comm, "(all)");
	r->total.rq_wakeup = &st->hist[0];
	r->total.rq_preempt = &st->hist[1];
	r->total.blocked = &st->hist[2];
	lat_sched_whos_fold(&st->total_preempted_by, &r->total.preempted_by);
	lat_sched_whos_fold(&st->total_waited_behind, &r->total.waited_behind);
	free(st->out_threads);
	free(st->out_cpus);
	st->out_threads = calloc((size_t)(st->n_th ? st->n_th : 1),
				 sizeof(*st->out_threads));
	st->out_cpus = calloc((size_t)(st->n_cpu ? st->n_cpu : 1),
			      sizeof(*st->out_cpus));
	if (st->out_threads) {
		for (i = 0; i < st->n_th; i++)
			st->out_threads[i] = st->th[i].t;
		qsort(st->out_threads, (size_t)st->n_th,
		      sizeof(*st->out_threads), thread_cmp);
		r->n_threads = st->n_th;
		r->threads = st->out_threads;
	}
	if (st->out_cpus) {
		for (i = 0; i < st->n_cpu; i++)
			st->out_cpus[i] = st->cpu[i].c;
		qsort(st->out_cpus, (size_t)st->n_cpu, sizeof(*st->out_cpus),
		      cpu_cmp);
		r->n_cpus = st->n_cpu;
		r->cpus = st->out_cpus;
	}
}

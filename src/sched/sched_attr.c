/*
 * Attribution: the pipeline's slow events joined to what the scheduler
 * probe saw (see include/latlab/sched_attr.h for the causes and the clock
 * join). The hooks only copy; all the work is in lat_sched_attr_finish,
 * after the run.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "latlab/common.h"
#include "latlab/sched_attr.h"
#include "sched/sched_int.h"

/* A sample kept for attribution: the message and, for each hop's owner,
 * when it finished the previous event (to see a backlog). */
struct slow {
	uint64_t e2e_ns;
	struct lat_pipe_msg m;
	lat_cycles_t prev_end[LAT_PIPE_MAX_HOT]; /* by hot thread index */
};

struct pair {
	lat_cycles_t c;
	uint64_t ns;      /* CLOCK_MONOTONIC */
	uint64_t width;   /* bracket, cycles */
};

struct lat_sched_attr {
	struct lat_sched *probe;
	struct lat_pipe_hooks next;   /* chained: whoever was there first */
	const struct lat_flight *flight;
	int stages, n_hot, n_deltas;
	pid_t tid[LAT_PIPE_MAX_HOT];
	int cpu[LAT_PIPE_MAX_HOT];
	/* the slowest samples: a min-heap on e2e_ns */
	struct slow *heap;
	size_t heap_n, heap_cap;
	uint64_t seen;
	/* the flight window: the last samples the recorder kept */
	struct slow *ring;
	size_t ring_cap, ring_n, ring_head;
	bool ring_frozen;
	/* previous sample's ends per owner */
	lat_cycles_t last_end[LAT_PIPE_MAX_HOT];
	/* clock join */
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	struct lat_sched_attr_result res;
};

static const char *const cause_names[LAT_SCHED_NCAUSES] = {
	"backlog", "own", "probe", "foreign", "wakeup", "blocked", "irq", "normal",
	"unexplained",
};

static const char *const cause_texts[LAT_SCHED_NCAUSES] = {
	"queued behind earlier events (backlog)",
	"runnable behind our own threads (sharing a CPU)",
	"runnable behind the probe's reader (latlab-sched): the cost of "
	"observing",
	"runnable behind other tasks",
	"runnable on an idle CPU (the wake-up itself)",
	"asleep in its wait when the event arrived",
	"interrupts and softirqs on its CPU",
	"ordinary hop time (up to each hop's p50)",
	"unexplained: on its CPU, no scheduler event (hypervisor steal or an "
	"untraced interrupt)",
};

const char *lat_sched_cause_name(enum lat_sched_cause c)
{
	return c < LAT_SCHED_NCAUSES ? cause_names[c] : "?";
}

const char *lat_sched_cause_text(enum lat_sched_cause c)
{
	return c < LAT_SCHED_NCAUSES ? cause_texts[c] : "?";
}

/* ---- the clock join ---- */

/* The tightest of three (fenced cycles, CLOCK_MONOTONIC, fenced cycles). */
static void take_pair(struct lat_sched_attr *a)
{
	struct pair best = { 0, 0, UINT64_MAX };

	for (int i = 0; i < 3; i++) {
		lat_cycles_t c0 = lat_clock_start();
		uint64_t ns = lat_mono_ns();
		lat_cycles_t c1 = lat_clock_end();

		if (c1 - c0 < best.width) {
			best.c = c0 + (c1 - c0) / 2;
			best.ns = ns;
			best.width = c1 - c0;
		}
	}
	if (a->n_pairs == a->cap_pairs) {
		/* full: keep every other pair, so the run stays covered */
		size_t j = 0;

		for (size_t i = 0; i < a->n_pairs; i += 2)
			a->pairs[j++] = a->pairs[i];
		a->n_pairs = j;
	}
	a->pairs[a->n_pairs++] = best;
}

/* Cycles to CLOCK_MONOTONIC ns: interpolate between the pairs around. */
static uint64_t to_mono(const struct lat_sched_attr *a, lat_cycles_t c)
{
	size_t lo = 0, hi = a->n_pairs - 1;
	const struct pair *p, *q;

	if (a->n_pairs == 1)
		return a->pairs[0].ns; /* cannot happen: start and finish */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (a->pairs[mid].c <= c)
			lo = mid;
		else
			hi = mid;
	}
	p = &a->pairs[lo];
	q = &a->pairs[hi];
	return (uint64_t)((double)p->ns + ((double)c - (double)p->c) *
					      (double)(q->ns - p->ns) /
					      (double)(q->c - p->c));
}

/* ---- hooks ---- */

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void on_prepare(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_sched_attr *a = ctx;

	if (a->next.thread_prepare)
		a->next.thread_prepare(a->next.ctx, index, role);
	if (index >= 0 && index < LAT_PIPE_MAX_HOT) {
		a->tid[index] = gettid_();
		lat_sched_follow_tid(a->probe, a->tid[index]);
	}
}

static void on_begin(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_sched_attr *a = ctx;

	if (a->next.thread_begin)
		a->next.thread_begin(a->next.ctx, index, role);
}

static void on_end(void *ctx, int index, enum lat_pipe_role role)
{
	struct lat_sched_attr *a = ctx;

	if (a->next.thread_end)
		a->next.thread_end(a->next.ctx, index, role);
}

static void heap_sift_down(struct slow *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct slow t;

		if (l < n && h[l].e2e_ns < h[m].e2e_ns)
			m = l;
		if (l + 1 < n && h[l + 1].e2e_ns < h[m].e2e_ns)
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void heap_push(struct lat_sched_attr *a, const struct slow *s)
{
	size_t i;

	if (a->heap_n < a->heap_cap) {
		i = a->heap_n++;
		a->heap[i] = *s;
		while (i && a->heap[(i - 1) / 2].e2e_ns > a->heap[i].e2e_ns) {
			struct slow t = a->heap[i];

			a->heap[i] = a->heap[(i - 1) / 2];
			a->heap[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
	} else if (s->e2e_ns > a->heap[0].e2e_ns) {
		a->heap[0] = *s;
		heap_sift_down(a->heap, a->heap_n, 0);
	}
}

static void on_sample(void *ctx, const struct lat_pipe_msg *m,
		      const int64_t *delta_ns, int n_deltas)
{
	struct lat_sched_attr *a = ctx;
	bool was_frozen = a->flight && a->flight->state == LAT_FLIGHT_FROZEN;
	struct slow s;
	int k;

	if (a->next.sample)
		a->next.sample(a->next.ctx, m, delta_ns, n_deltas);
	s.e2e_ns = (uint64_t)delta_ns[n_deltas - 1];
	s.m = *m;
	memcpy(s.prev_end, a->last_end, sizeof(s.prev_end));
	heap_push(a, &s);
	if (a->ring && !was_frozen) {
		a->ring[a->ring_head] = s;
		a->ring_head = (a->ring_head + 1) % a->ring_cap;
		if (a->ring_n < a->ring_cap)
			a->ring_n++;
	}
	/* when each owner finished this event */
	a->last_end[0] = m->t_sent;
	for (k = 0; k < a->stages; k++)
		a->last_end[k + 1] = m->work[k].end;
	a->last_end[a->stages + 1] = m->t_final;
	if ((++a->seen & 2047) == 0)
		take_pair(a); /* about every 10 ms at 200 k/s */
}

/* ---- set-up ---- */

int lat_sched_attr_reader_cpu(const struct lat_pipe_config *c,
			      const bool *allowed, int n_allowed)
{
	int n_hot = lat_pipe_n_hot(c->stages);

	if (!c->pin)
		return -1;
	for (int cpu = 0; cpu < n_allowed; cpu++) {
		bool used = cpu == c->agg_cpu || (c->noise && cpu == c->noise_cpu);

		for (int i = 0; i < n_hot && !used; i++)
			used = c->cpu[i] == cpu;
		if (allowed[cpu] && !used)
			return cpu;
	}
	return -1;
}

/* The reader's CPU for @c on this machine (its affinity mask). */
static int reader_cpu_of(const struct lat_pipe_config *c)
{
	bool allowed[CPU_SETSIZE] = { false };
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		allowed[cpu] = CPU_ISSET(cpu, &set);
	return lat_sched_attr_reader_cpu(c, allowed, CPU_SETSIZE);
}

int lat_sched_attr_init(struct lat_sched_attr **out,
			struct lat_pipe_config *c,
			const struct lat_flight *flight)
{
	struct lat_sched_avail av;
	struct lat_sched_opts o;
	struct lat_sched_attr *a;
	int cpus[LAT_PIPE_MAX_HOT + 256], n_cpus = 0, rc, i;
	pid_t self;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	double run_s;

	*out = NULL;
	if (!c->stamps)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	*out = a;
	a->stages = c->stages;
	a->n_hot = lat_pipe_n_hot(c->stages);
	a->n_deltas = lat_pipe_n_deltas(c->stages);
	a->flight = flight;
	a->res.reader_cpu = -1;
	lat_sched_available(&av);
	if (!av.ok) {
		snprintf(a->res.unavailable, sizeof(a->res.unavailable), "%s",
			 av.reason);
		return -LAT_EUNSUPP;
	}
	/* the hot threads' CPUs, or every CPU when they are not pinned */
	for (i = 0; i < a->n_hot; i++) {
		int j, cpu = c->pin ? c->cpu[i] : -1;

		a->cpu[i] = cpu;
		if (cpu < 0)
			continue;
		for (j = 0; j < n_cpus && cpus[j] != cpu; j++)
			;
		if (j == n_cpus)
			cpus[n_cpus++] = cpu;
	}
	if (!c->pin)
		for (i = 0; i < online && i < 256; i++)
			cpus[n_cpus++] = i;
	a->heap_cap = c->events / 1000 + 64;
	if (a->heap_cap > LAT_SCHED_ATTR_MAX_SLOW)
		a->heap_cap = LAT_SCHED_ATTR_MAX_SLOW;
	a->heap = calloc(a->heap_cap, sizeof(*a->heap));
	if (flight && flight->capacity) {
		a->ring_cap = flight->capacity;
		a->ring = calloc(a->ring_cap, sizeof(*a->ring));
	}
	run_s = (double)c->events / c->rate + 60;
	a->cap_pairs = (size_t)(run_s * 1000 / 10) + 64;
	if (a->cap_pairs > 1u << 20)
		a->cap_pairs = 1u << 20;
	a->pairs = calloc(a->cap_pairs, sizeof(*a->pairs));
	if (!a->heap || !a->pairs || (a->ring_cap && !a->ring))
		return -ENOMEM;
	memset(&o, 0, sizeof(o));
	/* every thread of ours (aggregator, noise, ...) is "own", not
	 * foreign; the hot threads are told apart by their TIDs */
	self = getpid();
	o.pids = &self;
	o.n_pids = 1;
	o.cpus = cpus;
	o.n_cpus = n_cpus;
	o.per_thread = true;
	o.timeline = true;
	/* decode after the run: on a machine with no spare CPU the reader
	 * would otherwise decode on the hot threads' CPUs while they run */
	o.defer_bytes = LAT_SCHED_ATTR_DEFER_BYTES;
	/* hot threads at a lower nice (sharing CPUs) would starve a nice-0
	 * reader on their CPUs until the ring overflows */
	o.reader_nice = c->hot_nice < 0 ? c->hot_nice : 0;
	rc = lat_sched_open(&o, &a->probe);
	if (rc)
		return rc;
	a->res.reader_cpu = reader_cpu_of(c);
	rc = lat_sched_set_reader_cpu(a->probe, a->res.reader_cpu);
	if (rc)
		return rc;
	a->next = c->hooks;
	c->hooks.ctx = a;
	c->hooks.thread_prepare = on_prepare;
	c->hooks.thread_begin = on_begin;
	c->hooks.thread_end = on_end;
	c->hooks.sample = on_sample;
	return 0;
}

int lat_sched_attr_start(struct lat_sched_attr *a)
{
	take_pair(a);
	return lat_sched_start(a->probe);
}

struct lat_sched *lat_sched_attr_probe(struct lat_sched_attr *a)
{
	return a ? a->probe : NULL;
}

void lat_sched_attr_free(struct lat_sched_attr *a)
{
	if (!a)
		return;
	lat_sched_close(a->probe);
	free(a->heap);
	free(a->ring);
	free(a->pairs);
	free(a);
}

const struct lat_sched_attr_result *lat_sched_attr_result(
	const struct lat_sched_attr *a)
{
	return &a->res;
}

/* ---- attribution ---- */

/* Owner (hot thread index) of hop @i: pace is the producer's; q_k+wake
 * and work_k are stage k's (the consumer's for the last queue). */
static int hop_owner(int i)
{
	return i == 0 ? 0 : (i + 1) / 2;
}

static bool hop_is_queue(int i)
{
	return i == 0 || (i & 1); /* pace (q1 full) and the q+wake hops */
}

/* Accumulates one event's causes. */
struct acc {
	uint64_t ns[LAT_SCHED_NCAUSES];
	struct lat_sched_whos_acc *foreign, *own, *irq; /* may be NULL */
	/* the largest single piece, for the event's one-line story */
	enum lat_sched_cause best;
	uint64_t best_ns;
	char best_who[24];
	pid_t best_pid;
};

static void give(struct acc *x, enum lat_sched_cause c, uint64_t ns,
		 struct lat_sched_whos_acc *w, pid_t pid, const char *who)
{
	if (!ns)
		return;
	x->ns[c] += ns;
	if (w)
		lat_sched_whos_add(w, pid, pid, who, 1, ns);
	if (ns > x->best_ns && c != LAT_SCHED_CAUSE_NORMAL) {
		x->best = c;
		x->best_ns = ns;
		x->best_pid = pid;
		snprintf(x->best_who, sizeof(x->best_who), "%s", who ? who : "");
	}
}

/* First span of @s (sorted, non-overlapping) that ends after @t. */
static size_t first_after(const struct lat_sched_spans *s, size_t elem,
			  uint64_t t)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const uint64_t *to = (const uint64_t *)((const char *)s->v +
							 mid * elem) + 1;

		if (*to <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *const hot_names[] = { "producer", "stage1", "stage2",
					 "stage3", "stage4", "stage5",
					 "stage6", "stage7", "stage8" };

static const char *hot_name(const struct lat_sched_attr *a, pid_t tid,
			    const char *comm)
{
	for (int i = 0; i < a->n_hot; i++)
		if (a->tid[i] == tid)
			return i == a->n_hot - 1 ? "consumer" : hot_names[i];
	return comm; /* another thread of ours: aggregator, noise */
}

/* Runnable on @cpu during [x, y]: who held it. */
static void runnable(const struct lat_sched_attr *a, struct lat_sched_state *st,
		     int cpu, uint64_t x, uint64_t y, struct acc *acc)
{
	struct lat_sched_cstate *c = lat_sched_state_cpu(st, cpu);
	uint64_t t = x;
	size_t i;

	if (c) {
		const struct lat_sched_cspan *h = c->holders.v;

		for (i = first_after(&c->holders, sizeof(*h), x);
		     i < c->holders.n && h[i].from < y; i++) {
			uint64_t lo = h[i].from > t ? h[i].from : t;
			uint64_t hi = h[i].to < y ? h[i].to : y;

			if (hi <= lo)
				continue;
			if (lo > t) /* a stretch with no holder on record */
				give(acc, LAT_SCHED_CAUSE_FOREIGN, lo - t,
				     acc->foreign, -1, "(unknown)");
			if (h[i].kind == LAT_SCHED_C_IDLE)
				give(acc, LAT_SCHED_CAUSE_WAKEUP, hi - lo, NULL,
				     0, "idle");
			else if (h[i].kind == LAT_SCHED_C_OWN &&
				 a->res.reader_tid &&
				 h[i].pid == a->res.reader_tid)
				/* the probe itself: not the pipeline's */
				give(acc, LAT_SCHED_CAUSE_PROBE, hi - lo, NULL,
				     h[i].pid, "latlab-sched");
			else if (h[i].kind == LAT_SCHED_C_OWN)
				give(acc, LAT_SCHED_CAUSE_OWN, hi - lo, acc->own,
				     h[i].pid, hot_name(a, h[i].pid, h[i].comm));
			else
				give(acc, LAT_SCHED_CAUSE_FOREIGN, hi - lo,
				     acc->foreign, h[i].pid, h[i].comm);
			t = hi;
		}
	}
	if (y > t) /* no holder known: the CPU's record has a gap */
		give(acc, LAT_SCHED_CAUSE_FOREIGN, y - t, acc->foreign, -1,
		     "(unknown)");
}

int lat_sched_attr_runnable_ns(struct lat_sched_state *st, int cpu,
			       uint64_t x, uint64_t y, pid_t reader_tid,
			       uint64_t *ns)
{
	struct lat_sched_attr *a = calloc(1, sizeof(*a));
	struct acc acc;

	if (!a)
		return -ENOMEM;
	memset(&acc, 0, sizeof(acc));
	a->res.reader_tid = reader_tid;
	runnable(a, st, cpu, x, y, &acc);
	for (int c = 0; c < LAT_SCHED_NCAUSES; c++)
		ns[c] += acc.ns[c];
	free(a);
	return 0;
}

/* On @cpu during [x, y]: interrupts there, then ordinary time up to
 * *@budget, then unexplained; inside a backlog (@backlog) the rest is the
 * earlier events' work. */
static void on_cpu(struct lat_sched_state *st, int cpu, uint64_t x,
		   uint64_t y, uint64_t *budget, bool backlog,
		   struct acc *acc)
{
	struct lat_sched_cstate *c = lat_sched_state_cpu(st, cpu);
	uint64_t irq = 0, rest, n;

	if (c && c->irqs.n) {
		const struct lat_sched_cspan *q = c->irqs.v;
		size_t lo = 0, hi = c->irqs.n;

		/* irq spans are in start order; none lasts 10 ms */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (q[mid].from + 10000000u <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* spans nest (a softirq run at an irq's exit, an irq in a
		 * softirq): each stretch is counted once, for the span that
		 * began first, so the causes add up to the hop */
		uint64_t done = x;

		for (; lo < c->irqs.n && q[lo].from < y; lo++) {
			uint64_t a0 = q[lo].from > done ? q[lo].from : done;
			uint64_t b0 = q[lo].to < y ? q[lo].to : y;

			if (b0 > a0) {
				give(acc, LAT_SCHED_CAUSE_IRQ, b0 - a0,
				     acc->irq, q[lo].tgid, q[lo].comm);
				irq += b0 - a0;
				done = b0;
			}
		}
	}
	rest = y - x > irq ? y - x - irq : 0;
	if (backlog) {
		give(acc, LAT_SCHED_CAUSE_BACKLOG, rest, NULL, 0, NULL);
		return;
	}
	n = rest < *budget ? rest : *budget;
	*budget -= n;
	give(acc, LAT_SCHED_CAUSE_NORMAL, n, NULL, 0, NULL);
	give(acc, LAT_SCHED_CAUSE_UNEXPLAINED, rest - n, NULL, 0, NULL);
}

int lat_sched_attr_on_cpu_ns(struct lat_sched_state *st, int cpu, uint64_t x,
			     uint64_t y, uint64_t budget, uint64_t *ns)
{
	struct acc acc;

	memset(&acc, 0, sizeof(acc));
	on_cpu(st, cpu, x, y, &budget, false, &acc);
	for (int c = 0; c < LAT_SCHED_NCAUSES; c++)
		ns[c] += acc.ns[c];
	return 0;
}

/*
 * Hop [x, y] owned by hot thread @o: its off-CPU time goes to why it was
 * off (who held its CPU, or asleep), its on-CPU time to interrupts and
 * then to ordinary or unexplained time, or, in a @backlog (it was still
 * on earlier events), to the backlog.
 */
static void hop(const struct lat_sched_attr *a, struct lat_sched_state *st,
		int o, uint64_t x, uint64_t y, uint64_t budget, bool backlog,
		struct acc *acc)
{
	struct lat_sched_tstate_rec *t = lat_sched_state_thread(st, a->tid[o]);
	int cpu = a->cpu[o];
	uint64_t at = x;

	if (t && t->spans.n) {
		const struct lat_sched_tspan *sp = t->spans.v;
		size_t i;

		for (i = first_after(&t->spans, sizeof(*sp), x);
		     i < t->spans.n && sp[i].from < y; i++) {
			uint64_t lo = sp[i].from > at ? sp[i].from : at;
			uint64_t hi = sp[i].to < y ? sp[i].to : y;
			int c = sp[i].cpu >= 0 ? sp[i].cpu : cpu;

			if (lo > at)
				on_cpu(st, cpu >= 0 ? cpu : c, at, lo, &budget,
				       backlog, acc);
			if (hi > lo) {
				if (sp[i].state == LAT_SCHED_T_BLOCKED)
					give(acc, LAT_SCHED_CAUSE_BLOCKED,
					     hi - lo, NULL, 0, NULL);
				else
					runnable(a, st, c, lo, hi, acc);
			}
			at = hi > at ? hi : at;
		}
	}
	if (y > at)
		on_cpu(st, cpu >= 0 ? cpu : (t ? t->cpu : -1), at, y, &budget,
		       backlog, acc);
}

/* One event: every hop, each to its owner. Returns its mapped e2e. */
static uint64_t attribute(const struct lat_sched_attr *a,
			  struct lat_sched_state *st,
			  const struct lat_pipe_result *r, const struct slow *s,
			  struct acc *acc, int *worst_hop, uint64_t *worst_ns)
{
	lat_cycles_t st_c[2 * LAT_PIPE_MAX_STAGES + 2];
	uint64_t total = 0;
	int n = 0, i, k;

	st_c[n++] = s->m.t0;
	st_c[n++] = s->m.t_sent;
	for (k = 0; k < a->stages; k++) {
		st_c[n++] = s->m.work[k].begin;
		st_c[n++] = s->m.work[k].end;
	}
	st_c[n++] = s->m.t_final;
	*worst_ns = 0;
	for (i = 0; i + 1 < n; i++) {
		uint64_t x = to_mono(a, st_c[i]), y = to_mono(a, st_c[i + 1]);
		int o = hop_owner(i);
		uint64_t budget = (uint64_t)lat_hist_value_at_percentile(
			&r->delta[i].hist, 50);

		if (y <= x)
			continue;
		total += y - x;
		if (y - x > *worst_ns) {
			*worst_ns = y - x;
			*worst_hop = i;
		}
		if (hop_is_queue(i) && s->prev_end[o]) {
			uint64_t e = to_mono(a, s->prev_end[o]);

			if (e > x) {
				uint64_t b = e < y ? e : y;

				/* the owner was on earlier events until b:
				 * its time off CPU then is still a cause */
				hop(a, st, o, x, b, 0, true, acc);
				x = b;
			}
		}
		if (y > x)
			hop(a, st, o, x, y, budget, false, acc);
	}
	return total;
}

struct sum_acc {
	struct lat_sched_attr_sum sum;
	struct lat_sched_whos_acc foreign, own, irq;
};

static void sum_event(const struct lat_sched_attr *a, struct lat_sched_state *st,
		      const struct lat_pipe_result *r, const struct slow *s,
		      struct sum_acc *sa, struct lat_sched_attr_event *ev)
{
	struct acc acc;
	uint64_t worst_ns;
	int worst_hop = 0, c;

	memset(&acc, 0, sizeof(acc));
	acc.foreign = &sa->foreign;
	acc.own = &sa->own;
	acc.irq = &sa->irq;
	sa->sum.total_ns += attribute(a, st, r, s, &acc, &worst_hop,
				      &worst_ns);
	sa->sum.events++;
	for (c = 0; c < LAT_SCHED_NCAUSES; c++)
		sa->sum.ns[c] += acc.ns[c];
	if (ev) {
		ev->seq = s->m.seq;
		ev->e2e_ns = s->e2e_ns;
		ev->hop = worst_hop;
		ev->hop_ns = worst_ns;
		ev->cause = acc.best;
		ev->cause_ns = acc.best_ns;
		snprintf(ev->who, sizeof(ev->who), "%s", acc.best_who);
		ev->who_pid = acc.best_pid;
	}
}

static void sum_fold(struct sum_acc *sa, struct lat_sched_attr_sum *out)
{
	*out = sa->sum;
	lat_sched_whos_fold(&sa->foreign, &out->foreign);
	lat_sched_whos_fold(&sa->own, &out->own);
	lat_sched_whos_fold(&sa->irq, &out->irq);
}

/* Does @s end after the timeline stopped being whole (its memory cap)?
 * Such an event is not attributed: the missing spans would make its
 * off-CPU time look like time on its CPU. */
static bool after_cut(const struct lat_sched_attr *a,
		      const struct lat_sched_state *st, const struct slow *s)
{
	return st->timeline_cut_ns &&
	       to_mono(a, s->m.t_final) >= st->timeline_cut_ns;
}

static int slow_desc(const void *x, const void *y)
{
	const struct slow *p = x, *q = y;

	return (p->e2e_ns < q->e2e_ns) - (p->e2e_ns > q->e2e_ns);
}

int lat_sched_attr_finish(struct lat_sched_attr *a,
			  const struct lat_pipe_result *r)
{
	struct lat_sched_state *st;
	struct sum_acc *sa;
	const struct lat_hist *e2e;
	double slope, ppm;
	uint64_t widths[64];
	size_t i, n_above = 0, n_shown = 0, nw; /* n_shown: attributed */
	int rc;

	if (!a->probe)
		return -LAT_EUNSUPP;
	take_pair(a);
	rc = lat_sched_stop(a->probe);
	a->res.reader_tid = lat_sched_reader_tid(a->probe);
	a->res.reader_cpu = lat_sched_reader_cpu(a->probe);
	a->res.ran = true;
	a->res.probe = lat_sched_result(a->probe);
	st = lat_sched_state_of(a->probe);
	/* the clock join's quality */
	a->res.pairs = (int)a->n_pairs;
	nw = a->n_pairs < 64 ? a->n_pairs : 64;
	for (i = 0; i < nw; i++)
		widths[i] = a->pairs[i * a->n_pairs / nw].width;
	for (i = 1; i < nw; i++) /* insertion sort: 64 at most */
		for (size_t j = i; j && widths[j - 1] > widths[j]; j--) {
			uint64_t t = widths[j];

			widths[j] = widths[j - 1];
			widths[j - 1] = t;
		}
	a->res.pair_width_ns = nw ? lat_clock_to_ns(&r->cal, widths[nw / 2])
				  : 0;
	if (a->n_pairs >= 2 && r->cal.cycles_per_ns > 0) {
		const struct pair *p = &a->pairs[0];
		const struct pair *q = &a->pairs[a->n_pairs - 1];

		slope = (double)(q->c - p->c) / (double)(q->ns - p->ns);
		ppm = (slope / r->cal.cycles_per_ns - 1) * 1e6;
		a->res.mono_vs_raw_ppm = ppm;
	}
	e2e = &r->delta[r->n_deltas - 1].hist;
	a->res.threshold_ns = lat_hist_value_at_percentile(e2e, 99.9);
	sa = calloc(2, sizeof(*sa));
	if (!sa)
		return -ENOMEM;
	qsort(a->heap, a->heap_n, sizeof(*a->heap), slow_desc);
	for (i = 0; i < a->heap_n; i++) {
		if ((int64_t)a->heap[i].e2e_ns <= a->res.threshold_ns)
			break;
		n_above++;
		if (after_cut(a, st, &a->heap[i])) {
			a->res.above_after_cut++;
			continue;
		}
		sum_event(a, st, r, &a->heap[i], &sa[0],
			  n_shown < LAT_SCHED_ATTR_WORST
				  ? &a->res.worst[n_shown]
				  : NULL);
		n_shown++;
	}
	a->res.n_worst = n_shown < LAT_SCHED_ATTR_WORST ? (int)n_shown
							: LAT_SCHED_ATTR_WORST;
	/* all kept and the smallest still above: some did not fit */
	if (n_above == a->heap_cap)
		a->res.above_missing = (uint64_t)(
			(double)e2e->total_count *
			(100 - lat_hist_percentile_at_value(
				       e2e, a->res.threshold_ns)) / 100) -
			n_above;
	sum_fold(&sa[0], &a->res.above);
	if (a->flight && a->flight->state == LAT_FLIGHT_FROZEN && a->ring_n) {
		size_t first = (a->ring_head + a->ring_cap - a->ring_n) %
			       a->ring_cap;

		a->res.flight = true;
		a->res.flight_first_seq = a->ring[first].m.seq;
		for (i = 0; i < a->ring_n; i++) {
			const struct slow *s = &a->ring[(first + i) % a->ring_cap];

			if (after_cut(a, st, s)) {
				a->res.window_after_cut++;
				continue;
			}
			sum_event(a, st, r, s, &sa[1], NULL);
			a->res.flight_last_seq = s->m.seq;
		}
		sum_fold(&sa[1], &a->res.window);
	}
	free(sa);
	return rc;
}

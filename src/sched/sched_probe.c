/*
 * The scheduler probe's user side: load the BPF skeleton (tp_btf or its
 * raw_tp twins), fill the filter maps, attach, and run a consumer thread
 * that feeds every ring-buffer record to the state machine. Without
 * libbpf at build time every entry point reports -LAT_EUNSUPP.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "latlab_config.h"
#include "latlab/common.h"
#include "latlab/topo.h"
#include "sched/sched_int.h"

#if LATLAB_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/membarrier.h>

#include "skel/sched.skel.h"
#endif

/* How often the consumer drains the ring when nothing wakes it: decoding
 * live, and only copying (opts.defer_bytes; the ring then holds ~1 s of
 * the busiest run before its quarter-full wake-up). */
#define LAT_SCHED_POLL_MS 10
#define LAT_SCHED_POLL_DEFER_MS 50
/* Deferred records are copied into chunks of this size. */
#define LAT_SCHED_SPOOL_CHUNK (4u << 20)
/* Records fed between two offers of the CPU (~100 ns each). */
#define LAT_SCHED_YIELD_EVERY 128

struct spool_chunk {
	struct spool_chunk *next;
	size_t used;
	_Alignas(8) unsigned char data[LAT_SCHED_SPOOL_CHUNK];
};

struct lat_sched {
	struct lat_sched_state st;
	struct lat_sched_result res;
	const char *flavour;
	bool irqs;
	bool started, stopped;
	pthread_t thread;
	int reader_cpu_want;         /* -1: unpinned */
	int reader_nice;             /* lat_sched_opts.reader_nice */
	int reader_cpu;              /* where it was pinned, -1 */
	pid_t reader_tid;            /* written by the reader; read after
				      * the join */
	atomic_bool stop;
	atomic_uint_fast64_t records;
	/* window requests from any thread; the consumer applies them */
	atomic_uint_fast64_t win_from, win_to, win_gen;
	uint64_t applied_gen;
	int feed_err;
	/* reorder buffer: records wait here, kept sorted by time, until
	 * none older can come; [head, n_pend) are not fed yet */
	struct lat_sched_ev *pend;
	size_t head, n_pend, cap_pend;
	uint64_t max_ts;
	/* deferred raw records (opts.defer_bytes): a list of chunks, each
	 * a run of (uint32 length, record) rounded up to 8 bytes */
	struct spool_chunk *spool_head, *spool_tail;
	size_t spool_bytes, spool_cap;
	bool deferring;
	size_t deferred_max;
	uint64_t reader_cpu_ns; /* written by the reader; read after the join */
#if LATLAB_HAVE_BPF
	struct lat_sched_bpf *skel;
	struct ring_buffer *rb;
#endif
};

pid_t lat_sched_reader_tid(const struct lat_sched *s)
{
	return s ? s->reader_tid : 0;
}

int lat_sched_reader_cpu(const struct lat_sched *s)
{
	return s ? s->reader_cpu : -1;
}

int lat_sched_set_reader_cpu(struct lat_sched *s, int cpu)
{
	if (!s || s->started || cpu < -1 || cpu >= LAT_TOPO_MAX_CPUS)
		return -EINVAL;
	s->reader_cpu_want = cpu;
	return 0;
}

int lat_sched_set_hop_mono(struct lat_sched *s, bool on)
{
#if LATLAB_HAVE_BPF
	if (!s || s->started || !s->skel)
		return -EINVAL;
	s->skel->bss->hop_mono = on;
	return 0;
#else
	(void)s;
	(void)on;
	return -LAT_EUNSUPP;
#endif
}

int lat_sched_set_defer(struct lat_sched *s, size_t bytes)
{
	if (!s || s->started)
		return -EINVAL;
	s->spool_cap = bytes;
	s->deferring = bytes > 0;
	return 0;
}

const struct lat_sched_thread *lat_sched_find_thread(
	const struct lat_sched_result *r, pid_t tid)
{
	int i;

	for (i = 0; i < r->n_threads; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	return NULL;
}

const struct lat_sched_cpu *lat_sched_find_cpu(const struct lat_sched_result *r,
					       int cpu)
{
	int i;

	for (i = 0; i < r->n_cpus; i++)
		if (r->cpus[i].cpu == cpu)
			return &r->cpus[i];
	return NULL;
}

const struct lat_sched_result *lat_sched_result(const struct lat_sched *s)
{
	return &s->res;
}

struct lat_sched_state *lat_sched_state_of(struct lat_sched *s)
{
	return &s->st;
}

const char *lat_sched_flavour(const struct lat_sched *s)
{
	return s->flavour ? s->flavour : "none";
}

uint64_t lat_sched_records(const struct lat_sched *s)
{
	return atomic_load_explicit(&s->records, memory_order_acquire);
}

void lat_sched_set_window(struct lat_sched *s, uint64_t from_ns,
			  uint64_t to_ns)
{
	atomic_store_explicit(&s->win_from, from_ns, memory_order_relaxed);
	atomic_store_explicit(&s->win_to, to_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->win_gen, 1, memory_order_release);
}

#if LATLAB_HAVE_BPF

/* On the consumer: apply a window request before the next record. */
static void apply_window(struct lat_sched *s)
{
	uint64_t gen = atomic_load_explicit(&s->win_gen, memory_order_acquire);
	uint64_t from, to;

	if (gen == s->applied_gen)
		return;
	s->applied_gen = gen;
	from = atomic_load_explicit(&s->win_from, memory_order_relaxed);
	to = atomic_load_explicit(&s->win_to, memory_order_relaxed);
	if (from != s->st.from_ns)
		lat_sched_state_reset(&s->st, from);
	s->st.to_ns = to;
}

/*
 * Records reach the ring in reservation order, which is not quite time
 * order: a program stamps its record first and then reserves, so a wakeup
 * stamped on one CPU can land after the switch-in it caused on another.
 * The gap is the few instructions between stamp and reserve, but in a VM
 * the hypervisor can stop the vCPU right there for milliseconds (a 2 ms
 * horizon lost 1 pairing in ~300 here), so records are held until they
 * are LAT_SCHED_REORDER_NS older than the newest one seen, then fed in
 * time order. What still arrives too late is counted as unpaired.
 */
#define LAT_SCHED_REORDER_NS 50000000ull

/* Room for one more held record: reuse the fed prefix, else grow. */
static bool pend_room(struct lat_sched *s)
{
	size_t cap;
	struct lat_sched_ev *p;

	if (s->n_pend < s->cap_pend)
		return true;
	if (s->head) {
		memmove(s->pend, s->pend + s->head,
			(s->n_pend - s->head) * sizeof(*s->pend));
		s->n_pend -= s->head;
		s->head = 0;
		return true;
	}
	cap = s->cap_pend ? 2 * s->cap_pend : 4096;
	p = realloc(s->pend, cap * sizeof(*p));
	if (!p)
		return false;
	s->pend = p;
	s->cap_pend = cap;
	return true;
}

/*
 * Hold @ev in time order. Records arrive nearly sorted (per CPU they are
 * in order; across CPUs a few are late), so an insertion from the end
 * moves few or none: re-sorting the whole held window at every drain
 * was half of the consumer's time at 400k records/s.
 */
static void hold(struct lat_sched *s, const struct lat_sched_ev *ev)
{
	size_t i;

	if (!pend_room(s)) {
		s->feed_err = -ENOMEM;
		s->st.dropped++;
		return;
	}
	for (i = s->n_pend; i > s->head && s->pend[i - 1].ts > ev->ts; i--)
		;
	if (i < s->n_pend)
		memmove(s->pend + i + 1, s->pend + i,
			(s->n_pend - i) * sizeof(*s->pend));
	s->pend[i] = *ev;
	s->n_pend++;
	if (ev->ts > s->max_ts)
		s->max_ts = ev->ts;
}

/* Every hop of a batch, as the switch record it stands for. The hop
 * count is the writer's word: a batch claiming more hops than it has
 * room for is malformed, and counts once as unpaired (not once per
 * claimed hop: a hostile count would spin for billions). */
static void hold_batch(struct lat_sched *s, const struct lat_sched_batch *b)
{
	struct lat_sched_ev ev;
	uint32_t i;

	if (b->n > LAT_SCHED_BATCH) {
		s->st.unpaired++;
		return;
	}
	for (i = 0; i < b->n; i++) {
		if (lat_sched_batch_hop(b, i, &ev))
			hold(s, &ev);
		else
			s->st.unpaired++;
	}
}

/* A record (or batch) of @len bytes from the ring, or from the spool. */
static void take_record(struct lat_sched *s, const void *data, size_t len)
{
	const struct lat_sched_ev *ev = data;

	if (len < sizeof(*ev))
		return;
	if (ev->type == LAT_SCHED_EV_BATCH) {
		if (len >= sizeof(struct lat_sched_batch))
			hold_batch(s, data);
		return;
	}
	hold(s, ev);
}

static void feed_pending(struct lat_sched *s, bool flush);

/*
 * The spool (opts.defer_bytes): raw records, copied while the probe runs
 * and decoded later. A batch is kept only up to its last used hop (the
 * ring carries all LAT_SCHED_BATCH slots): ~10 bytes a hand-off.
 */
static size_t spool_len(const void *data, size_t len)
{
	const struct lat_sched_batch *b = data;

	if (len >= sizeof(*b) && b->type == LAT_SCHED_EV_BATCH &&
	    b->n <= LAT_SCHED_BATCH)
		return offsetof(struct lat_sched_batch, hop) +
		       (size_t)b->n * sizeof(b->hop[0]);
	return len;
}

/* Copy one record; false when the cap or memory says no. */
static bool spool_put(struct lat_sched *s, const void *data, size_t len)
{
	size_t keep = spool_len(data, len);
	size_t need = (sizeof(uint64_t) + keep + 7) & ~(size_t)7;
	struct spool_chunk *c = s->spool_tail;
	uint32_t l32 = (uint32_t)keep;

	if (need > LAT_SCHED_SPOOL_CHUNK)
		return false;
	if (!c || c->used + need > LAT_SCHED_SPOOL_CHUNK) {
		if (s->spool_bytes + sizeof(*c) > s->spool_cap)
			return false;
		c = malloc(sizeof(*c));
		if (!c)
			return false;
		c->next = NULL;
		c->used = 0;
		if (s->spool_tail)
			s->spool_tail->next = c;
		else
			s->spool_head = c;
		s->spool_tail = c;
		s->spool_bytes += sizeof(*c);
	}
	memcpy(c->data + c->used, &l32, sizeof(l32));
	memcpy(c->data + c->used + sizeof(uint64_t), data, keep);
	c->used += need;
	return true;
}

/*
 * Decode the spool in the order it was copied, freeing it as it goes,
 * and stop deferring. A trimmed batch is put back in a whole one (the
 * hops past n are never read).
 */
static void spool_decode(struct lat_sched *s)
{
	static _Thread_local struct lat_sched_batch whole;
	struct spool_chunk *c = s->spool_head, *next;

	s->deferring = false;
	for (; c; c = next) {
		size_t off = 0;

		while (off + sizeof(uint64_t) <= c->used) {
			uint32_t len;
			const unsigned char *rec = c->data + off + sizeof(uint64_t);

			memcpy(&len, c->data + off, sizeof(len));
			off += (sizeof(uint64_t) + len + 7) & ~(size_t)7;
			if (len >= offsetof(struct lat_sched_batch, hop) &&
			    len < sizeof(whole) &&
			    ((const struct lat_sched_ev *)rec)->type ==
				    LAT_SCHED_EV_BATCH) {
				memcpy(&whole, rec, len);
				take_record(s, &whole, sizeof(whole));
			} else {
				take_record(s, rec, len);
			}
		}
		/* keep the reorder buffer small as we go */
		feed_pending(s, false);
		next = c->next;
		free(c);
	}
	s->spool_head = s->spool_tail = NULL;
	s->spool_bytes = 0;
}

static int on_record(void *ctx, void *data, size_t len)
{
	struct lat_sched *s = ctx;

	if (s->deferring) {
		if (spool_put(s, data, len))
			return 0;
		/* the cap: decode what is held, then go on live */
		s->deferred_max = s->spool_bytes;
		spool_decode(s);
	}
	take_record(s, data, len);
	return 0;
}

/* Feed the held records older than the reorder horizon (all: @flush). */
static void feed_pending(struct lat_sched *s, bool flush)
{
	uint64_t upto = flush ? UINT64_MAX
			      : (s->max_ts > LAT_SCHED_REORDER_NS
					 ? s->max_ts - LAT_SCHED_REORDER_NS
					 : 0);
	size_t i;

	for (i = s->head; i < s->n_pend && s->pend[i].ts <= upto; i++) {
		int rc;

		/*
		 * A drain is a burst of work on a CPU that may be one of the
		 * hot threads' (on 2 CPUs with 3 hot threads there is no
		 * other): a hot thread that became runnable meanwhile would
		 * wait for the whole burst, up to a few ms at 400k
		 * records/s. Offer the CPU every few microseconds instead.
		 */
		if (!flush && i > s->head &&
		    (i - s->head) % LAT_SCHED_YIELD_EVERY == 0)
			sched_yield();

		apply_window(s);
		rc = lat_sched_state_feed(&s->st, &s->pend[i]);
		if (rc == -ENOMEM && !s->feed_err)
			s->feed_err = rc;
		atomic_fetch_add_explicit(&s->records, 1,
					  memory_order_release);
	}
	s->head = i;
	if (s->head == s->n_pend)
		s->head = s->n_pend = 0;
}

/*
 * Does the kernel take a tp_btf program on @tp? Load a two-instruction
 * tracing program against its BTF id (bpftool's feature probe says no
 * here because it probes without an attach target).
 */
static bool tp_btf_works(const char *tp)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_RAW_TP);
	struct bpf_insn prog[2];
	int id = libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP);
	int fd;

	if (id <= 0)
		return false;
	memset(prog, 0, sizeof(prog));
	prog[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
	prog[0].dst_reg = BPF_REG_0;
	prog[1].code = BPF_JMP | BPF_EXIT;
	opts.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", prog, 2, &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The tracepoint a program is for: its name after "btf_" / "raw_". */
static const char *prog_tp(const struct bpf_program *p, bool *raw)
{
	const char *n = bpf_program__name(p);

	*raw = !strncmp(n, "raw_", 4);
	return n + 4;
}

static bool is_irq_tp(const char *tp)
{
	return strncmp(tp, "sched_", 6) != 0;
}

static int check_opts(const struct lat_sched_opts *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char path[64];
	int i;

	if (o->n_tids < 0 || o->n_tids > LAT_SCHED_MAX_TIDS ||
	    o->n_pids < 0 || o->n_pids > LAT_SCHED_MAX_TGIDS ||
	    o->n_cpus < 0 || o->n_cpus > LAT_SCHED_MAX_CPUS ||
	    (o->n_tids && !o->tids) || (o->n_pids && !o->pids) ||
	    (o->n_cpus && !o->cpus) || o->flavour < 0 || o->flavour > 2)
		return -EINVAL;
	for (i = 0; i < o->n_cpus; i++)
		if (o->cpus[i] < 0 || o->cpus[i] >= LAT_SCHED_MAX_CPUS ||
		    (ncpu > 0 && o->cpus[i] >= ncpu))
			return -EINVAL;
	for (i = 0; i < o->n_tids + o->n_pids; i++) {
		pid_t p = i < o->n_tids ? o->tids[i] : o->pids[i - o->n_tids];

		if (p <= 0)
			return -EINVAL;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		if (access(path, F_OK))
			return -ESRCH;
	}
	return 0;
}

/* The followed processes and watched CPUs: read-only data, before load. */
static void fill_rodata(struct lat_sched *s, const struct lat_sched_opts *o)
{
	int i;

	s->skel->rodata->n_tgids = (__u32)o->n_pids;
	for (i = 0; i < o->n_pids; i++)
		s->skel->rodata->tgid_list[i] = (__u32)o->pids[i];
	for (i = 0; i < o->n_cpus; i++)
		s->skel->rodata->cpu_on[o->cpus[i]] = 1;
}

static int add_tid(struct lat_sched *s, pid_t tid)
{
	__u32 k = (__u32)tid;
	__u8 one = 1;

	if (bpf_map__update_elem(s->skel->maps.tids, &k, sizeof(k), &one, 1,
				 BPF_ANY))
		return errno == E2BIG ? -ENOSPC : -errno;
	/* the map is looked up only from now on (a plain store: the
	 * programs read it with a plain load, and a switch that misses
	 * the new TID by a moment is one that happened before the call) */
	__atomic_store_n(&s->skel->bss->tids_any, 1, __ATOMIC_RELAXED);
	return 0;
}

int lat_sched_open(const struct lat_sched_opts *o, struct lat_sched **out)
{
	struct lat_sched_avail a;
	struct lat_sched *s;
	struct bpf_program *p;
	bool raw_only, irqs, raw;
	int i;
	size_t ring = o->ring_bytes ? o->ring_bytes : LAT_SCHED_RING_BYTES;
	int rc;

	*out = NULL;
	rc = check_opts(o);
	if (rc)
		return rc;
	if (ring < 4096 || (ring & (ring - 1)))
		return -EINVAL;
	lat_sched_available(&a);
	if (!a.ok)
		return -LAT_EUNSUPP;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->reader_cpu_want = s->reader_cpu = -1;
	s->reader_nice = o->reader_nice;
	s->spool_cap = o->defer_bytes;
	s->deferring = o->defer_bytes > 0;
	rc = lat_sched_state_init(&s->st, o->per_thread, o->timeline, o->cpus,
				  o->n_cpus);
	if (rc) {
		free(s);
		return rc;
	}
	s->skel = lat_sched_bpf__open();
	if (!s->skel) {
		rc = -errno ? -errno : -ENOMEM;
		goto fail;
	}
	bpf_map__set_max_entries(s->skel->maps.events, (__u32)ring);
	s->skel->rodata->wake_bytes = ring / 4;
	fill_rodata(s, o);
	raw_only = o->flavour == 2 ||
		   (o->flavour == 0 && !tp_btf_works("sched_switch"));
	/* Interrupts only matter on watched CPUs, and only where the kernel
	 * has the tracepoints (the x86 vectors, irq_work, ...). */
	irqs = o->n_cpus > 0;
	bpf_object__for_each_program(p, s->skel->obj) {
		const char *tp = prog_tp(p, &raw);
		bool on = raw == raw_only;

		if (on && is_irq_tp(tp)) {
			char name[64];

			/* entry/exit come in pairs: look up the entry. */
			snprintf(name, sizeof(name), "%.*s_entry",
				 (int)(strlen(tp) - (strstr(tp, "_exit") ? 5 : 6)),
				 tp);
			on = irqs &&
			     libbpf_find_vmlinux_btf_id(name, BPF_TRACE_RAW_TP) > 0;
		}
		bpf_program__set_autoload(p, on);
	}
	rc = lat_sched_bpf__load(s->skel);
	if (rc) {
		rc = rc < 0 ? rc : -EINVAL;
		goto fail;
	}
	for (i = 0; i < o->n_tids; i++)
		if ((rc = add_tid(s, o->tids[i])))
			goto fail;
	s->flavour = raw_only ? "raw_tp" : "tp_btf";
	s->irqs = irqs;
	*out = s;
	return 0;
fail:
	lat_sched_close(s);
	return rc;
}

static void *consumer(void *arg)
{
	struct lat_sched *s = arg;

	s->reader_tid = (pid_t)syscall(SYS_gettid);
	/* cold, before the first record: a refused pin leaves it unpinned */
	if (s->reader_cpu_want >= 0 && !lat_topo_pin_self(s->reader_cpu_want))
		s->reader_cpu = s->reader_cpu_want;
	/* refused (no CAP_SYS_NICE) is what it was: the default */
	if (s->reader_nice)
		(void)setpriority(PRIO_PROCESS, (id_t)s->reader_tid,
				  s->reader_nice);
	/* Records do not wake us (see wake_bytes in sched.bpf.c) unless the
	 * ring is a quarter full: drain every LAT_SCHED_POLL_MS (poll only
	 * consumes when woken, so consume after it either way). */
	while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
		ring_buffer__poll(s->rb, s->deferring ? LAT_SCHED_POLL_DEFER_MS
						      : LAT_SCHED_POLL_MS);
		ring_buffer__consume(s->rb);
		if (!s->deferring)
			feed_pending(s, false);
	}
	{
		struct timespec ts;

		if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
			s->reader_cpu_ns = (uint64_t)ts.tv_sec * 1000000000u +
					   (uint64_t)ts.tv_nsec;
	}
	return NULL;
}

int lat_sched_start(struct lat_sched *s)
{
	sigset_t all, old;
	int rc;

	if (s->started)
		return -EINVAL;
	rc = lat_sched_bpf__attach(s->skel);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_record,
				 s, NULL);
	if (!s->rb) {
		rc = -errno ? -errno : -ENOMEM;
		lat_sched_bpf__detach(s->skel);
		return rc;
	}
	s->st.from_ns = lat_mono_ns();
	atomic_store(&s->win_from, s->st.from_ns);
	/* The consumer takes no signals: Ctrl-C reaches the caller. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = -pthread_create(&s->thread, NULL, consumer, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Named, so that when the reader itself takes a watched CPU the
	 * attribution says so instead of blaming an anonymous 'latlab'. */
	if (!rc)
		(void)pthread_setname_np(s->thread, "latlab-sched");
	if (rc) {
		ring_buffer__free(s->rb);
		s->rb = NULL;
		lat_sched_bpf__detach(s->skel);
		return rc;
	}
	s->started = true;
	return 0;
}

int lat_sched_follow_tid(struct lat_sched *s, pid_t tid)
{
	if (tid <= 0)
		return -EINVAL;
	return add_tid(s, tid);
}

/* Runs the kernel skipped because the program was already running on
 * that CPU (recursion protection): events never seen. */
static uint64_t missed_runs(struct lat_sched *s)
{
	struct bpf_program *p;
	uint64_t sum = 0;

	bpf_object__for_each_program(p, s->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/* The hops still in the CPUs' batches once the programs are detached
 * (a batch is sent when the next switch comes, which now never will). */
static int last_batches(struct lat_sched *s)
{
	int n = libbpf_num_possible_cpus(), i;
	size_t stride = (sizeof(struct lat_sched_batch) + 7) & ~(size_t)7;
	__u32 zero = 0;
	char *v;

	if (n <= 0)
		return n ? n : -EINVAL;
	v = calloc((size_t)n, stride);
	if (!v)
		return -ENOMEM;
	if (!bpf_map__lookup_elem(s->skel->maps.batch, &zero, sizeof(zero), v,
				  (size_t)n * stride, 0))
		for (i = 0; i < n; i++)
			hold_batch(s, (const struct lat_sched_batch *)(v + (size_t)i * stride));
	free(v);
	return 0;
}

static uint64_t lost_records(struct lat_sched *s)
{
	int n = libbpf_num_possible_cpus(), i;
	__u32 zero = 0;
	uint64_t *v, sum = 0;

	if (n <= 0)
		return 0;
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return 0;
	if (!bpf_map__lookup_elem(s->skel->maps.lost, &zero, sizeof(zero), v,
				  (size_t)n * sizeof(*v), 0))
		for (i = 0; i < n; i++)
			sum += v[i];
	free(v);
	return sum;
}

int lat_sched_stop(struct lat_sched *s)
{
	uint64_t to;
	int rc;

	if (!s->started || s->stopped)
		return -EINVAL;
	atomic_store_explicit(&s->stop, true, memory_order_release);
	pthread_join(s->thread, NULL);
	to = lat_mono_ns();
	lat_sched_bpf__detach(s->skel);
	/*
	 * A program that started before the detach may still be running on
	 * another CPU, about to commit a record or append to its CPU's
	 * batch. Programs run with preemption off, so an RCU grace period
	 * (what MEMBARRIER_CMD_GLOBAL waits for) is past every one of them.
	 * Refused (nohz_full kernels), the window is those few instructions.
	 */
	(void)syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	/* What is still in the ring happened before the detach. */
	while (ring_buffer__consume(s->rb) > 0)
		;
	s->deferred_max = s->spool_bytes > s->deferred_max ? s->spool_bytes
							    : s->deferred_max;
	spool_decode(s);
	rc = last_batches(s);
	if (rc && !s->feed_err)
		s->feed_err = rc;
	feed_pending(s, true);
	apply_window(s);
	lat_sched_state_finish(&s->st, to, &s->res);
	s->res.flavour = s->flavour;
	s->res.irqs = s->irqs;
	s->res.lost = lost_records(s);
	s->res.missed = missed_runs(s);
	s->res.reader_cpu_ns = s->reader_cpu_ns;
	s->res.deferred_bytes = s->deferred_max;
	s->res.decode_ns = lat_mono_ns() - to;
	s->stopped = true;
	return s->feed_err;
}

void lat_sched_close(struct lat_sched *s)
{
	if (!s)
		return;
	if (s->started && !s->stopped) {
		atomic_store_explicit(&s->stop, true, memory_order_release);
		pthread_join(s->thread, NULL);
	}
	ring_buffer__free(s->rb);
	lat_sched_bpf__destroy(s->skel);
	lat_sched_state_destroy(&s->st);
	while (s->spool_head) {
		struct spool_chunk *next = s->spool_head->next;

		free(s->spool_head);
		s->spool_head = next;
	}
	free(s->pend);
	free(s);
}

#else /* !LATLAB_HAVE_BPF: the probe is unavailable; say so everywhere. */

int lat_sched_open(const struct lat_sched_opts *o, struct lat_sched **out)
{
	(void)o;
	*out = NULL;
	return -LAT_EUNSUPP;
}

int lat_sched_start(struct lat_sched *s)
{
	(void)s;
	return -LAT_EUNSUPP;
}

int lat_sched_follow_tid(struct lat_sched *s, pid_t tid)
{
	(void)s;
	(void)tid;
	return -LAT_EUNSUPP;
}

int lat_sched_stop(struct lat_sched *s)
{
	(void)s;
	return -LAT_EUNSUPP;
}

void lat_sched_close(struct lat_sched *s)
{
	free(s);
}

#endif

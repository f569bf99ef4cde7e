/*
 * The live scheduler probe, against threads whose scheduling the test
 * controls. Skips (exit 77, with the reason) only when the probe cannot
 * run here: built without libbpf, no BTF, no CAP_BPF+CAP_PERFMON. A probe
 * that fails to load or attach while all of those are present FAILS: a
 * verifier rejection is our bug, not a missing privilege.
 *
 *  - a thread that blocks exactly N times in nanosleep is seen with
 *    exactly N voluntary switches and N wakeup latencies (both flavours,
 *    tp_btf and raw_tp);
 *  - its switch counts agree with /proc/<tid>/status over the same
 *    window, also under preemption (within 1 %);
 *  - a thread woken behind a busy SCHED_FIFO thread on its CPU waits at
 *    least the busy thread's remaining slice, and the busy thread is named
 *    as the task it waited behind;
 *  - the silence check of a CPU held by the test's own thread agrees
 *    with the kernel's per-CPU switch counter (see test_silent_cpu).
 * This VM's kernel reports no scheduler event while its agent's threads
 * are current (perf sees none either): a wakeup and switch-in on their
 * watch are hidden. The probe counts those (hidden, chain_breaks) and the
 * checks account for them rather than hope they do not happen.
 * Windows are set by the threads themselves from CLOCK_MONOTONIC, the
 * clock the records carry, and every hand-off waits on an event (a flag,
 * a thread state, records seen), never on a sleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "t_test.h"
#include "latlab/sched.h"

#define NSLEEPS 50
#define BUSY_SLICE_NS 20000000ull /* the busy thread's slice after the wake */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static struct lat_sched *open_probe(const struct lat_sched_opts *o)
{
	struct lat_sched *s = NULL;
	int rc = lat_sched_open(o, &s);

	if (rc) {
		fprintf(stderr, "FAIL: lat_sched_open (flavour %d): %s\n",
			o->flavour, lat_strerror(rc));
		exit(T_EXIT_FAIL);
	}
	rc = lat_sched_start(s);
	if (rc) {
		fprintf(stderr, "FAIL: lat_sched_start: %s\n", lat_strerror(rc));
		exit(T_EXIT_FAIL);
	}
	return s;
}

/* ---- N nanosleeps -> N voluntary switches; /proc agreement ---- */

struct sleeper {
	struct lat_sched *s;
	int cpu;              /* pinned here, and the CPU is watched */
	int nsleeps;
	uint64_t busy_ns;     /* spin this long between sleeps (preemptions) */
	pid_t tid;
	unsigned long long vol0, invol0, vol1, invol1; /* /proc status */
	atomic_int done;
	int err;
};

/* @path's text into @buf (NUL-terminated); -1 when it cannot be read. */
static int slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static int status_counts(unsigned long long *vol, unsigned long long *invol)
{
	char buf[4096], *p;

	if (slurp("/proc/thread-self/status", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nvoluntary_ctxt_switches:");
	if (!p || sscanf(p, "\nvoluntary_ctxt_switches: %llu", vol) != 1)
		return -1;
	p = strstr(buf, "\nnonvoluntary_ctxt_switches:");
	if (!p || sscanf(p, "\nnonvoluntary_ctxt_switches: %llu", invol) != 1)
		return -1;
	return 0;
}

static void *sleeper_main(void *arg)
{
	struct sleeper *z = arg;
	struct timespec d = { 0, 200000 }; /* 200 us */
	uint64_t from, to;
	int i;

	z->tid = gettid_();
	z->err = pin(z->cpu) ? -1 : lat_sched_follow_tid(z->s, z->tid);
	if (!z->err)
		z->err = status_counts(&z->vol0, &z->invol0);
	from = mono_ns();
	lat_sched_set_window(z->s, from, 0);
	for (i = 0; i < z->nsleeps && !z->err; i++) {
		uint64_t until = mono_ns() + z->busy_ns;

		while (mono_ns() < until)
			;
		nanosleep(&d, NULL);
	}
	if (!z->err)
		z->err = status_counts(&z->vol1, &z->invol1);
	to = mono_ns();
	lat_sched_set_window(z->s, from, to);
	atomic_store(&z->done, 1);
	return NULL;
}

/*
 * The sleeper's CPU is watched: this kernel reports no switch at all when
 * the task leaving the CPU is one of the VM agent's threads, so the
 * sleeper's switch-in after such a task is missing; on a watched CPU the
 * probe sees the break in the chain of switches and places the switch-in
 * at the earliest possible time (lat_sched_result.inferred).
 */
static void run_sleeper(int flavour, int nsleeps, uint64_t busy_ns,
			struct sleeper *z, struct lat_sched **sp)
{
	struct lat_sched_opts o;
	pthread_t th;
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;

	memset(&o, 0, sizeof(o));
	o.per_thread = true;
	o.flavour = flavour;
	o.cpus = &cpu;
	o.n_cpus = 1;
	memset(z, 0, sizeof(*z));
	z->cpu = cpu;
	z->s = *sp = open_probe(&o);
	z->nsleeps = nsleeps;
	z->busy_ns = busy_ns;
	T_EQ_I64(pthread_create(&th, NULL, sleeper_main, z), 0);
	pthread_join(th, NULL);
	T_EQ_I64(z->err, 0);
	T_EQ_I64(lat_sched_stop(*sp), 0);
}

static void test_nanosleeps(int flavour)
{
	struct sleeper z;
	struct lat_sched *s;
	const struct lat_sched_result *r;
	const struct lat_sched_thread *t;

	run_sleeper(flavour, NSLEEPS, 0, &z, &s);
	r = lat_sched_result(s);
	t = lat_sched_find_thread(r, z.tid);
	T_CHECK(t != NULL);
	if (t) {
		printf("%s: %d nanosleeps -> %llu voluntary, %llu involuntary "
		       "switches, %lld wakeup latencies, %llu hidden by the "
		       "kernel (%llu inferred) (/proc: %llu, %llu)\n",
		       r->flavour, NSLEEPS,
		       (unsigned long long)t->switches_vol,
		       (unsigned long long)t->switches_invol,
		       (long long)t->rq_wakeup->total_count,
		       (unsigned long long)t->hidden,
		       (unsigned long long)r->inferred,
		       z.vol1 - z.vol0, z.invol1 - z.invol0);
		T_EQ_I64(t->switches_vol, NSLEEPS);
		/* every sleep is either measured, or counted as hidden by
		 * the kernel (on this VM its agent threads are not traced) */
		T_EQ_I64(t->rq_wakeup->total_count + (int64_t)t->hidden,
			 NSLEEPS);
		T_CHECK(t->blocked->total_count + (int64_t)t->hidden >= NSLEEPS);
		T_EQ_I64(z.vol1 - z.vol0, NSLEEPS);
	}
	T_EQ_I64(r->lost, 0);
	T_CHECK(!strcmp(r->flavour, flavour == 2 ? "raw_tp" : "tp_btf"));
	lat_sched_close(s);
}

/* Busy between sleeps so that the loaded machine preempts it too. */
static void test_proc_agreement(void)
{
	struct sleeper z;
	struct lat_sched *s;
	const struct lat_sched_thread *t;
	long long pv, pi, bv, bi, tot;

	run_sleeper(0, 200, 300000, &z, &s);
	t = lat_sched_find_thread(lat_sched_result(s), z.tid);
	T_CHECK(t != NULL);
	if (t) {
		pv = (long long)(z.vol1 - z.vol0);
		pi = (long long)(z.invol1 - z.invol0);
		bv = (long long)t->switches_vol;
		bi = (long long)t->switches_invol;
		tot = pv + pi;
		printf("probe vs /proc/<tid>/status: voluntary %lld vs %lld, "
		       "involuntary %lld vs %lld\n", bv, pv, bi, pi);
		/* within 1 % of all switches (at least exact to 1) */
		T_CHECK(llabs(bv - pv) * 100 <= tot || llabs(bv - pv) <= 1);
		T_CHECK(llabs(bi - pi) * 100 <= tot || llabs(bi - pi) <= 1);
	}
	lat_sched_close(s);
}

/*
 * Two followed threads pinned to one watched CPU hand it to each other
 * with sched_yield: the switches the kernel sends in batches (hand-offs
 * between our own threads, sched_event.h). Each thread's count from the
 * probe agrees with its /proc status within 1 % (the switches between a
 * thread's being followed and its first /proc reading, and its exit, are
 * the slack).
 */
#define NYIELDS 20000

struct yielder {
	struct lat_sched *s;
	int cpu;
	atomic_int *ready;
	atomic_bool *go;
	pid_t tid;
	unsigned long long vol0, invol0, vol1, invol1;
	int err;
};

static void *yielder_main(void *arg)
{
	struct yielder *y = arg;
	int i;

	y->tid = gettid_();
	y->err = pin(y->cpu) ? -1 : lat_sched_follow_tid(y->s, y->tid);
	if (!y->err)
		y->err = status_counts(&y->vol0, &y->invol0);
	atomic_fetch_add(y->ready, 1);
	while (!atomic_load(y->go))
		sched_yield();
	for (i = 0; i < NYIELDS && !y->err; i++)
		sched_yield();
	if (!y->err)
		y->err = status_counts(&y->vol1, &y->invol1);
	return NULL;
}

static void test_yield_agreement(int flavour)
{
	struct lat_sched_opts o;
	struct lat_sched *s;
	struct yielder y[2];
	pthread_t th[2];
	atomic_int ready = 0;
	atomic_bool go = false;
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1, i;
	uint64_t from;

	memset(&o, 0, sizeof(o));
	o.per_thread = true;
	o.flavour = flavour;
	o.cpus = &cpu;
	o.n_cpus = 1;
	s = open_probe(&o);
	/* the window opens before either thread reads its /proc status:
	 * their waits for the start (yields to each other, as many as the
	 * machine's speed makes them) are inside both counts */
	from = mono_ns();
	lat_sched_set_window(s, from, 0);
	for (i = 0; i < 2; i++) {
		memset(&y[i], 0, sizeof(y[i]));
		y[i].s = s;
		y[i].cpu = cpu;
		y[i].ready = &ready;
		y[i].go = &go;
		T_EQ_I64(pthread_create(&th[i], NULL, yielder_main, &y[i]), 0);
	}
	while (atomic_load(&ready) < 2)
		sched_yield();
	atomic_store(&go, true);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	lat_sched_set_window(s, from, mono_ns());
	T_EQ_I64(lat_sched_stop(s), 0);
	T_EQ_I64(lat_sched_result(s)->lost, 0);
	for (i = 0; i < 2; i++) {
		const struct lat_sched_thread *t =
			lat_sched_find_thread(lat_sched_result(s), y[i].tid);
		long long pv = (long long)(y[i].vol1 - y[i].vol0);
		long long pi = (long long)(y[i].invol1 - y[i].invol0);
		long long tot = pv + pi;

		T_EQ_I64(y[i].err, 0);
		T_CHECK(t != NULL);
		if (!t)
			continue;
		printf("flavour %d, yielder %d: probe vs /proc/<tid>/status: "
		       "voluntary %llu vs %lld, involuntary %llu vs %lld\n",
		       flavour, i, (unsigned long long)t->switches_vol, pv,
		       (unsigned long long)t->switches_invol, pi);
		/* the threads did hand the CPU to each other */
		T_CHECK(pi >= NYIELDS / 10);
		T_CHECK(llabs((long long)t->switches_invol - pi) * 100 <= tot);
		T_CHECK(llabs((long long)t->switches_vol - pv) * 100 <= tot ||
			llabs((long long)t->switches_vol - pv) <= 1);
	}
	lat_sched_close(s);
}

/* ---- runnable behind a busy thread ---- */

struct behind {
	int cpu;
	int pipefd[2];
	pid_t waiter_tid, busy_tid;
	atomic_int waiter_ready, busy_spinning;
	atomic_uint_fast64_t wake_done_ns; /* 0 until the waker wrote */
	uint64_t on_cpu_ns;
	int err;
};

static void *waiter_main(void *arg)
{
	struct behind *b = arg;
	char c;

	if (pin(b->cpu))
		b->err = 1;
	b->waiter_tid = gettid_();
	atomic_store(&b->waiter_ready, 1);
	if (read(b->pipefd[0], &c, 1) != 1)
		b->err = 2;
	b->on_cpu_ns = mono_ns();
	return NULL;
}

/*
 * SCHED_FIFO at the top priority: a CFS task cannot take the CPU from it,
 * and neither can another RT thread on this shared machine (other tests
 * run SCHED_FIFO threads too). Held for tens of milliseconds, far below
 * the 950 ms RT budget per second.
 */
#define RT_PRIO 99

static void *busy_main(void *arg)
{
	struct behind *b = arg;
	struct sched_param sp = { .sched_priority = RT_PRIO };
	uint64_t w;

	if (pin(b->cpu) ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		b->err = 3;
		atomic_store(&b->busy_spinning, 1);
		return NULL;
	}
	b->busy_tid = gettid_();
	atomic_store(&b->busy_spinning, 1);
	/* Hold the CPU until BUSY_SLICE_NS after the waiter was woken. */
	while (!(w = atomic_load(&b->wake_done_ns)))
		;
	while (mono_ns() < w + BUSY_SLICE_NS)
		;
	return NULL;
}

/* Wait until thread @tid of this process is asleep ('S' in its stat). */
static int wait_sleeping(pid_t tid)
{
	char path[64], buf[512], *p;
	uint64_t give_up = mono_ns() + 5000000000ull;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	while (mono_ns() < give_up) {
		if (slurp(path, buf, sizeof(buf)))
			return -1;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return 0;
		sched_yield();
	}
	return -1;
}

/*
 * One attempt; returns false when the kernel hid the evidence (a switch
 * on the busy CPU went unreported, so who held it is unknown for that
 * stretch) and the attempt proves nothing either way.
 */
static bool behind_busy_once(int cpu, int other, bool last)
{
	struct lat_sched_opts o;
	struct lat_sched *s;
	const struct lat_sched_result *r;
	const struct lat_sched_thread *t;
	struct behind b;
	pthread_t tw, tb;
	int i, found = -1;
	bool hidden;

	memset(&b, 0, sizeof(b));
	b.cpu = cpu;
	T_EQ_I64(pipe(b.pipefd), 0);
	T_EQ_I64(pin(other), 0); /* the waker stays off the busy CPU */
	memset(&o, 0, sizeof(o));
	o.per_thread = true;
	o.cpus = &cpu;
	o.n_cpus = 1;
	s = open_probe(&o);
	T_EQ_I64(pthread_create(&tw, NULL, waiter_main, &b), 0);
	while (!atomic_load(&b.waiter_ready))
		sched_yield();
	T_EQ_I64(lat_sched_follow_tid(s, b.waiter_tid), 0);
	T_EQ_I64(wait_sleeping(b.waiter_tid), 0);
	T_EQ_I64(pthread_create(&tb, NULL, busy_main, &b), 0);
	while (!atomic_load(&b.busy_spinning))
		sched_yield();
	if (b.err == 3) {
		fprintf(stderr, "FAIL: cannot make the busy thread SCHED_FIFO "
			"on cpu %d\n", cpu);
		t_failures++;
	}
	/* The wakeup happens inside write(); the busy thread then holds the
	 * CPU for BUSY_SLICE_NS more, measured from after it returned. */
	T_EQ_I64(write(b.pipefd[1], "w", 1), 1);
	atomic_store(&b.wake_done_ns, mono_ns());
	pthread_join(tb, NULL);
	pthread_join(tw, NULL);
	T_EQ_I64(lat_sched_stop(s), 0);
	r = lat_sched_result(s);
	t = lat_sched_find_thread(r, b.waiter_tid);
	T_CHECK(t != NULL);
	if (t) {
		for (i = 0; i < t->waited_behind.n; i++)
			if (t->waited_behind.top[i].pid == b.busy_tid)
				found = i;
		printf("woken behind a busy FIFO thread on cpu %d: rq latency "
		       "max %.3f ms (busy slice %.3f ms); waited behind %s "
		       "(%d) for %.3f ms\n", cpu,
		       (double)lat_hist_max(t->rq_wakeup) / 1e6,
		       BUSY_SLICE_NS / 1e6,
		       found >= 0 ? t->waited_behind.top[found].comm : "?",
		       found >= 0 ? (int)t->waited_behind.top[found].pid : -1,
		       found >= 0 ? t->waited_behind.top[found].ns / 1e6 : 0.0);
		T_EQ_I64(t->rq_wakeup->total_count + (int64_t)t->hidden >= 1,
			 1);
		if (t->rq_wakeup->total_count)
			T_CHECK(lat_hist_max(t->rq_wakeup) >=
				(int64_t)BUSY_SLICE_NS);
	}
	hidden = r->chain_breaks > 0 || !t || t->hidden;
	if (hidden && !last) {
		printf("  the kernel left %llu switch(es) on cpu %d unreported: "
		       "trying again\n", (unsigned long long)r->chain_breaks,
		       cpu);
	} else if (t) {
		T_CHECK(found >= 0);
		if (found >= 0)
			T_CHECK(t->waited_behind.top[found].ns >= BUSY_SLICE_NS);
	}
	T_EQ_I64(r->lost, 0);
	lat_sched_close(s);
	close(b.pipefd[0]);
	close(b.pipefd[1]);
	return !hidden;
}

static void test_behind_busy(int cpu, int other)
{
	for (int i = 0; i < 5; i++)
		if (behind_busy_once(cpu, other, i == 4))
			return;
}

/*
 * ---- the silence check on a CPU held by our own thread ----
 *
 * On a dedicated machine a reserved CPU left idle stays silent. This VM is
 * shared by parallel jobs: the load balancer moves their work onto any
 * idle CPU, other tests run SCHED_FIFO threads, and the kernel's fair
 * server gives CFS tasks 5 % of a CPU even under RT load. So the test
 * holds the CPU with a SCHED_FIFO thread of its own and checks the
 * verdict against the kernel's own per-CPU context-switch counter
 * (perf_event_open(pid -1, cpu N)) over the same window: the probe sees
 * every switch the kernel counted, a window without a switch is
 * reported silent, and every intrusion is one of those switches.
 * (A synthetic idle-only CPU is checked silent in test_sched.c.)
 */
struct holder {
	struct lat_sched *s;
	int cpu;
	pid_t tid;
	atomic_int running, stop;
	int err;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;
	struct sched_param sp = { .sched_priority = RT_PRIO };

	h->tid = gettid_();
	/* Followed before it moves to its CPU, so that switch-in is ours. */
	if (lat_sched_follow_tid(h->s, h->tid) || pin(h->cpu) ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		h->err = 1;
	atomic_store(&h->running, 1);
	while (!atomic_load(&h->stop))
		;
	return NULL;
}

static int cpu_switch_counter(int cpu)
{
	struct perf_event_attr pa;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	pa.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &pa, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static void test_silent_cpu(int cpu, int other)
{
	struct lat_sched_opts o;
	struct lat_sched *s;
	const struct lat_sched_result *r;
	const struct lat_sched_cpu *c;
	struct holder h;
	pthread_t th;
	uint64_t base, give_up, from, to, kernel_sw = 0, irqs = 0;
	int fd, k;

	memset(&h, 0, sizeof(h));
	h.cpu = cpu;
	T_EQ_I64(pin(other), 0);
	fd = cpu_switch_counter(cpu);
	if (fd < 0) {
		fprintf(stderr, "FAIL: per-CPU switch counter: %s\n",
			strerror(errno));
		t_failures++;
		return;
	}
	memset(&o, 0, sizeof(o));
	o.cpus = &cpu;
	o.n_cpus = 1;
	s = h.s = open_probe(&o);
	T_EQ_I64(pthread_create(&th, NULL, holder_main, &h), 0);
	while (!atomic_load(&h.running))
		sched_yield();
	from = mono_ns();
	lat_sched_set_window(s, from, 0);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* The window lasts until the probe has seen ten more records: only
	 * the held CPU makes any now (its switches, timer ticks, IPIs). */
	base = lat_sched_records(s);
	give_up = mono_ns() + 2000000000ull;
	while (lat_sched_records(s) < base + 10 && mono_ns() < give_up)
		sched_yield();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	to = mono_ns();
	lat_sched_set_window(s, from, to);
	T_EQ_I64(read(fd, &kernel_sw, sizeof(kernel_sw)), sizeof(kernel_sw));
	close(fd);
	atomic_store(&h.stop, 1);
	pthread_join(th, NULL);
	T_EQ_I64(h.err, 0);
	T_EQ_I64(lat_sched_stop(s), 0);
	r = lat_sched_result(s);
	c = lat_sched_find_cpu(r, cpu);
	T_CHECK(c != NULL);
	if (c) {
		printf("held cpu %d for %.1f ms: kernel counted %llu switches, "
		       "the probe %llu: ", cpu, (double)(to - from) / 1e6,
		       (unsigned long long)kernel_sw,
		       (unsigned long long)c->switches);
		lat_sched_print_cpus(stdout, r);
		/* The probe's window brackets the counter's by a few us. */
		T_CHECK(c->switches >= kernel_sw && c->switches <= kernel_sw + 2);
		T_CHECK(c->intrusions <= c->switches);
		T_EQ_I64(lat_sched_cpu_silent(c), c->foreign_ns == 0);
		if (c->switches == 0) {
			T_CHECK(lat_sched_cpu_silent(c));
			T_CHECK(c->own_ns > 0); /* held by our thread all along */
		}
		/* The window ended on ten records: interrupts (all kinds
		 * counted apart from tasks) or switches. */
		for (k = 0; k < LAT_SCHED_NIRQKIND; k++)
			irqs += c->irq_count[k];
		for (k = 0; k < LAT_SCHED_NSOFTIRQ; k++)
			irqs += c->softirq_count[k];
		T_CHECK(irqs + c->switches > 0);
	}
	T_EQ_I64(r->lost, 0);
	lat_sched_close(s);
}

int main(void)
{
	struct lat_sched_avail a;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	lat_sched_available(&a);
	if (!a.ok)
		T_SKIP("scheduler probe unavailable: %s", a.reason);
	test_nanosleeps(1); /* tp_btf */
	test_nanosleeps(2); /* raw_tp */
	test_proc_agreement();
	test_yield_agreement(1);
	test_yield_agreement(2);
	if (ncpu >= 2) {
		test_behind_busy(1, 0);
		test_silent_cpu(1, 0);
	} else {
		printf("one CPU: the busy-thread and silence checks need two\n");
	}
	T_DONE();
}

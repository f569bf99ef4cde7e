/*
 * bench_switch_clock: why a thread's CPU clock and perf's task-clock
 * disagree, measured. Two threads pinned to one CPU hand the CPU to each
 * other N times (futex hand-off or sched_yield); each thread reads its
 * CPU clock (CLOCK_THREAD_CPUTIME_ID, the scheduler's sum_exec_runtime)
 * and its counters (lat_perf: task-clock and context switches) around
 * the same window. The gap, CPU clock minus task-clock summed over both
 * threads, is fitted against the context switches counted:
 *
 *   gap = intercept + slope * switches
 *
 * Controls in the same run: one thread alone yielding N times (the same
 * syscalls, no switch), and the hand-off with the /proc sources instead
 * of perf (task-clock then IS sum_exec_runtime: the gap must vanish, and
 * the wall time per switch shows what perf's own sched-in/out costs).
 * And one counted thread against another process on the same CPU,
 * yielding to it or preempted by it every time it wakes from a 50 us
 * sleep (the counted thread spins for rounds x 5 us there).
 *
 * Why a gap at all (kernel/sched/core.c, fair.c; kernel/events/core.c):
 * the scheduler charges sum_exec_runtime from rq_clock_task, which
 * __schedule reads once (update_rq_clock) before it picks the next task;
 * the next task's exec_start is that reading, so the whole switch is
 * charged to the task switched TO. perf's task-clock advances only while
 * the task's perf context is scheduled in: it stops in
 * prepare_task_switch (perf_event_task_sched_out) and restarts in
 * finish_task_switch (perf_event_task_sched_in). Between two counted
 * threads the stretch between those two, switch_mm + switch_to + perf's
 * own bookkeeping, is in the CPU clock of one and the task-clock of
 * neither: the gap grows by that much per switch. Against an uncounted
 * task only one side of each switch is ours, and the sign can flip: a
 * wakeup that preempts us sets need_resched and asks __schedule to skip
 * its clock update (wakeup_preempt: rq_clock_skip_update, "save a useless
 * back to back clock update"), so the scheduler charges the wakee from
 * the moment of the wakeup while perf keeps charging us until the switch
 * -- the interrupt's tail and the way out to __schedule count in our
 * task-clock and in the wakee's CPU clock.
 *
 * usage: bench_switch_clock [cpu [reps]]   (defaults: the last usable
 * CPU, 3). Prints one line per run, then the fits. Needs perf_event_open
 * for task-clock (any user at paranoid <= 2); says so and exits 77 if not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latlab/bench.h"
#include "latlab/perfctr.h"
#include "latlab/topo.h"

enum mode {
	ALONE_YIELD,     /* one counted thread yields, nobody to switch to */
	PAIR_FUTEX,      /* two counted threads hand the CPU over */
	PAIR_YIELD,      /* two counted threads yield to each other */
	PAIR_FUTEX_PROC, /* PAIR_FUTEX counted from /proc instead of perf */
	FOREIGN_YIELD,   /* one counted thread yields to another process */
	FOREIGN_WAKE,    /* one counted thread spins; another process wakes
			  * every 50 us on the same CPU and preempts it */
	NMODES
};

static const char *const mode_name[] = {
	[ALONE_YIELD] = "alone-yield", [PAIR_FUTEX] = "pair-futex",
	[PAIR_YIELD] = "pair-yield", [PAIR_FUTEX_PROC] = "futex-proc",
	[FOREIGN_YIELD] = "foreign-yld", [FOREIGN_WAKE] = "foreign-wake",
};

struct shared {
	enum mode mode;
	long rounds;
	int cpu;
	int nthreads;
	pthread_barrier_t start;
	_Atomic int turn;
};

struct side {
	struct shared *sh;
	int me;
	int err;               /* 0 or a negative code */
	uint64_t cpu_clock_ns; /* CLOCK_THREAD_CPUTIME_ID over the window */
	uint64_t task_clock_ns;
	uint64_t switches;
	double wall_ns;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic int *w, int seen)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The hand-off: wait for our turn, give it to the other thread. */
static void hand_off(struct shared *sh, int me)
{
	int other = 1 - me;

	for (long i = 0; i < sh->rounds; i++) {
		int t;

		while ((t = atomic_load(&sh->turn)) != me)
			futex_wait(&sh->turn, t);
		atomic_store(&sh->turn, other);
		futex_wake(&sh->turn);
	}
}

static void *side_main(void *arg)
{
	struct side *s = arg;
	struct shared *sh = s->sh;
	struct lat_perf perf;
	struct lat_perf_reading r;
	uint64_t c0, c1;
	double w0;
	int flags = sh->mode == PAIR_FUTEX_PROC ? LAT_PERF_NO_PERF : 0;

	s->err = lat_topo_pin_self(sh->cpu);
	if (!s->err)
		s->err = lat_perf_open(&perf, 0, flags);
	pthread_barrier_wait(&sh->start);
	if (s->err)
		return NULL;
	/* the CPU clock's window sits just inside the counters' window */
	s->err = lat_perf_start(&perf);
	w0 = lat_bench_now_ns();
	c0 = thread_cpu_ns();
	if (sh->mode == FOREIGN_WAKE)
		/* spin for rounds x 5 us: the preemptions come to us */
		while (lat_bench_now_ns() - w0 < 5e3 * (double)sh->rounds)
			lat_bench_clobber();
	else if (sh->mode != PAIR_FUTEX && sh->mode != PAIR_FUTEX_PROC)
		for (long i = 0; i < sh->rounds; i++)
			sched_yield();
	else
		hand_off(sh, s->me);
	c1 = thread_cpu_ns();
	s->wall_ns = lat_bench_now_ns() - w0;
	if (!s->err)
		s->err = lat_perf_read(&perf, &r);
	lat_perf_close(&perf);
	if (s->err)
		return NULL;
	if (!lat_perf_has(&r, LAT_PERF_TASK_CLOCK) ||
	    !lat_perf_has(&r, LAT_PERF_CTX_SWITCHES)) {
		s->err = -ENOTSUP;
		return NULL;
	}
	s->cpu_clock_ns = c1 - c0;
	s->task_clock_ns = r.value[LAT_PERF_TASK_CLOCK];
	s->switches = r.value[LAT_PERF_CTX_SWITCHES];
	return NULL;
}

/* Steal ticks of @cpu from /proc/stat (the 8th value), 0 if unknown. */
static uint64_t steal_ticks(int cpu)
{
	char want[16], line[512];
	unsigned long long v[8] = { 0 };
	FILE *in = fopen("/proc/stat", "r");

	if (!in)
		return 0;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), in))
		if (!strncmp(line, want, strlen(want))) {
			sscanf(line + strlen(want),
			       "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
			break;
		}
	fclose(in);
	return v[7];
}

struct point {
	enum mode mode;
	long rounds;
	double switches, gap_ns, cpu_ns, task_ns, wall_ns, steal_ticks;
};

static int run_once(enum mode mode, long rounds, int cpu, struct point *o)
{
	struct shared sh = { .mode = mode, .rounds = rounds, .cpu = cpu };
	struct side side[2];
	pthread_t th[2];
	uint64_t st0;
	int rc = 0;

	pid_t child = -1;

	sh.nthreads = mode == PAIR_FUTEX || mode == PAIR_YIELD ||
				      mode == PAIR_FUTEX_PROC
			      ? 2 : 1;
	if (mode == FOREIGN_YIELD || mode == FOREIGN_WAKE) {
		/* another process (its own mm) on the same CPU, yielding or
		 * sleeping 50 us at a time; it says when it is pinned */
		int ready[2];
		char c = 0;

		if (pipe(ready))
			return -errno;
		child = fork();
		if (child < 0)
			return -errno;
		if (child == 0) {
			struct timespec nap = { 0, 50000 };

			lat_topo_pin_self(cpu);
			if (write(ready[1], &c, 1) != 1)
				_exit(1);
			for (;;)
				if (mode == FOREIGN_YIELD)
					sched_yield();
				else
					nanosleep(&nap, NULL);
		}
		if (read(ready[0], &c, 1) != 1)
			c = 1;
		close(ready[0]);
		close(ready[1]);
		if (c) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			return -ECHILD;
		}
	}
	pthread_barrier_init(&sh.start, NULL, (unsigned)sh.nthreads);
	st0 = steal_ticks(cpu);
	for (int i = 0; i < sh.nthreads; i++) {
		side[i] = (struct side){ .sh = &sh, .me = i };
		if (pthread_create(&th[i], NULL, side_main, &side[i])) {
			if (child > 0)
				kill(child, SIGKILL), waitpid(child, NULL, 0);
			return -EAGAIN; /* before the barrier: nothing waits */
		}
	}
	*o = (struct point){ .mode = mode, .rounds = rounds };
	for (int i = 0; i < sh.nthreads; i++) {
		pthread_join(th[i], NULL);
		if (side[i].err && !rc)
			rc = side[i].err;
		o->switches += (double)side[i].switches;
		o->cpu_ns += (double)side[i].cpu_clock_ns;
		o->task_ns += (double)side[i].task_clock_ns;
		if (side[i].wall_ns > o->wall_ns)
			o->wall_ns = side[i].wall_ns;
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	o->steal_ticks = (double)(steal_ticks(cpu) - st0);
	o->gap_ns = o->cpu_ns - o->task_ns;
	pthread_barrier_destroy(&sh.start);
	return rc;
}

struct line {
	double a, b;       /* intercept (ns), slope (ns per switch) */
	double se_a, se_b; /* their standard errors */
	double r2;
};

/* Least squares gap = a + b * switches over the points of @mode. */
static void fit(const struct point *p, int n, enum mode mode, struct line *l)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, k = 0;

	for (int i = 0; i < n; i++) {
		if (p[i].mode != mode)
			continue;
		sx += p[i].switches;
		sy += p[i].gap_ns;
		sxx += p[i].switches * p[i].switches;
		sxy += p[i].switches * p[i].gap_ns;
		syy += p[i].gap_ns * p[i].gap_ns;
		k++;
	}
	{
		double vx = sxx - sx * sx / k, vy = syy - sy * sy / k;
		double cxy = sxy - sx * sy / k;
		double res = 0;

		l->b = vx > 0 ? cxy / vx : 0;
		l->a = (sy - l->b * sx) / k;
		l->r2 = vx > 0 && vy > 0 ? cxy * cxy / (vx * vy) : 0;
		for (int i = 0; i < n; i++)
			if (p[i].mode == mode) {
				double e = p[i].gap_ns - l->a -
					   l->b * p[i].switches;

				res += e * e;
			}
		res = k > 2 ? res / (k - 2) : 0;
		l->se_b = vx > 0 ? sqrt(res / vx) : 0;
		l->se_a = vx > 0 ? sqrt(res * (1 / k + sx * sx / k / k / vx))
				 : sqrt(res / k);
	}
}

#define MAX_POINTS 128

int main(int argc, char **argv)
{
	static const long rounds[] = { 0, 5000, 20000, 50000, 100000 };
	static const enum mode modes[] = { ALONE_YIELD, PAIR_FUTEX,
					   PAIR_YIELD, PAIR_FUTEX_PROC,
					   FOREIGN_YIELD, FOREIGN_WAKE };
	struct point pt[MAX_POINTS];
	struct lat_topo topo;
	int n = 0, cpu = argc > 1 ? atoi(argv[1]) : -1;
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	double wall_per_sw[2] = { 0, 0 }, sw_at_max[2] = { 0, 0 };
	int rc;

	if (reps < 1 || reps > 4) {
		fprintf(stderr, "usage: bench_switch_clock [cpu [reps 1..4]]\n");
		return 2;
	}
	if (cpu < 0) {
		if ((rc = lat_topo_load(&topo, NULL, NULL))) {
			fprintf(stderr, "bench_switch_clock: %s\n",
				lat_strerror(rc));
			return 1;
		}
		for (int c = 0; c < topo.n_cpus; c++)
			if (topo.cpu[c].online && topo.cpu[c].allowed)
				cpu = c;
	}
	printf("two threads pinned to cpu %d; gap = thread CPU clocks - "
	       "task-clock, summed over the threads\n", cpu);
	printf("%-12s %7s %9s %12s %12s %11s %9s %8s %6s\n", "mode", "rounds",
	       "switches", "cpu clock", "task-clock", "gap", "gap/sw",
	       "wall/sw", "steal ticks");
	for (int rep = 0; rep < reps; rep++)
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
			for (size_t k = 0; k < sizeof(rounds) / sizeof(rounds[0]);
			     k++) {
				struct point *p = &pt[n];

				rc = run_once(modes[m], rounds[k], cpu, p);
				if (rc == -ENOTSUP) {
					printf("SKIP: task-clock or context "
					       "switches not countable here\n");
					return 77;
				}
				if (rc) {
					fprintf(stderr, "bench_switch_clock: "
						"%s\n", lat_strerror(rc));
					return 1;
				}
				printf("%-12s %7ld %9.0f %9.3f ms %9.3f ms "
				       "%8.1f us %6.0f ns %5.0f ns %6.0f\n",
				       mode_name[p->mode], p->rounds,
				       p->switches, p->cpu_ns / 1e6,
				       p->task_ns / 1e6, p->gap_ns / 1e3,
				       p->switches > 0 ? p->gap_ns / p->switches
						       : 0,
				       p->switches > 0 && p->mode != ALONE_YIELD
					       ? p->wall_ns / p->switches
					       : 0,
				       p->steal_ticks);
				if (p->rounds == rounds[4] &&
				    (p->mode == PAIR_FUTEX ||
				     p->mode == PAIR_FUTEX_PROC)) {
					int w = p->mode == PAIR_FUTEX_PROC;

					wall_per_sw[w] += p->wall_ns;
					sw_at_max[w] += p->switches;
				}
				n++;
			}
	printf("fit gap = intercept + slope * switches (least squares, %d "
	       "runs per mode):\n", n / NMODES);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct line l;

		fit(pt, n, modes[m], &l);
		printf("  %-12s slope %7.1f +- %5.1f ns/switch  intercept "
		       "%8.1f +- %6.1f us  r^2 %.5f\n", mode_name[modes[m]],
		       l.b, l.se_b, l.a / 1e3, l.se_a / 1e3, l.r2);
	}
	if (sw_at_max[0] > 0 && sw_at_max[1] > 0) {
		double on = wall_per_sw[0] / sw_at_max[0];
		double off = wall_per_sw[1] / sw_at_max[1];

		printf("wall time per switch, %ld hand-offs: %.0f ns with perf "
		       "counters, %.0f ns with /proc sources (x%.3f)\n",
		       rounds[4], on, off, on / off);
	}
	return 0;
}

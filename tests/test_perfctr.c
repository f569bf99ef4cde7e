/*
 * Description: per-thread counters. Counters that cannot open here say
 * why and never read as 0; the exclude_kernel trap is not taken; relations
 * hold (task-clock follows the thread's CPU time, touching fresh pages
 * counts minor faults, sleeping counts context switches) whichever source
 * serves them; another thread can be counted by tid.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latlab/perfctr.h"
#include "t_test.h"

#define PAGES 512

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Burn at least @ns of this thread's CPU time; returns the time burnt. */
static uint64_t burn_cpu(uint64_t ns)
{
	volatile uint64_t sink = 0;
	uint64_t t0 = thread_cpu_ns(), t;

	do {
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i;
		t = thread_cpu_ns();
	} while (t - t0 < ns);
	return t - t0;
}

static void touch_fresh_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)page * PAGES;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	T_CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	madvise(m, len, MADV_NOHUGEPAGE); /* one fault per small page */
	for (size_t off = 0; off < len; off += (size_t)page)
		((volatile char *)m)[off] = 1;
	munmap(m, len);
}

static void sleep_briefly(int times)
{
	struct timespec ts = { 0, 200000 };

	for (int i = 0; i < times; i++)
		nanosleep(&ts, NULL);
}

/* Every counter is either available or carries a reason; n/a reads 0. */
static void check_honest(const struct lat_perf *p,
			 const struct lat_perf_reading *r)
{
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		if (p->slot[c].source == LAT_PERF_SRC_NONE) {
			T_CHECK(p->slot[c].reason[0] != '\0');
			T_CHECK(!lat_perf_has(r, c));
		}
		if (!lat_perf_has(r, c))
			T_EQ_I64(r->value[c], 0);
		/* The trap: user-only cs/migration events always read 0. */
		if ((p->flags & LAT_PERF_USER_ONLY) &&
		    (c == LAT_PERF_CTX_SWITCHES || c == LAT_PERF_MIGRATIONS))
			T_CHECK(p->slot[c].source != LAT_PERF_SRC_PERF);
	}
	if (!lat_perf_has(r, LAT_PERF_CYCLES))
		T_CHECK(lat_perf_ipc(r) < 0);
}

/* The relations, on the calling thread, with the given flags. */
static void check_relations(int flags)
{
	struct lat_perf p;
	struct lat_perf_reading r0, r1, r2, r3;
	uint64_t burnt;

	T_EQ_I64(lat_perf_open(&p, 0, flags), 0);
	T_EQ_I64(lat_perf_read(&p, &r0), -EINVAL); /* not started */
	T_EQ_I64(lat_perf_start(&p), 0);
	T_EQ_I64(lat_perf_read(&p, &r0), 0);
	burnt = burn_cpu(30000000);
	T_EQ_I64(lat_perf_read(&p, &r1), 0);
	touch_fresh_pages();
	T_EQ_I64(lat_perf_read(&p, &r2), 0);
	sleep_briefly(5);
	T_EQ_I64(lat_perf_read(&p, &r3), 0);
	check_honest(&p, &r3);

	/* task-clock and minor faults have a source everywhere Linux runs. */
	T_CHECK(lat_perf_has(&r1, LAT_PERF_TASK_CLOCK));
	T_CHECK(lat_perf_has(&r2, LAT_PERF_MINOR_FAULTS));
	T_CHECK(lat_perf_has(&r3, LAT_PERF_CTX_SWITCHES));
	/*
	 * /proc's on-CPU time lags by up to a scheduler tick; perf's does
	 * not. Half the burnt time is a bound no source can miss.
	 */
	T_CHECK(r1.value[LAT_PERF_TASK_CLOCK] - r0.value[LAT_PERF_TASK_CLOCK]
		>= burnt / 2);
	T_CHECK(r2.value[LAT_PERF_MINOR_FAULTS] -
		r1.value[LAT_PERF_MINOR_FAULTS] >= PAGES);
	T_CHECK(r3.value[LAT_PERF_CTX_SWITCHES] -
		r2.value[LAT_PERF_CTX_SWITCHES] >= 5);
	/* Counters only grow. */
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++)
		if (lat_perf_has(&r0, c) && lat_perf_has(&r3, c))
			T_CHECK(r3.value[c] >= r0.value[c]);
	lat_perf_close(&p);
	lat_perf_close(&p); /* idempotent */
}

static void test_sources_here(void)
{
	struct lat_perf p;

	T_EQ_I64(lat_perf_open(&p, 0, 0), 0);
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++)
		printf("  %-13s %-5s %s\n", lat_perf_name(c),
		       lat_perf_source_name(p.slot[c].source),
		       lat_perf_reason(&p, c));
	/* Hardware counters come only from perf; no PMU means a reason. */
	for (int c = LAT_PERF_CYCLES; c <= LAT_PERF_LLC_MISSES; c++)
		T_CHECK(p.slot[c].source != LAT_PERF_SRC_PROC);
	lat_perf_close(&p);
}

static void test_bad_args(void)
{
	struct lat_perf p;

	T_EQ_I64(lat_perf_open(&p, -1, 0), -EINVAL);
	T_EQ_I64(lat_perf_open(&p, 0, 1 << 20), -EINVAL);
	T_EQ_I64(lat_perf_open(&p, 0x3fffffff, 0), -ESRCH);
	lat_perf_close(&p);
	memset(&p, 0, sizeof(p));
	T_EQ_I64(lat_perf_start(&p), -EINVAL);
	lat_perf_close(&p); /* zeroed: must not close fd 0 */
	T_CHECK(fcntl(0, F_GETFD) >= 0 || errno != EBADF);
}

/* Counting another thread by tid: it touches pages while we count. */
struct other {
	int go[2], done[2];
	pid_t tid;
};

static void *other_thread(void *arg)
{
	struct other *o = arg;
	char c;

	o->tid = (pid_t)syscall(SYS_gettid);
	if (write(o->done[1], "r", 1) != 1)
		return NULL;
	if (read(o->go[0], &c, 1) != 1)
		return NULL;
	touch_fresh_pages();
	if (write(o->done[1], "d", 1) != 1)
		return NULL;
	if (read(o->go[0], &c, 1) != 1) /* stay alive for /proc reads */
		return NULL;
	return NULL;
}

static void test_other_thread(void)
{
	struct other o;
	struct lat_perf p;
	struct lat_perf_reading r;
	pthread_t t;
	char c;

	T_CHECK(pipe(o.go) == 0 && pipe(o.done) == 0);
	T_EQ_I64(pthread_create(&t, NULL, other_thread, &o), 0);
	T_CHECK(read(o.done[0], &c, 1) == 1);          /* tid is set */
	T_EQ_I64(lat_perf_open(&p, o.tid, 0), 0);
	T_EQ_I64(lat_perf_start(&p), 0);
	T_CHECK(write(o.go[1], "g", 1) == 1);
	T_CHECK(read(o.done[0], &c, 1) == 1);          /* pages touched */
	T_EQ_I64(lat_perf_read(&p, &r), 0);
	T_CHECK(lat_perf_has(&r, LAT_PERF_MINOR_FAULTS));
	T_CHECK(r.value[LAT_PERF_MINOR_FAULTS] >= PAGES);
	check_honest(&p, &r);
	T_CHECK(write(o.go[1], "x", 1) == 1);
	pthread_join(t, NULL);
	lat_perf_close(&p);
	close(o.go[0]);
	close(o.go[1]);
	close(o.done[0]);
	close(o.done[1]);
}

/*
 * The real unprivileged path: as root, a child drops to nobody and must
 * not be fooled by the trap (unless paranoid <= 1 lets it count kernel
 * events, in which case the perf source is honest).
 */
static void test_unprivileged_child(void)
{
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		printf("  not root: the unprivileged path ran above\n");
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(77);
		prctl(PR_SET_DUMPABLE, 1); /* keep our own /proc readable */
		printf("counter sources as uid 65534:\n");
		test_sources_here();
		check_relations(0);
		fflush(stdout);
		_exit(t_failures ? 1 : 0);
	}
	T_CHECK(pid > 0);
	T_CHECK(waitpid(pid, &status, 0) == pid);
	T_CHECK(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		printf("  could not drop to uid 65534; child skipped\n");
	else
		T_EQ_I64(WEXITSTATUS(status), 0);
}

/*
 * LAT_PERF_SOFT_PROC: no software counter is a perf event (each would
 * slow the thread's context switches), every one that /proc has comes
 * from /proc with the reason said, and hardware counters are as without
 * the flag (perf or n/a).
 */
static void test_soft_proc(void)
{
	struct lat_perf p, plain;

	T_EQ_I64(lat_perf_open(&p, 0, LAT_PERF_SOFT_PROC), 0);
	T_EQ_I64(lat_perf_open(&plain, 0, 0), 0);
	T_EQ_I64(p.sw_leader, -1);
	for (int c = LAT_PERF_TASK_CLOCK; c <= LAT_PERF_MAJOR_FAULTS; c++) {
		T_EQ_I64(p.slot[c].source, LAT_PERF_SRC_PROC);
		T_EQ_I64(p.slot[c].fd, -1);
		T_CHECK(strstr(lat_perf_reason(&p, c), "context switch"));
	}
	for (int c = LAT_PERF_CYCLES; c <= LAT_PERF_LLC_MISSES; c++)
		T_EQ_I64(p.slot[c].source, plain.slot[c].source);
	lat_perf_close(&p);
	lat_perf_close(&plain);
}

int main(void)
{
	printf("counter sources on this machine:\n");
	test_sources_here();
	test_bad_args();
	check_relations(0);
	check_relations(LAT_PERF_USER_ONLY);
	check_relations(LAT_PERF_NO_PERF);
	check_relations(LAT_PERF_SOFT_PROC);
	test_soft_proc();
	test_other_thread();
	test_unprivileged_child();
	T_DONE();
}

/*
 * The off-CPU lesson, asserted: a thread that sleeps in nanosleep 90 % of
 * the time (1 ms of work, then a 9 ms sleep) is almost invisible on CPU,
 * while its off-CPU profile (eBPF, as root) holds the sleep stack for at
 * least 80 % of its off-CPU time. Skips, saying why, where eBPF cannot
 * load (no root, no BTF, a build without BPF); any other failure fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab/prof.h"
#include "latlab_config.h"
#include "t_test.h"

static atomic_bool stop_sleeper;
static volatile uint64_t sink;
static atomic_bool counting;    /* the profiled window is open */
static double nap_s;            /* the sleeper's own count of its sleeps
				 * in that window */
static bool fifo;               /* it runs SCHED_FIFO */

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* About 1 ms of CPU time: the 10 % the thread is awake. */
__attribute__((noinline)) static void awake_work(void)
{
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	uint64_t x = sink;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0 < 1e-3)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	sink = x;
}

__attribute__((noinline)) static void nap(void)
{
	struct timespec ts = { 0, 9000000 };

	nanosleep(&ts, NULL);
}

/*
 * SCHED_FIFO when allowed (we are root for eBPF anyway): on a machine
 * loaded by other work a normal thread waits for a CPU after each wake,
 * and that wait, rightly reported as runnable off-CPU time, is not the
 * sleep the test is about.
 */
static void *sleeper_main(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };

	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	while (!atomic_load(&stop_sleeper)) {
		double t0;

		awake_work();
		t0 = clock_s(CLOCK_MONOTONIC);
		nap();
		if (atomic_load(&counting)) /* a straddling nap: +-9 ms */
			nap_s += clock_s(CLOCK_MONOTONIC) - t0;
	}
	return NULL;
}

/* Off-CPU weight of the sleeper's stacks that went to sleep ([blocked])
 * in nanosleep (the user frame or the kernel's), and of all of them. A
 * preemption on the way into or out of the sleep has nanosleep in its
 * stack too, but is not the sleep. */
static void sleep_share(const struct lat_prof_folded *f, uint64_t *sleep,
			uint64_t *all)
{
	*sleep = *all = 0;
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->v[i].frames;

		if (strncmp(s, "sleeper;", 8))
			continue;
		*all += f->v[i].weight;
		if (!strncmp(s, "sleeper;[blocked];", 18) &&
		    strstr(s, "nanosleep"))
			*sleep += f->v[i].weight;
	}
}

int main(void)
{
	struct lat_prof_config cfg = { .freq_hz = 499, .offcpu = true };
	struct lat_prof_folded on, off;
	struct lat_prof_stats st;
	struct lat_prof *p;
	uint64_t sleep_ns, off_ns, on_samples;
	double t0, wall;
	pthread_t th;
	int rc;

	if (!LATLAB_HAVE_BPF)
		T_SKIP("this build has no eBPF (apt-get install -y libbpf-dev "
		       "bpftool clang)");
	T_EQ_I64(lat_prof_create(&cfg, &p), 0);
	atomic_store(&stop_sleeper, false);
	T_EQ_I64(pthread_create(&th, NULL, sleeper_main, NULL), 0);
	usleep(20000);
	rc = lat_prof_attach_pid(p, getpid(), false);
	if (rc == -EACCES || rc == -EPERM || rc == -LAT_EUNSUPP) {
		atomic_store(&stop_sleeper, true);
		pthread_join(th, NULL);
		T_SKIP("cannot sample here: %s", lat_prof_error_note(p));
	}
	T_EQ_I64(rc, 0);
	T_EQ_I64(lat_prof_start(p), 0);
	lat_prof_get_stats(p, &st);
	if (!st.offcpu) {
		bool privilege = strstr(st.offcpu_note, "root") ||
				 strstr(st.offcpu_note, "BTF");

		atomic_store(&stop_sleeper, true);
		pthread_join(th, NULL);
		lat_prof_free(p);
		if (privilege)
			T_SKIP("off-CPU %s", st.offcpu_note);
		fprintf(stderr, "off-CPU failed to load as root: %s\n",
			st.offcpu_note);
		return T_EXIT_FAIL;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	atomic_store(&counting, true);
	while (clock_s(CLOCK_MONOTONIC) - t0 < 1.0)
		T_CHECK(lat_prof_poll(p, 100) >= 0);
	atomic_store(&counting, false);
	T_EQ_I64(lat_prof_stop(p), 0);
	wall = clock_s(CLOCK_MONOTONIC) - t0;
	atomic_store(&stop_sleeper, true);
	pthread_join(th, NULL);

	lat_prof_folded_init(&on);
	lat_prof_folded_init(&off);
	T_EQ_I64(lat_prof_fold(p, &on), 0);
	T_EQ_I64(lat_prof_fold_offcpu(p, &off), 0);
	lat_prof_get_stats(p, &st);
	sleep_share(&off, &sleep_ns, &off_ns);
	on_samples = lat_prof_folded_weight(&on, "sleeper", NULL);
	printf("sleeper (%s) over %.2f s: off CPU %.3f s, %.1f %% of it in "
	       "the nanosleep stack (%.3f s; it slept %.3f s by its own "
	       "clock); on CPU %llu samples (%.1f %% of the %.0f a thread "
	       "running throughout would get); dropped %llu\n",
	       fifo ? "SCHED_FIFO" : "SCHED_OTHER", wall, off_ns / 1e9,
	       off_ns ? 100.0 * sleep_ns / off_ns : 0, sleep_ns / 1e9, nap_s,
	       (unsigned long long)on_samples,
	       100.0 * on_samples / (wall * cfg.freq_hz), wall * cfg.freq_hz,
	       (unsigned long long)st.offcpu_dropped);
	/* the sleep stack holds the time the thread slept in the profiled
	 * second, give or take a nap at each edge */
	T_CHECK(sleep_ns <= nap_s * 1e9 * 1.05 + 20e6);
	T_CHECK(sleep_ns >= 0.9 * nap_s * 1e9 - 20e6);
	/* off CPU most of the run, and the sleep is where */
	T_CHECK(off_ns > 0.5 * wall * 1e9);
	T_CHECK(sleep_ns >= 0.8 * off_ns);
	/* on CPU it is almost nothing: about 10 % of a busy thread */
	T_CHECK(on_samples < 0.25 * wall * cfg.freq_hz);
	T_EQ_I64(st.offcpu_dropped, 0);
	lat_prof_folded_release(&on);
	lat_prof_folded_release(&off);
	lat_prof_free(p);
	T_DONE();
}

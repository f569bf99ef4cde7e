/*
 * lat_prof on a known split: a thread spends 3/4 of its work in hot_a()
 * and 1/4 in hot_b() (the same loop body, 3:1 iterations, so the split is
 * in CPU time whatever the scheduler does). The profile of this process
 * must attribute 75 % +- 10 and 25 % +- 10 of that thread's samples to
 * them, with the whole stack down to the thread's start function, and the
 * SVG must carry both names with widths in that ratio.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latlab/prof.h"
#include "latlab_config.h"
#include "t_test.h"

static atomic_bool stop_hot;
static volatile uint64_t sink;

__attribute__((noinline)) static void spin(uint64_t n)
{
	uint64_t x = sink;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline)) static void hot_a(void)
{
	for (int i = 0; i < 3; i++) {
		uint64_t x = sink;

		for (uint64_t j = 0; j < 200000; j++)
			x = x * 6364136223846793005ull + 1;
		sink = x;
	}
}

__attribute__((noinline)) static void hot_b(void)
{
	uint64_t x = sink;

	for (uint64_t j = 0; j < 200000; j++)
		x = x * 6364136223846793005ull + 1;
	sink = x;
}

static void *hot_thread_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "hotsplit");
	while (!atomic_load(&stop_hot)) {
		hot_a();
		hot_b();
	}
	spin(1);
	return NULL;
}

static double cpu_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_s(void)
{
	return cpu_s(CLOCK_MONOTONIC);
}

/* Every stack of the thread that holds @leaf holds it right above the
 * start function, and the start function right above the root's glibc
 * frames: the whole stack. */
static void check_stacks(const struct lat_prof_folded *f, const char *leaf)
{
	char want[64];
	int seen = 0;

	snprintf(want, sizeof(want), "hot_thread_main;%s", leaf);
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->v[i].frames;

		if (strncmp(s, "hotsplit;", 9) || !strstr(s, leaf))
			continue;
		seen++;
		if (!strstr(s, want)) {
			fprintf(stderr, "stack without its caller: %s\n", s);
			t_failures++;
		}
	}
	T_CHECK(seen > 0);
}

static void test_split(void)
{
	struct lat_prof_config cfg = { .freq_hz = 499 };
	struct lat_prof *p;
	struct lat_prof_folded f;
	struct lat_prof_stats st;
	pthread_t th;
	clockid_t cid;
	double t0, c0;
	int rc;

	T_EQ_I64(lat_prof_create(&cfg, &p), 0);
	atomic_store(&stop_hot, false);
	T_EQ_I64(pthread_create(&th, NULL, hot_thread_main, NULL), 0);
	usleep(20000); /* let it name itself before the attach reads comms */
	rc = lat_prof_attach_pid(p, getpid(), false);
	if (rc == -EACCES || rc == -EPERM || rc == -LAT_EUNSUPP) {
		atomic_store(&stop_hot, true);
		pthread_join(th, NULL);
		lat_prof_free(p);
		T_SKIP("cannot sample here: %s", lat_prof_error_note(p));
	}
	T_EQ_I64(rc, 0);
	T_EQ_I64(lat_prof_start(p), 0);
	/* sample until the thread has burnt 0.6 s of CPU (a loaded machine
	 * gives it less per second of wall time), at most 8 s */
	pthread_getcpuclockid(th, &cid);
	c0 = cpu_s(cid);
	t0 = now_s();
	while (cpu_s(cid) - c0 < 0.6 && now_s() - t0 < 8)
		T_CHECK(lat_prof_poll(p, 100) >= 0);
	T_EQ_I64(lat_prof_stop(p), 0);
	atomic_store(&stop_hot, true);
	pthread_join(th, NULL);

	lat_prof_folded_init(&f);
	T_EQ_I64(lat_prof_fold(p, &f), 0);
	lat_prof_get_stats(p, &st);
	T_EQ_I64(f.total, st.samples); /* every sample in one stack */
	{
		uint64_t all = lat_prof_folded_weight(&f, "hotsplit", NULL);
		uint64_t a = lat_prof_folded_weight(&f, "hotsplit", "hot_a");
		uint64_t b = lat_prof_folded_weight(&f, "hotsplit", "hot_b");

		printf("hotsplit: %llu samples, hot_a %.1f %%, hot_b %.1f %%, "
		       "lost %llu, kernel %s%s\n", (unsigned long long)all,
		       all ? 100.0 * a / all : 0, all ? 100.0 * b / all : 0,
		       (unsigned long long)st.lost, st.kernel ? "yes" : "no",
		       st.kernel_note);
		T_CHECK(all >= 100);
		if (all) {
			T_NEAR(100.0 * a / all, 75, 10);
			T_NEAR(100.0 * b / all, 25, 10);
		}
	}
	if (LATLAB_HAVE_DW) {
		check_stacks(&f, "hot_a");
		check_stacks(&f, "hot_b");
	}
	if (getenv("T_PROF_DUMP"))
		lat_prof_folded_write(&f, stdout);
	lat_prof_folded_release(&f);
	lat_prof_free(p);
}

/* `test_prof_threads --hotsplit SECONDS`: only run the hot thread until
 * it has had SECONDS of CPU (at most 20 s of wall time: a loaded machine
 * gives it less than a CPU), for tests/prof_cli.sh to profile as a
 * command. */
static int hotsplit_only(double seconds)
{
	double t0 = now_s(), c0;
	clockid_t cid;
	pthread_t th;

	atomic_store(&stop_hot, false);
	if (pthread_create(&th, NULL, hot_thread_main, NULL))
		return 1;
	pthread_getcpuclockid(th, &cid);
	c0 = cpu_s(cid);
	while (cpu_s(cid) - c0 < seconds && now_s() - t0 < 20)
		usleep(10000);
	atomic_store(&stop_hot, true);
	pthread_join(th, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--hotsplit"))
		return hotsplit_only(atof(argv[2]));
	if (!LATLAB_HAVE_DW)
		T_SKIP("no symbols: %s", lat_prof_symbols_note());
	test_split();
	T_DONE();
}

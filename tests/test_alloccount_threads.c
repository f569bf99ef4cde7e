/*
 * Description: the counting allocator. N allocations on one thread count
 * N there and 0 on a thread running beside it; every allocation entry
 * point is counted, including libc's own calls (strdup); sanitizer builds
 * report counting as unavailable with a reason instead of a 0.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/alloccount.h"
#include "t_test.h"

#define N 1000

static pthread_barrier_t started, allocated;
static void *volatile blocks[N + 8];

struct result {
	struct lat_alloc_counts during; /* between the two barriers */
	struct lat_alloc_counts freeing;
	uint64_t expected_bytes;
	int expected_allocs;
};

/* Every entry point once or more; the volatile array keeps each alive. */
static void *allocating_thread(void *arg)
{
	struct result *r = arg;
	struct lat_alloc_counts s0, s1;
	int k = 0;
	void *p = NULL;

	T_EQ_I64(lat_alloc_snapshot(&s0), 0);
	pthread_barrier_wait(&started);
	for (int i = 0; i < N - 6; i++) {
		blocks[k++] = malloc((size_t)i + 1);
		r->expected_bytes += (uint64_t)i + 1;
	}
	blocks[k++] = calloc(4, 16);
	r->expected_bytes += 64;
	blocks[k++] = aligned_alloc(64, 128);
	r->expected_bytes += 128;
	T_EQ_I64(posix_memalign(&p, 64, 256), 0);
	blocks[k++] = p;
	r->expected_bytes += 256;
	blocks[k++] = memalign(32, 32);
	r->expected_bytes += 32;
	blocks[k++] = realloc(NULL, 8);  /* an allocation, not a realloc */
	r->expected_bytes += 8;
	blocks[k++] = strdup("counted"); /* libc's internal malloc */
	r->expected_bytes += 8;
	r->expected_allocs = k;
	T_EQ_I64(lat_alloc_since(&s0, &r->during), 0);
	pthread_barrier_wait(&allocated);

	T_EQ_I64(lat_alloc_snapshot(&s1), 0);
	blocks[0] = realloc(blocks[0], 4096); /* a realloc of a live block */
	for (int i = 0; i < k; i++)
		free(blocks[i]);
	free(NULL); /* not a free of anything */
	T_EQ_I64(lat_alloc_since(&s1, &r->freeing), 0);
	return NULL;
}

/* Runs beside the allocator and must see none of its counts. */
static void *quiet_thread(void *arg)
{
	struct lat_alloc_counts *delta = arg, s0;
	volatile uint64_t sink = 0;

	T_EQ_I64(lat_alloc_snapshot(&s0), 0);
	pthread_barrier_wait(&started);
	for (int i = 0; i < 100000; i++)
		sink += (uint64_t)i;
	pthread_barrier_wait(&allocated);
	T_EQ_I64(lat_alloc_since(&s0, delta), 0);
	return NULL;
}

static void test_counts(void)
{
	struct result r;
	struct lat_alloc_counts quiet;
	pthread_t a, q;

	memset(&r, 0, sizeof(r));
	pthread_barrier_init(&started, NULL, 2);
	pthread_barrier_init(&allocated, NULL, 2);
	T_EQ_I64(pthread_create(&a, NULL, allocating_thread, &r), 0);
	T_EQ_I64(pthread_create(&q, NULL, quiet_thread, &quiet), 0);
	pthread_join(a, NULL);
	pthread_join(q, NULL);
	pthread_barrier_destroy(&started);
	pthread_barrier_destroy(&allocated);

	T_EQ_I64(r.expected_allocs, N);
	T_EQ_I64(r.during.allocs, N);
	T_EQ_I64(r.during.reallocs, 0);
	T_EQ_I64(r.during.frees, 0);
	T_EQ_I64(r.during.bytes, r.expected_bytes);
	T_EQ_I64(lat_alloc_heap_calls(&r.during), N);
	T_EQ_I64(r.freeing.reallocs, 1);
	T_EQ_I64(r.freeing.allocs, 0);
	T_EQ_I64(r.freeing.frees, N);
	T_EQ_I64(quiet.allocs, 0);
	T_EQ_I64(quiet.reallocs, 0);
	T_EQ_I64(quiet.frees, 0);
	T_EQ_I64(quiet.bytes, 0);
}

/* Unavailable counting is an answer with a reason, never a zero count. */
static void test_unavailable(const char *why)
{
	struct lat_alloc_counts c, d;

	memset(&c, 0xff, sizeof(c));
	T_CHECK(why && why[0]);
	T_EQ_I64(lat_alloc_snapshot(&c), -LAT_EUNSUPP);
	T_EQ_I64(c.allocs, 0);
	T_EQ_I64(lat_alloc_since(&c, &d), -LAT_EUNSUPP);
}

#if defined(LATLAB_SANITIZED)
static const bool sanitized = true;
#else
static const bool sanitized = false;
#endif

int main(void)
{
	const char *why = NULL;
	bool ok = lat_alloc_available(&why);

	if (!ok)
		printf("allocation counting is n/a here: %s\n", why);
	/* Sanitizers own malloc; latlab's other builds use glibc. */
	T_EQ_I64(ok, !sanitized);
	if (ok)
		test_counts();
	else
		test_unavailable(why);
	T_DONE();
}

/*
 * lat_alloc: heap allocations counted per thread, so that "the hot path
 * does not allocate" is measured rather than assumed.
 *
 * How (opt-in): src/alloccount/wrap/alloc_wrap.c defines malloc, calloc,
 * realloc, reallocarray, free, posix_memalign, aligned_alloc, memalign,
 * valloc and pvalloc. It is NOT part of liblatlab.a: a program that links
 * only the library keeps glibc's malloc, and these functions say counting
 * is unavailable. A program that wants counting links that object too
 * (CMake target latlab_alloccount, as the latlab command and the tests
 * do); then each call bumps a counter of the calling thread and hands the
 * call to glibc's own allocator (__libc_malloc and friends), so memory
 * behaves exactly as without it.
 *
 * Invariants:
 *  - Counters are thread-local: only the thread itself updates and reads
 *    them, with no atomics and no locks. Cost per call: one TLS increment.
 *  - Counting is unavailable, and says why, in sanitizer builds (ASan,
 *    TSan and MSan own malloc; wrapping it would bypass their checks), on
 *    libcs without __libc_malloc, when the counting object is not linked,
 *    and if the self-check finds the wrapper is not the malloc in use. It
 *    is never reported as 0 then.
 *  - Every count includes allocations that libc makes on the thread's
 *    behalf (fopen, strdup, printf buffers, ...): those are heap traffic
 *    too.
 *  - Nothing here allocates.
 */
#ifndef LATLAB_ALLOCCOUNT_H
#define LATLAB_ALLOCCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/common.h"

struct lat_alloc_counts {
	uint64_t allocs;   /* malloc, calloc, aligned kinds, realloc(NULL) */
	uint64_t reallocs; /* realloc of a live block (may move it) */
	uint64_t frees;    /* free of a non-NULL pointer, realloc(p, 0) */
	uint64_t bytes;    /* bytes requested by allocs and reallocs */
};

/*
 * Whether this process counts allocations. Returns true, or false with
 * *reason (if @reason is not NULL) set to a static sentence such as
 * "sanitizer build: the sanitizer runtime owns malloc". The first call
 * runs a self-check (one malloc and free through the wrapper); later calls
 * return the cached answer. Thread-safe.
 */
bool lat_alloc_available(const char **reason);

/*
 * The calling thread's counts since it started. Returns 0, or
 * -LAT_EUNSUPP (and zeroes @out) when counting is unavailable.
 * Wait-free, no allocation, no syscall.
 */
int lat_alloc_snapshot(struct lat_alloc_counts *out);

/*
 * The calling thread's counts since @start (an earlier snapshot taken on
 * this same thread) into @delta. Returns 0 or -LAT_EUNSUPP.
 */
int lat_alloc_since(const struct lat_alloc_counts *start,
		    struct lat_alloc_counts *delta);

/*
 * Fault injection for tests: the @nth allocation call (malloc, calloc,
 * realloc of a live block to a non-zero size, the aligned kinds) that the
 * calling thread makes from now fails with ENOMEM, as a real failure
 * would; 0 disarms. One shot: later calls succeed. Returns 0, or
 * -LAT_EUNSUPP when counting is unavailable (see lat_alloc_available).
 * Drive an init path with n = 1, 2, ... until it succeeds, and check
 * each failure returns an error and frees what it took (allocs = frees
 * over the call).
 */
int lat_alloc_fail_nth(uint64_t nth);

/* Calls that may take memory from the heap: allocs + reallocs. */
static inline uint64_t lat_alloc_heap_calls(const struct lat_alloc_counts *c)
{
	return c->allocs + c->reallocs;
}

#endif

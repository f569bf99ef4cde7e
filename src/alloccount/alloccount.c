/*
 * lat_alloc, the library's half: whether allocations are counted in this
 * program, and per-thread snapshots. The counting allocator itself is
 * opt-in (wrap/alloc_wrap.c, linked by the latlab command and the tests,
 * not part of liblatlab.a): a program that links only the library keeps
 * glibc's malloc, and counting then says it is unavailable and why.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_int.h"

/*
 * Prove the wrapper is the malloc in use: call malloc through a volatile
 * pointer (so the compiler can neither inline nor delete the pair) and
 * see this thread's count move by exactly one.
 */
static bool self_check(void)
{
	void *(*volatile do_malloc)(size_t) = malloc;
	void (*volatile do_free)(void *) = free;
	const struct lat_alloc_counts *c = lat_alloc_counter();
	uint64_t before = c->allocs;
	void *p = do_malloc(24);
	bool ok = p && c->allocs == before + 1;

	do_free(p);
	return ok;
}

/* 0 unknown, 1 available, 2 unavailable. */
static atomic_int availability;

bool lat_alloc_available(const char **reason)
{
	int state = atomic_load_explicit(&availability, memory_order_acquire);
	const char *why = NULL;

	if (state == 0) {
		state = LAT_ALLOC_WRAP && lat_alloc_counter && self_check()
			? 1 : 2;
		/* Racing first callers compute the same answer; either wins. */
		atomic_store_explicit(&availability, state,
				      memory_order_release);
	}
	if (state == 1)
		return true;
#if defined(LAT_ALLOC_SANITIZED)
	why = "sanitizer build: the sanitizer runtime owns malloc";
#elif !defined(__GLIBC__)
	why = "needs glibc (__libc_malloc) to wrap the allocator";
#else
	why = lat_alloc_counter ? "another malloc is interposed before "
				  "latlab's"
				: "the counting allocator is not linked into "
				  "this program (it is opt-in: link "
				  "latlab_alloccount)";
#endif
	if (reason)
		*reason = why;
	return false;
}

int lat_alloc_snapshot(struct lat_alloc_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!lat_alloc_available(NULL))
		return -LAT_EUNSUPP;
	*out = *lat_alloc_counter();
	return 0;
}

int lat_alloc_since(const struct lat_alloc_counts *start,
		    struct lat_alloc_counts *delta)
{
	struct lat_alloc_counts now;
	int rc = lat_alloc_snapshot(&now);

	if (rc) {
		memset(delta, 0, sizeof(*delta));
		return rc;
	}
	delta->allocs = now.allocs - start->allocs;
	delta->reallocs = now.reallocs - start->reallocs;
	delta->frees = now.frees - start->frees;
	delta->bytes = now.bytes - start->bytes;
	return 0;
}

int lat_alloc_fail_nth(uint64_t nth)
{
	if (!lat_alloc_available(NULL) || !lat_alloc_set_fail)
		return -LAT_EUNSUPP;
	lat_alloc_set_fail(nth);
	return 0;
}

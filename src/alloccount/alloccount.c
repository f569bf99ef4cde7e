/*
 * lat_alloc: the counting allocator. See include/latlab/alloccount.h.
 *
 * The wrappers must not allocate, lock or call anything that might call
 * malloc again: they run inside every libc allocation, including the ones
 * ld.so and pthread_create make before main() or before a thread runs.
 * Initial-exec TLS in the executable needs no allocation to reach.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "latlab/alloccount.h"

#if defined(LATLAB_SANITIZED) || defined(__SANITIZE_ADDRESS__) || \
	defined(__SANITIZE_THREAD__)
#define LAT_ALLOC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define LAT_ALLOC_SANITIZED 1
#endif
#endif

#if !defined(LAT_ALLOC_SANITIZED) && defined(__GLIBC__)
#define LAT_ALLOC_WRAP 1
#else
#define LAT_ALLOC_WRAP 0
#endif

#if LAT_ALLOC_WRAP
#include <malloc.h>
#include <stdlib.h>

/* glibc's allocator under its internal names (exported since 2.2.5). */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
extern void __libc_free(void *ptr);

static _Thread_local struct lat_alloc_counts tls_counts
	__attribute__((tls_model("initial-exec")));

static inline void *counted(void *p, size_t bytes)
{
	if (p) {
		tls_counts.allocs++;
		tls_counts.bytes += bytes;
	}
	return p;
}

void *malloc(size_t size)
{
	return counted(__libc_malloc(size), size);
}

void *calloc(size_t n, size_t size)
{
	return counted(__libc_calloc(n, size), n * size);
}

void free(void *ptr)
{
	if (ptr)
		tls_counts.frees++;
	__libc_free(ptr);
}

void *realloc(void *ptr, size_t size)
{
	void *p;

	if (!ptr)
		return malloc(size);
	p = __libc_realloc(ptr, size);
	if (size == 0) {
		tls_counts.frees++; /* glibc frees and returns NULL */
	} else if (p) {
		tls_counts.reallocs++;
		tls_counts.bytes += size;
	}
	return p;
}

void *reallocarray(void *ptr, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, total);
}

static int bad_alignment(size_t align)
{
	return align == 0 || (align & (align - 1)) != 0;
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (bad_alignment(align) || align % sizeof(void *) != 0)
		return EINVAL;
	p = counted(__libc_memalign(align, size), size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	if (bad_alignment(align)) {
		errno = EINVAL;
		return NULL;
	}
	return counted(__libc_memalign(align, size), size);
}

void *memalign(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size), size);
}

void *valloc(size_t size)
{
	return counted(__libc_valloc(size), size);
}

void *pvalloc(size_t size)
{
	return counted(__libc_pvalloc(size), size);
}

/*
 * Prove the wrapper is the malloc in use: call malloc through a volatile
 * pointer (so the compiler can neither inline nor delete the pair) and
 * see this thread's count move by exactly one.
 */
static bool self_check(void)
{
	void *(*volatile do_malloc)(size_t) = malloc;
	void (*volatile do_free)(void *) = free;
	uint64_t before = tls_counts.allocs;
	void *p = do_malloc(24);
	bool ok = p && tls_counts.allocs == before + 1;

	do_free(p);
	return ok;
}
#endif /* LAT_ALLOC_WRAP */

/* 0 unknown, 1 available, 2 unavailable. */
static atomic_int availability;

bool lat_alloc_available(const char **reason)
{
	int state = atomic_load_explicit(&availability, memory_order_acquire);
	const char *why = NULL;

	if (state == 0) {
#if LAT_ALLOC_WRAP
		state = self_check() ? 1 : 2;
#else
		state = 2;
#endif
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
	why = "another malloc is interposed before latlab's";
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
#if LAT_ALLOC_WRAP
	*out = tls_counts;
#endif
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

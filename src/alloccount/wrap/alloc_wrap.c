/*
 * The counting allocator itself, linked only into programs that opt in
 * (the latlab command and the tests link this object; liblatlab.a does
 * not contain it, so a program that links only the library keeps glibc's
 * malloc). See include/latlab/alloccount.h.
 *
 * The wrappers must not allocate, lock or call anything that might call
 * malloc again: they run inside every libc allocation, including the ones
 * ld.so and pthread_create make before main() or before a thread runs.
 * Initial-exec TLS in the executable needs no allocation to reach.
 */
#include <errno.h>
#include <stddef.h>

#include "../alloc_int.h"

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

/* Fault injection: the tls_fail_in-th allocation from now fails. */
static _Thread_local uint64_t tls_fail_in
	__attribute__((tls_model("initial-exec")));

const struct lat_alloc_counts *lat_alloc_counter(void)
{
	return &tls_counts;
}

void lat_alloc_set_fail(uint64_t nth)
{
	tls_fail_in = nth;
}

/* Whether this allocation is the one to fail (then errno is ENOMEM). */
static inline bool injected(void)
{
	if (__builtin_expect(tls_fail_in == 0, 1) || --tls_fail_in)
		return false;
	errno = ENOMEM;
	return true;
}

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
	if (injected())
		return NULL;
	return counted(__libc_malloc(size), size);
}

void *calloc(size_t n, size_t size)
{
	if (injected())
		return NULL;
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
	if (size && injected())
		return NULL; /* the old block stays, as on a real failure */
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
	if (injected())
		return ENOMEM;
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
	if (injected())
		return NULL;
	return counted(__libc_memalign(align, size), size);
}

void *memalign(size_t align, size_t size)
{
	if (injected())
		return NULL;
	return counted(__libc_memalign(align, size), size);
}

void *valloc(size_t size)
{
	if (injected())
		return NULL;
	return counted(__libc_valloc(size), size);
}

void *pvalloc(size_t size)
{
	if (injected())
		return NULL;
	return counted(__libc_pvalloc(size), size);
}

#endif /* LAT_ALLOC_WRAP */

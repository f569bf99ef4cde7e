/*
 * Between the library's half of lat_alloc (alloccount.c: availability and
 * snapshots) and the opt-in counting allocator (wrap/alloc_wrap.c).
 * Not a public header.
 */
#ifndef LATLAB_ALLOC_INT_H
#define LATLAB_ALLOC_INT_H

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

/*
 * The calling thread's counters, defined by the counting allocator when
 * the program links it; a weak reference here, so without it the symbol
 * is NULL and counting reports itself unavailable.
 */
const struct lat_alloc_counts *lat_alloc_counter(void)
	__attribute__((weak));
/* Arm fault injection on the calling thread (0 disarms). */
void lat_alloc_set_fail(uint64_t nth) __attribute__((weak));

#endif

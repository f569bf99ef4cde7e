/*
 * lat_hist internals shared by hist.c, hist_query.c and hist_iter.c, and
 * the allocator hook the fault-injection tests use. Not a public header.
 */
#ifndef LATLAB_HIST_INT_H
#define LATLAB_HIST_INT_H

#include <stddef.h>
#include <stdint.h>

#include "latlab/hist.h"

/*
 * Allocator for counts arrays and lat_hist_create() structs. NULL (the
 * default) means calloc. Tests point it at an allocator that fails the Nth
 * call to prove that a failed init backs out cleanly. Not thread-safe: set
 * it before any histogram is created.
 */
extern void *(*lat_hist_calloc_hook)(size_t nmemb, size_t size);

/* Bucket of a value >= 0 (any int64 reinterpreted as unsigned is fine). */
static inline int32_t lat_hist_bucket_of(const struct lat_hist *h, uint64_t v)
{
	return h->leading_zero_count_base -
		__builtin_clzll(v | (uint64_t)h->sub_bucket_mask);
}

/* Java's (long) cast of a double: saturating, NaN -> 0 (C's is UB). */
static inline int64_t lat_hist_d2l(double d)
{
	if (d != d)
		return 0;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

#endif

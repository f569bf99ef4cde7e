/*
 * lat_seqring internals for tests only: not part of the public API.
 */
#ifndef LATLAB_SEQRING_INT_H
#define LATLAB_SEQRING_INT_H

#include "latlab/seqring.h"

/*
 * Start an empty, freshly initialised ring at position @start (e.g.
 * UINT64_MAX - 3) so that a test crosses the 2^64 wrap: both positions,
 * the producer's cached copy, and each slot's mark set to a value
 * that reads "not yet full" for the first lap.
 */
static inline void lat_seqring_test_set_pos(struct lat_seqring *r,
					    uint64_t start)
{
	atomic_store_explicit(&r->prod.pos, start, memory_order_relaxed);
	atomic_store_explicit(&r->cons.pos, start, memory_order_relaxed);
	r->prod.seen = start;
	for (uint64_t i = 0; i < r->prod.capacity; i++)
		atomic_store_explicit(lat_seqring_mark_(&r->prod, start + i),
				      start + i, memory_order_relaxed);
}

#endif

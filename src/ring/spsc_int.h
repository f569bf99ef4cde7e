/*
 * lat_spsc internals for tests only: not part of the public API.
 */
#ifndef LATLAB_SPSC_INT_H
#define LATLAB_SPSC_INT_H

#include "latlab/spsc.h"

/*
 * Start both free-running counters of an empty, freshly initialised ring
 * at @start (e.g. UINT64_MAX - 3) so that a test crosses the 2^64 wrap.
 * Before either thread uses the ring.
 */
static inline void lat_spsc_test_set_counters(struct lat_spsc *r,
					      uint64_t start)
{
	atomic_store_explicit(&r->prod.index, start, memory_order_relaxed);
	atomic_store_explicit(&r->cons.index, start, memory_order_relaxed);
	r->prod.cached = start;
	r->cons.cached = start;
}

#endif

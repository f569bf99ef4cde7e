/*
 * lat_mem RCU-style publication: the writer's half (the readers' half is
 * inline in mem.h, with the argument for why the grace period is safe).
 *
 * Not liburcu: the point of `latlab mem` is to show the mechanism in a
 * page, and ThreadSanitizer can only check it when every atomic it
 * relies on is compiled with the instrumentation, which an installed
 * liburcu is not.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/mem.h"
#include "latlab/wait.h"

int lat_mem_rcu_init(struct lat_mem_rcu *r, int readers, void *initial)
{
	if (!r || readers < 1 || readers > 4096)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->slot = aligned_alloc(LAT_PAD_BYTES,
				(size_t)readers * sizeof(*r->slot));
	if (!r->slot)
		return -ENOMEM;
	for (int i = 0; i < readers; i++)
		atomic_init(&r->slot[i].epoch, 0);
	r->readers = readers;
	atomic_init(&r->ptr, initial);
	atomic_init(&r->epoch, 1);
	return 0;
}

void lat_mem_rcu_destroy(struct lat_mem_rcu *r)
{
	if (!r)
		return;
	free(r->slot);
	memset(r, 0, sizeof(*r));
}

void *lat_mem_rcu_publish(struct lat_mem_rcu *r, void *next)
{
	/* seq_cst: ordered before the epoch advance and the slot reads of
	 * the next grace period (see mem.h); release for the object's
	 * contents, which the readers' seq_cst load acquires */
	return atomic_exchange_explicit(&r->ptr, next, memory_order_seq_cst);
}

void lat_mem_rcu_synchronize(struct lat_mem_rcu *r)
{
	/* seq_cst: after the swap, before the slot reads; readers that see
	 * the new epoch (acquire) see the swap */
	uint64_t e = atomic_fetch_add_explicit(&r->epoch, 1,
					       memory_order_seq_cst) + 1;

	for (int i = 0; i < r->readers; i++) {
		unsigned spins = 0;
		uint64_t v;

		/* seq_cst load against the reader's seq_cst slot store
		 * (store buffering); acquire also pairs with its release
		 * store of 0 at the end of the section */
		while ((v = atomic_load_explicit(&r->slot[i].epoch,
						 memory_order_seq_cst)) != 0 &&
		       v < e) {
			if (spins++ == 0)
				atomic_fetch_add_explicit(&r->grace_waits, 1,
							  memory_order_relaxed);
			if (spins < 256)
				lat_wait_pause();
			else
				sched_yield(); /* the reader may need our CPU */
		}
	}
}

/*
 * lat_wait: what a thread does while its ring is empty (consumer) or full
 * (producer): spin with the CPU's pause hint, spin then sched_yield, or
 * spin then sleep on a futex. Chosen per run (lat_wait_kind_parse takes
 * the CLI words "spin", "yield", "block").
 *
 * Invariants:
 *  - A struct lat_wait is one wake-up channel for one condition ("ring 1
 *    has data", "ring 1 has space"). Waiters call lat_wait_until(); the
 *    thread that makes the condition true calls lat_wait_notify() after
 *    publishing (after the ring push or pop returned).
 *  - The wake is paid only when a waiter is actually asleep: notify is a
 *    no-op branch for spin and yield, and for block one locked
 *    read-modify-write of the sleepers word, followed by FUTEX_WAKE only
 *    when that word is non-zero. No lost wake-ups: see the protocol in
 *    src/ring/wait.c (the waiter announces itself, then re-checks the
 *    condition; the notifier publishes, then checks for an announced
 *    waiter; both do it with an RMW on one word, so at least one of them
 *    sees the other).
 *  - lat_wait_until never returns before ready() has returned true. To
 *    stop a waiter (shutdown), make its ready() return true (e.g. set a
 *    stop flag it reads, with a release store) and call
 *    lat_wait_notify().
 *  - Spinning and notifying never allocate and make no syscall; yield and
 *    block make syscalls by design, only once the spin budget is spent.
 *  - One waiter per struct lat_wait at a time (an SPSC ring has one per
 *    channel); any number of notifiers. The waiter's announcement is a
 *    flag the paying notifier takes, so a sleeping waiter costs one
 *    FUTEX_WAKE however many notifies arrive while it wakes up.
 *
 * Using it on a ring: one struct lat_wait_pair per ring: the consumer
 * waits on .data and the producer notifies it after each push; the
 * producer waits on .space and the consumer notifies it after each pop.
 * lat_wait_push / lat_wait_pop below do exactly that.
 */
#ifndef LATLAB_WAIT_H
#define LATLAB_WAIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "latlab/common.h"
#include "latlab/spsc.h"

enum lat_wait_kind {
	LAT_WAIT_SPIN,   /* pause in a loop: lowest latency, burns a CPU */
	LAT_WAIT_YIELD,  /* spin, then sched_yield in a loop */
	LAT_WAIT_BLOCK,  /* spin, then sleep on a futex until notified */
};

/* Pauses before the first yield or sleep, unless lat_wait_init is told. */
#define LAT_WAIT_DEFAULT_SPINS 256u

/* The CPU's spin-wait hint: x86 pause, aarch64 yield. Hot. */
LAT_INLINE void lat_wait_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	/* yield is a hint many cores treat as a nop; isb takes a few tens
	 * of cycles and so actually backs off the shared line */
	__asm__ __volatile__("isb" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/*
 * One wake-up channel. @seq is the futex word (bumped by every paid wake),
 * @sleepers is 1 while the waiter has announced itself and no notifier
 * has taken the announcement (a flag; the name is kept for callers).
 * Both sides touch this region only on the slow path (block mode), so it
 * sits on its own lines, away from the ring's indices.
 */
struct lat_wait {
	_Alignas(LAT_PAD_BYTES) _Atomic uint32_t seq;
	_Atomic uint32_t sleepers;
	enum lat_wait_kind kind;  /* read-only after init */
	uint32_t spins;           /* pause budget before yield/sleep */
};

/* The two channels of one SPSC ring. */
struct lat_wait_pair {
	struct lat_wait data;   /* consumer waits for data, producer notifies */
	struct lat_wait space;  /* producer waits for space, consumer notifies */
};

/*
 * Per-thread counts of what waiting cost (owned by one thread; add them
 * up after joining). All may be NULL where a function takes a pointer.
 */
struct lat_wait_stats {
	uint64_t waits;   /* calls that found the condition false */
	uint64_t yields;  /* sched_yield calls */
	uint64_t sleeps;  /* futex waits entered (incl. ones that returned
			     at once because a wake raced in) */
	uint64_t wakes;   /* FUTEX_WAKE calls paid by notify */
};

/*
 * Parse "spin", "yield" or "block" into *@out. Returns 0 or -EINVAL
 * (*out untouched). Any thread.
 */
int lat_wait_kind_parse(const char *s, enum lat_wait_kind *out);

/* "spin", "yield", "block", or "unknown". Static string. */
const char *lat_wait_kind_name(enum lat_wait_kind kind);

/*
 * Initialise @w for @kind with a budget of @spins pauses before yielding
 * or sleeping (0 means LAT_WAIT_DEFAULT_SPINS; ignored for SPIN, which
 * never stops spinning). Returns 0 or -EINVAL for an unknown kind or a
 * NULL @w. No allocation. Before any thread uses @w.
 */
int lat_wait_init(struct lat_wait *w, enum lat_wait_kind kind,
		  uint32_t spins);

/* Both channels of @p, same kind and budget. Same returns. */
int lat_wait_pair_init(struct lat_wait_pair *p, enum lat_wait_kind kind,
		       uint32_t spins);

/* True when the wait should end: condition met, or stop requested. */
typedef bool (*lat_wait_ready_fn)(void *ctx);

/*
 * Out-of-line slow path of lat_wait_until (yield or sleep). Waiter only.
 */
void lat_wait_slow(struct lat_wait *w, lat_wait_ready_fn ready, void *ctx,
		   struct lat_wait_stats *st);

/*
 * Wait until @ready(@ctx) returns true, per @w's kind: pause in a loop
 * (spin forever for SPIN; up to w->spins for YIELD and BLOCK, then yield
 * or sleep). Inline so a constant @ready is inlined into the spin loop.
 * Waiter thread; @st may be NULL. Returns at once if ready already.
 */
LAT_INLINE void lat_wait_until(struct lat_wait *w, lat_wait_ready_fn ready,
			       void *ctx, struct lat_wait_stats *st)
{
	if (LAT_LIKELY(ready(ctx)))
		return;
	if (st)
		st->waits++;
	if (w->kind == LAT_WAIT_SPIN) {
		while (!ready(ctx))
			lat_wait_pause();
		return;
	}
	for (uint32_t i = 0; i < w->spins; i++) {
		lat_wait_pause();
		if (ready(ctx))
			return;
	}
	lat_wait_slow(w, ready, ctx, st);
}

/* Out-of-line part of lat_wait_notify: check for sleepers, maybe wake. */
bool lat_wait_notify_slow(struct lat_wait *w, struct lat_wait_stats *st);

/*
 * Tell waiters on @w that the condition may have become true. Call after
 * publishing (the push or pop has returned). Returns true when a futex
 * wake was paid. Spin and yield: one predictable branch, nothing else.
 * Block: one locked read-modify-write of the sleepers word, plus
 * FUTEX_WAKE (a syscall) only when a waiter has announced itself. Any thread; @st may be NULL.
 */
LAT_INLINE bool lat_wait_notify(struct lat_wait *w, struct lat_wait_stats *st)
{
	if (LAT_LIKELY(w->kind != LAT_WAIT_BLOCK))
		return false;
	return lat_wait_notify_slow(w, st);
}

/* Context for the ring helpers below (internal to them). */
struct lat_wait_ring_ctx {
	struct lat_spsc *r;
	const atomic_bool *stop;
};

/* Producer-side readiness: a free slot, or stop. Internal. */
static inline bool lat_wait_ring_has_space_(void *p)
{
	struct lat_wait_ring_ctx *c = p;
	uint64_t tail = atomic_load_explicit(&c->r->prod.index,
					     memory_order_relaxed);

	if (lat_spsc_free_slots_(c->r, tail, 1) > 0)
		return true;
	/* acquire pairs with the release store that sets *stop: what the
	 * other side published before stopping is visible once we see it */
	return c->stop && atomic_load_explicit(c->stop, memory_order_acquire);
}

/* Consumer-side readiness: an element, or stop. Internal. */
static inline bool lat_wait_ring_has_data_(void *p)
{
	struct lat_wait_ring_ctx *c = p;
	uint64_t head = atomic_load_explicit(&c->r->cons.index,
					     memory_order_relaxed);

	if (lat_spsc_filled_slots_(c->r, head, 1) > 0)
		return true;
	/* acquire: as above */
	return c->stop && atomic_load_explicit(c->stop, memory_order_acquire);
}

/*
 * Producer only. Push @elem (@size bytes, the ring's element size; a
 * constant lets the copy inline), waiting on @w->space while the ring is
 * full, then notify @w->data. Returns true when pushed, false when
 * *@stop (may be NULL: never stop) became true while waiting; the element
 * is then still the caller's.
 */
LAT_INLINE bool lat_wait_push(struct lat_spsc *r, struct lat_wait_pair *w,
			      const void *elem, size_t size,
			      const atomic_bool *stop,
			      struct lat_wait_stats *st)
{
	while (!lat_spsc_try_push_raw(r, elem, size)) {
		struct lat_wait_ring_ctx c = { r, stop };

		lat_wait_until(&w->space, lat_wait_ring_has_space_, &c, st);
		/* acquire pairs with the release store of *stop */
		if (stop && atomic_load_explicit(stop, memory_order_acquire) &&
		    lat_spsc_free_slots_(r, atomic_load_explicit(
				&r->prod.index, memory_order_relaxed), 1) == 0)
			return false;
	}
	lat_wait_notify(&w->data, st);
	return true;
}

/*
 * Consumer only. Pop into @out, waiting on @w->data while the ring is
 * empty, then notify @w->space. Returns true when popped, false when
 * *@stop became true while the ring was empty (so everything pushed
 * before the stop was set and notified is still delivered).
 */
LAT_INLINE bool lat_wait_pop(struct lat_spsc *r, struct lat_wait_pair *w,
			     void *out, size_t size, const atomic_bool *stop,
			     struct lat_wait_stats *st)
{
	while (!lat_spsc_try_pop_raw(r, out, size)) {
		struct lat_wait_ring_ctx c = { r, stop };

		lat_wait_until(&w->data, lat_wait_ring_has_data_, &c, st);
		/* acquire pairs with the release store of *stop */
		if (stop && atomic_load_explicit(stop, memory_order_acquire) &&
		    lat_spsc_filled_slots_(r, atomic_load_explicit(
				&r->cons.index, memory_order_relaxed), 1) == 0)
			return false;
	}
	lat_wait_notify(&w->space, st);
	return true;
}

#endif

/*
 * lat_seqring: the latency-mode SPSC ring. Each slot carries its own
 * sequence number, so a hand-off moves the slot's line and nothing else.
 *
 * Why a second ring: lat_spsc (latlab/spsc.h) publishes a tail index and
 * a head index; when the ring runs near empty, as a latency pipeline's
 * rings do, every hand-off moves three lines (the slot, the tail, and the
 * head on its way back), about 3x the cache-line floor in `latlab bench`.
 * Here the consumer polls the slot it is about to read and the producer
 * checks the slot it is about to write (the scheme of Lamport's queue with
 * a per-slot mark, FastFlow, and the Disruptor's per-slot sequence), so a
 * hand-off costs the slot's line. lat_spsc stays the ring for throughput:
 * its cached indices let a producer running ahead fill many slots per
 * index transfer, and it has bursts and zero-copy, which this one has not.
 * `latlab bench` and bench/bench_ring_peer print both, side by side.
 *
 * Slot protocol (position p = free-running 64-bit counter, slot p & mask):
 *   empty for position p  <=>  slot.seq == p
 *   full  for position p  <=>  slot.seq == p + 1
 * The producer at position t writes the payload and then release-stores
 * seq = t + 1; the consumer at h acquire-loads seq, sees h + 1, copies the
 * payload out and release-stores seq = h + capacity (empty for the next
 * lap). Each acquire pairs with the other side's release on the same
 * word, so the payload write happens before its read and the read before
 * the next lap's overwrite. Sequence values are compared for equality
 * only, so the 2^64 wrap is harmless (tests start near UINT64_MAX).
 *
 * Invariants (the same guarantees as lat_spsc):
 *  - One producer thread and one consumer thread; "any thread" functions
 *    may be called by observers (answers may be stale).
 *  - capacity is a power of two and every slot is usable.
 *  - Nothing is dropped silently: a push on a full ring returns false and
 *    the element stays with the caller; a pop on an empty ring returns
 *    false with @out untouched.
 *  - Hot operations are inline, lock-free, syscall-free, allocation-free.
 *
 * Layout: a slot is 8 bytes of sequence then the element, its stride
 * rounded up to a power of two up to a cache line (16, 32, 64) so a slot
 * of up to 56 bytes of payload never straddles two lines, and to whole
 * lines above (a 64-byte element takes two lines: the mark and 56 bytes
 * in the first, 8 in the second). Each side's position lives in its own
 * LAT_PAD_BYTES region; the other side never reads it on the hot path,
 * only observers do (lat_seqring_count, for depth sampling).
 */
#ifndef LATLAB_SEQRING_H
#define LATLAB_SEQRING_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "latlab/common.h"
#include "latlab/wait.h"

/* Largest capacity (slots) and element (bytes) accepted. */
#define LAT_SEQRING_MAX_CAPACITY ((size_t)1 << 28)
#define LAT_SEQRING_MAX_ELEM ((size_t)1 << 12)

/* One side: its position (private, published relaxed for observers). */
struct lat_seqring_side {
	_Atomic uint64_t pos;
	unsigned char *slots;  /* copy of the shape: no shared line read */
	uint64_t mask;
	uint64_t capacity;
	size_t stride;         /* bytes per slot, >= 8 + elem_size */
	size_t elem_size;
};

struct lat_seqring {
	_Alignas(LAT_PAD_BYTES) struct lat_seqring_side prod;
	_Alignas(LAT_PAD_BYTES) struct lat_seqring_side cons;
};

/*
 * Bytes per slot for @elem_size, or 0 when elem_size is not in
 * [1, LAT_SEQRING_MAX_ELEM]. Any thread.
 */
size_t lat_seqring_stride(size_t elem_size);

/*
 * Bytes of buffer for @capacity slots of @elem_size, or 0 when capacity
 * is not a power of two in [1, LAT_SEQRING_MAX_CAPACITY] or the element
 * size is out of range. Any thread.
 */
size_t lat_seqring_buffer_size(size_t capacity, size_t elem_size);

/*
 * Initialise @r (LAT_PAD_BYTES-aligned) on the caller's @buf of
 * lat_seqring_buffer_size() bytes, aligned to LAT_CACHELINE (so slots do
 * not straddle lines; checked). Writes every slot's mark. Returns 0 or
 * -EINVAL. No allocation. Before either thread uses the ring.
 */
int lat_seqring_init(struct lat_seqring *r, void *buf, size_t capacity,
		     size_t elem_size);

/* Heap pair: ring and buffer in one aligned allocation. 0, -EINVAL,
 * -ENOMEM; *out NULL on failure. lat_seqring_free accepts NULL. */
int lat_seqring_create(size_t capacity, size_t elem_size,
		       struct lat_seqring **out);
void lat_seqring_free(struct lat_seqring *r);

/* Slots, element size. Any thread. */
LAT_INLINE size_t lat_seqring_capacity(const struct lat_seqring *r)
{
	return (size_t)r->prod.capacity;
}

LAT_INLINE size_t lat_seqring_elem_size(const struct lat_seqring *r)
{
	return r->prod.elem_size;
}

/*
 * Elements in the ring, in [0, capacity]: a snapshot from the two
 * positions (each side stores its own after every operation, relaxed;
 * the other side never reads it). Any thread, not for hot loops.
 */
LAT_INLINE size_t lat_seqring_count(const struct lat_seqring *r)
{
	/* relaxed: a depth sample, not a synchronization; consumer first
	 * so a racing push can only make the answer larger */
	uint64_t head = atomic_load_explicit(&r->cons.pos,
					     memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->prod.pos,
					     memory_order_relaxed);
	uint64_t n = tail - head;

	return (size_t)(n > r->prod.capacity ? r->prod.capacity : n);
}

/* The mark of slot @pos on side @s. Internal. */
LAT_INLINE _Atomic uint64_t *lat_seqring_mark_(const struct lat_seqring_side *s,
					       uint64_t pos)
{
	return (_Atomic uint64_t *)(void *)(s->slots + (pos & s->mask) *
						       s->stride);
}

/*
 * Producer only, hot. True when the next push will succeed (the slot it
 * writes is empty): the wait strategies' readiness test.
 */
LAT_INLINE bool lat_seqring_can_push(const struct lat_seqring *r)
{
	uint64_t t = atomic_load_explicit(&r->prod.pos, memory_order_relaxed);

	/* acquire pairs with the consumer's release of the mark in
	 * lat_seqring_try_pop_raw: its read of the slot is done before we
	 * overwrite it */
	return atomic_load_explicit(lat_seqring_mark_(&r->prod, t),
				    memory_order_acquire) == t;
}

/* Consumer only, hot. True when the next pop will succeed. */
LAT_INLINE bool lat_seqring_can_pop(const struct lat_seqring *r)
{
	uint64_t h = atomic_load_explicit(&r->cons.pos, memory_order_relaxed);

	/* acquire pairs with the producer's release of the mark in
	 * lat_seqring_try_push_raw: the payload is visible */
	return atomic_load_explicit(lat_seqring_mark_(&r->cons, h),
				    memory_order_acquire) == h + 1;
}

/*
 * Producer only, hot. Copy @size bytes (the ring's element size; pass a
 * constant so the copy inlines) from @elem into the next slot and mark it
 * full. False when the ring is full: nothing written, the element is
 * still the caller's.
 */
LAT_INLINE bool lat_seqring_try_push_raw(struct lat_seqring *r,
					 const void *elem, size_t size)
{
	uint64_t t = atomic_load_explicit(&r->prod.pos, memory_order_relaxed);
	unsigned char *slot = r->prod.slots + (t & r->prod.mask) *
						      r->prod.stride;
	_Atomic uint64_t *mark = (_Atomic uint64_t *)(void *)slot;

	assert(size == r->prod.elem_size);
	/* acquire: see lat_seqring_can_push */
	if (LAT_UNLIKELY(atomic_load_explicit(mark, memory_order_acquire) !=
			 t))
		return false;
	memcpy(slot + sizeof(uint64_t), elem, size);
	/* release pairs with the consumer's acquire of the mark: the
	 * payload is written before the slot reads full */
	atomic_store_explicit(mark, t + 1, memory_order_release);
	/* relaxed: our own line, read only by observers */
	atomic_store_explicit(&r->prod.pos, t + 1, memory_order_relaxed);
	return true;
}

/*
 * Consumer only, hot. Copy the oldest element into @out (@size bytes, a
 * constant) and mark its slot empty for the next lap. False when empty.
 */
LAT_INLINE bool lat_seqring_try_pop_raw(struct lat_seqring *r, void *out,
					size_t size)
{
	uint64_t h = atomic_load_explicit(&r->cons.pos, memory_order_relaxed);
	unsigned char *slot = r->cons.slots + (h & r->cons.mask) *
						      r->cons.stride;
	_Atomic uint64_t *mark = (_Atomic uint64_t *)(void *)slot;

	assert(size == r->cons.elem_size);
	/* acquire: see lat_seqring_can_pop */
	if (LAT_UNLIKELY(atomic_load_explicit(mark, memory_order_acquire) !=
			 h + 1))
		return false;
	memcpy(out, slot + sizeof(uint64_t), size);
	/* release pairs with the producer's acquire of the mark: our read
	 * of the payload is done before the next lap overwrites it */
	atomic_store_explicit(mark, h + r->cons.capacity,
			      memory_order_release);
	atomic_store_explicit(&r->cons.pos, h + 1, memory_order_relaxed);
	return true;
}

/* Size-less forms (libc memcpy of the ring's element size). */
LAT_INLINE bool lat_seqring_try_push(struct lat_seqring *r, const void *elem)
{
	return lat_seqring_try_push_raw(r, elem, r->prod.elem_size);
}

LAT_INLINE bool lat_seqring_try_pop(struct lat_seqring *r, void *out)
{
	return lat_seqring_try_pop_raw(r, out, r->cons.elem_size);
}

/*
 * Waiting on a seqring: the same lat_wait strategies and protocol as
 * lat_wait_push/pop (latlab/wait.h); one struct lat_wait_pair per ring.
 */
struct lat_seqring_wait_ctx_ {
	struct lat_seqring *r;
	const atomic_bool *stop;
};

static inline bool lat_seqring_space_or_stop_(void *p)
{
	struct lat_seqring_wait_ctx_ *c = p;

	/* acquire on stop pairs with the release store that set it */
	return lat_seqring_can_push(c->r) ||
	       (c->stop && atomic_load_explicit(c->stop, memory_order_acquire));
}

static inline bool lat_seqring_data_or_stop_(void *p)
{
	struct lat_seqring_wait_ctx_ *c = p;

	return lat_seqring_can_pop(c->r) ||
	       (c->stop && atomic_load_explicit(c->stop, memory_order_acquire));
}

/*
 * Producer only. Push, waiting on @w->space while full, then notify
 * @w->data. False when *@stop (may be NULL) became true while the ring
 * was full; the element is then still the caller's.
 */
LAT_INLINE bool lat_seqring_wait_push(struct lat_seqring *r,
				      struct lat_wait_pair *w,
				      const void *elem, size_t size,
				      const atomic_bool *stop,
				      struct lat_wait_stats *st)
{
	while (!lat_seqring_try_push_raw(r, elem, size)) {
		struct lat_seqring_wait_ctx_ c = { r, stop };

		lat_wait_until(&w->space, lat_seqring_space_or_stop_, &c, st);
		if (stop && atomic_load_explicit(stop, memory_order_acquire) &&
		    !lat_seqring_can_push(r))
			return false;
	}
	lat_wait_notify(&w->data, st);
	return true;
}

/*
 * Consumer only. Pop, waiting on @w->data while empty, then notify
 * @w->space. False when *@stop became true while the ring was empty
 * (everything pushed before the stop is still delivered first).
 */
LAT_INLINE bool lat_seqring_wait_pop(struct lat_seqring *r,
				     struct lat_wait_pair *w, void *out,
				     size_t size, const atomic_bool *stop,
				     struct lat_wait_stats *st)
{
	while (!lat_seqring_try_pop_raw(r, out, size)) {
		struct lat_seqring_wait_ctx_ c = { r, stop };

		lat_wait_until(&w->data, lat_seqring_data_or_stop_, &c, st);
		if (stop && atomic_load_explicit(stop, memory_order_acquire) &&
		    !lat_seqring_can_pop(r))
			return false;
	}
	lat_wait_notify(&w->space, st);
	return true;
}

/*
 * LAT_SEQRING_TYPED(prefix, type): prefix_create(capacity, &r),
 * prefix_try_push(r, const type *), prefix_try_pop(r, type *), with the
 * copy's size a constant.
 */
#define LAT_SEQRING_TYPED(prefix, type)                                     \
	static inline int prefix##_create(size_t capacity,                  \
					  struct lat_seqring **out)         \
	{                                                                   \
		return lat_seqring_create(capacity, sizeof(type), out);     \
	}                                                                   \
	static inline bool prefix##_try_push(struct lat_seqring *r,         \
					     const type *elem)              \
	{                                                                   \
		return lat_seqring_try_push_raw(r, elem, sizeof(type));     \
	}                                                                   \
	static inline bool prefix##_try_pop(struct lat_seqring *r,          \
					    type *out)                      \
	{                                                                   \
		return lat_seqring_try_pop_raw(r, out, sizeof(type));       \
	}

#endif

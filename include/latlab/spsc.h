/*
 * lat_spsc: a bounded single-producer single-consumer ring of fixed-size
 * elements.
 *
 * Invariants:
 *  - Exactly one producer thread and one consumer thread at a time. The
 *    producer may call only the "producer" functions below, the consumer
 *    only the "consumer" functions; "any thread" functions are safe from
 *    both and from observers (their answer may be stale by the time it
 *    returns). Handing a side to another thread needs a happens-before
 *    edge between the old and the new owner (a join, a mutex, ...).
 *  - capacity is a power of two and every one of the capacity slots is
 *    usable (unlike rings that keep one slot empty): the indices are
 *    free-running 64-bit counters, never wrapped to the buffer size, and
 *    compared by unsigned difference, so tail - head is the fill level even
 *    across the 2^64 wrap (which, at 10^9 elements/s, takes 584 years, but
 *    the code does not rely on that; tests start the counters near
 *    UINT64_MAX).
 *  - Nothing is dropped silently: a push on a full ring returns false and
 *    leaves the element with the caller; a pop on an empty ring returns
 *    false and leaves the output untouched.
 *  - The hot path (every function marked "hot") is inline, takes no lock,
 *    makes no syscall and never allocates. Blocking is not the ring's job:
 *    see latlab/wait.h for spin, spin-then-yield and futex waits.
 *
 * Memory layout: the producer's index and its private state (a cached
 * copy of the consumer's index and a copy of the ring's shape) live in one
 * LAT_PAD_BYTES-aligned region, the consumer's in another. Each side
 * therefore reads and writes only its own region in the common case and
 * touches the other side's line only when its cached copy says the ring
 * looks full (producer) or empty (consumer). Two cache lines of padding
 * defeat the adjacent-line prefetcher on x86 (see common.h).
 *
 * Why inline functions with an explicit element size (and a typed wrapper
 * macro) rather than opaque calls: a message copy of a size the compiler
 * knows becomes a few moves; a copy of a size read from the struct is a
 * call into libc memcpy, which for 8 bytes costs more than the ring
 * itself. So every hot operation exists in a *_raw form taking the element
 * size, meant to be called with a constant (sizeof), and
 * LAT_SPSC_TYPED(prefix, type) generates prefix_try_push(r, const type *)
 * and friends on top of it, in the spirit of CK_RING_PROTOTYPE but on the
 * one struct lat_spsc (no per-type struct, so rings can be created,
 * passed and sized by generic code). The size-less forms take the size
 * from the ring and suit code that does not know the type.
 */
#ifndef LATLAB_SPSC_H
#define LATLAB_SPSC_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "latlab/common.h"

/* Largest capacity accepted (slots). Bounds capacity * elem_size too. */
#define LAT_SPSC_MAX_CAPACITY ((size_t)1 << 31)
/* Largest element accepted (bytes). */
#define LAT_SPSC_MAX_ELEM ((size_t)1 << 16)

/*
 * One side of the ring. @index is the side's own counter (tail for the
 * producer: next slot to write; head for the consumer: next slot to read),
 * published with release stores and read by the other side with acquire
 * loads. Everything else is private to the side's thread.
 */
struct lat_spsc_side {
	_Atomic uint64_t index;
	uint64_t cached;       /* last seen value of the other side's index */
	unsigned char *slots;  /* copy of the shape, so no shared line is read */
	uint64_t mask;         /* capacity - 1 */
	uint64_t capacity;
	size_t elem_size;
};

struct lat_spsc {
	_Alignas(LAT_PAD_BYTES) struct lat_spsc_side prod;
	_Alignas(LAT_PAD_BYTES) struct lat_spsc_side cons;
};

/*
 * Bytes of buffer a ring of @capacity slots of @elem_size bytes needs, or
 * 0 when capacity is not a power of two in [1, LAT_SPSC_MAX_CAPACITY] or
 * elem_size is not in [1, LAT_SPSC_MAX_ELEM]. Any thread.
 */
size_t lat_spsc_buffer_size(size_t capacity, size_t elem_size);

/*
 * Initialise @r on caller storage with the caller's @buf of
 * lat_spsc_buffer_size(capacity, elem_size) bytes (the ring does not own
 * it; align it to LAT_CACHELINE for speed, and to the element's alignment
 * if you use lat_spsc_reserve/peek pointers as typed pointers). @r must be
 * LAT_PAD_BYTES-aligned: a declared struct lat_spsc is; heap storage needs
 * aligned_alloc. Returns 0, or -EINVAL for a bad size, a NULL pointer or
 * a misaligned @r. No allocation. Call before either thread uses the ring.
 */
int lat_spsc_init(struct lat_spsc *r, void *buf, size_t capacity,
		  size_t elem_size);

/*
 * Heap pair: one aligned allocation holding the ring and its buffer.
 * Returns 0, -EINVAL (as lat_spsc_init) or -ENOMEM; *out is NULL on
 * failure. lat_spsc_free accepts NULL. Not while either side is in use.
 */
int lat_spsc_create(size_t capacity, size_t elem_size, struct lat_spsc **out);
void lat_spsc_free(struct lat_spsc *r);

/* Slots in the ring. Any thread. */
LAT_INLINE size_t lat_spsc_capacity(const struct lat_spsc *r)
{
	return (size_t)r->prod.capacity;
}

/* Bytes per element. Any thread. */
LAT_INLINE size_t lat_spsc_elem_size(const struct lat_spsc *r)
{
	return r->prod.elem_size;
}

/*
 * Elements in the ring right now, in [0, capacity]. Any thread; exact
 * when called by either side while the other is idle, a snapshot
 * otherwise. Reads both shared indices: not for hot loops.
 */
LAT_INLINE size_t lat_spsc_count(const struct lat_spsc *r)
{
	/* acquire, as the other loads of the indices; head first so that a
	 * concurrent push can only make the answer larger, never > capacity
	 * by a stale head */
	uint64_t head = atomic_load_explicit(&r->cons.index,
					     memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->prod.index,
					     memory_order_acquire);
	uint64_t n = tail - head;

	return (size_t)(n > r->prod.capacity ? r->prod.capacity : n);
}

/*
 * Internal (trailing underscore): used by the inline operations below.
 * Producer only, hot. Free slots as the producer can see them, refreshing
 * its cached head only when the cache says fewer than @want are free.
 */
LAT_INLINE size_t lat_spsc_free_slots_(struct lat_spsc *r, uint64_t tail,
				       size_t want)
{
	uint64_t free_n = r->prod.capacity - (tail - r->prod.cached);

	if (LAT_UNLIKELY(free_n < want)) {
		/* acquire pairs with the consumer's release store of head
		 * in the pops and lat_spsc_consume: its reads of the slots it freed
		 * happen before our writes into them */
		r->prod.cached = atomic_load_explicit(&r->cons.index,
						      memory_order_acquire);
		free_n = r->prod.capacity - (tail - r->prod.cached);
	}
	return (size_t)free_n;
}

/*
 * Consumer only, hot. Filled slots as the consumer can see them,
 * refreshing its cached tail only when the cache says fewer than @want.
 */
LAT_INLINE size_t lat_spsc_filled_slots_(struct lat_spsc *r, uint64_t head,
					 size_t want)
{
	uint64_t n = r->cons.cached - head;

	if (LAT_UNLIKELY(n < want)) {
		/* acquire pairs with the producer's release store of tail
		 * in the pushes and lat_spsc_commit: the slot contents it wrote are
		 * visible before we read them */
		r->cons.cached = atomic_load_explicit(&r->prod.index,
						      memory_order_acquire);
		n = r->cons.cached - head;
	}
	return (size_t)n;
}

/*
 * Producer only, hot. Copy @size bytes from @elem into the next slot and
 * publish it. @size must equal the ring's element size; pass a constant
 * (sizeof) so the copy is inlined. Returns true, or false when the ring
 * is full (nothing written; the element is still the caller's).
 */
LAT_INLINE bool lat_spsc_try_push_raw(struct lat_spsc *r, const void *elem,
				      size_t size)
{
	/* relaxed: only this thread writes tail */
	uint64_t tail = atomic_load_explicit(&r->prod.index,
					     memory_order_relaxed);

	assert(size == r->prod.elem_size);
	if (LAT_UNLIKELY(lat_spsc_free_slots_(r, tail, 1) == 0))
		return false;
	memcpy(r->prod.slots + (tail & r->prod.mask) * size, elem, size);
	/* release pairs with the consumer's acquire load of tail in
	 * lat_spsc_filled_slots_: the slot write is visible before the
	 * new tail is */
	atomic_store_explicit(&r->prod.index, tail + 1, memory_order_release);
	return true;
}

/*
 * Consumer only, hot. Copy the oldest element into @out (@size bytes, the
 * ring's element size; pass a constant) and free its slot. Returns true,
 * or false when the ring is empty (@out untouched).
 */
LAT_INLINE bool lat_spsc_try_pop_raw(struct lat_spsc *r, void *out,
				     size_t size)
{
	/* relaxed: only this thread writes head */
	uint64_t head = atomic_load_explicit(&r->cons.index,
					     memory_order_relaxed);

	assert(size == r->cons.elem_size);
	if (LAT_UNLIKELY(lat_spsc_filled_slots_(r, head, 1) == 0))
		return false;
	memcpy(out, r->cons.slots + (head & r->cons.mask) * size, size);
	/* release pairs with the producer's acquire load of head in
	 * lat_spsc_free_slots_: our read of the slot is done before the
	 * producer may overwrite it */
	atomic_store_explicit(&r->cons.index, head + 1, memory_order_release);
	return true;
}

/*
 * Producer only, hot. Push up to @n elements from the array @elems (each
 * @size bytes, the ring's element size) with one publication. Returns how
 * many were pushed, in [0, n]: the first that many of @elems now belong to
 * the ring, the rest are still the caller's.
 */
LAT_INLINE size_t lat_spsc_push_burst_raw(struct lat_spsc *r,
					  const void *elems, size_t n,
					  size_t size)
{
	uint64_t tail = atomic_load_explicit(&r->prod.index,
					     memory_order_relaxed);
	size_t free_n = lat_spsc_free_slots_(r, tail, n);
	size_t at = (size_t)(tail & r->prod.mask), first;

	assert(size == r->prod.elem_size);
	if (n > free_n)
		n = free_n;
	if (n == 0)
		return 0;
	first = (size_t)r->prod.capacity - at;
	if (first > n)
		first = n;
	memcpy(r->prod.slots + at * size, elems, first * size);
	memcpy(r->prod.slots, (const unsigned char *)elems + first * size,
	       (n - first) * size);
	/* release pairs with the consumer's acquire load of tail: all n
	 * slot writes are visible before the new tail is */
	atomic_store_explicit(&r->prod.index, tail + n, memory_order_release);
	return n;
}

/*
 * Consumer only, hot. Pop up to @n elements into the array @out. Returns
 * how many were popped, in [0, n], in FIFO order.
 */
LAT_INLINE size_t lat_spsc_pop_burst_raw(struct lat_spsc *r, void *out,
					 size_t n, size_t size)
{
	uint64_t head = atomic_load_explicit(&r->cons.index,
					     memory_order_relaxed);
	size_t filled = lat_spsc_filled_slots_(r, head, n);
	size_t at = (size_t)(head & r->cons.mask), first;

	assert(size == r->cons.elem_size);
	if (n > filled)
		n = filled;
	if (n == 0)
		return 0;
	first = (size_t)r->cons.capacity - at;
	if (first > n)
		first = n;
	memcpy(out, r->cons.slots + at * size, first * size);
	memcpy((unsigned char *)out + first * size, r->cons.slots,
	       (n - first) * size);
	/* release pairs with the producer's acquire load of head: our reads
	 * of the n slots are done before it may overwrite them */
	atomic_store_explicit(&r->cons.index, head + n, memory_order_release);
	return n;
}

/* Size-less forms: the element size comes from the ring (libc memcpy). */
LAT_INLINE bool lat_spsc_try_push(struct lat_spsc *r, const void *elem)
{
	return lat_spsc_try_push_raw(r, elem, r->prod.elem_size);
}

LAT_INLINE bool lat_spsc_try_pop(struct lat_spsc *r, void *out)
{
	return lat_spsc_try_pop_raw(r, out, r->cons.elem_size);
}

LAT_INLINE size_t lat_spsc_push_burst(struct lat_spsc *r, const void *elems,
				      size_t n)
{
	return lat_spsc_push_burst_raw(r, elems, n, r->prod.elem_size);
}

LAT_INLINE size_t lat_spsc_pop_burst(struct lat_spsc *r, void *out, size_t n)
{
	return lat_spsc_pop_burst_raw(r, out, n, r->cons.elem_size);
}

/*
 * Zero-copy runs stop at the end of the buffer: the longest contiguous
 * run from slot @at, at most @avail ready slots and at most *@n asked.
 * Sets *@n to the run and returns it.
 */
LAT_INLINE size_t lat_spsc_run_(uint64_t capacity, size_t at, size_t avail,
				size_t *n)
{
	size_t run = (size_t)capacity - at;

	if (run > avail)
		run = avail;
	if (run > *n)
		run = *n;
	*n = run;
	return run;
}

/*
 * Zero-copy producer side (producer only, hot). lat_spsc_reserve returns
 * a pointer to contiguous free slots and sets *@n to how many (at most
 * the *@n asked for, fewer when the ring is nearly full or the free run
 * reaches the end of the buffer), or returns NULL with *@n = 0 when the
 * ring is full. Fill some prefix of them, then lat_spsc_commit(r, k) with
 * k <= the reserved count publishes the first k in order. Reserving again
 * without committing returns the same slots.
 */
LAT_INLINE void *lat_spsc_reserve(struct lat_spsc *r, size_t *n)
{
	uint64_t tail = atomic_load_explicit(&r->prod.index,
					     memory_order_relaxed);
	size_t free_n = lat_spsc_free_slots_(r, tail, *n);
	size_t at = (size_t)(tail & r->prod.mask);

	return lat_spsc_run_(r->prod.capacity, at, free_n, n)
		       ? r->prod.slots + at * r->prod.elem_size
		       : NULL;
}

LAT_INLINE void lat_spsc_commit(struct lat_spsc *r, size_t k)
{
	uint64_t tail = atomic_load_explicit(&r->prod.index,
					     memory_order_relaxed);

	assert(k <= r->prod.capacity - (tail - r->prod.cached));
	/* release pairs with the consumer's acquire load of tail: the
	 * caller's writes into the reserved slots are visible first */
	atomic_store_explicit(&r->prod.index, tail + k, memory_order_release);
}

/*
 * Zero-copy consumer side (consumer only, hot). lat_spsc_peek returns a
 * pointer to the oldest elements, contiguous, and sets *@n to how many (at
 * most the *@n asked for), or NULL with *@n = 0 when empty. Read them,
 * then lat_spsc_consume(r, k) with k <= the peeked count frees the first
 * k. The pointer is valid until then.
 */
LAT_INLINE const void *lat_spsc_peek(struct lat_spsc *r, size_t *n)
{
	uint64_t head = atomic_load_explicit(&r->cons.index,
					     memory_order_relaxed);
	size_t filled = lat_spsc_filled_slots_(r, head, *n);
	size_t at = (size_t)(head & r->cons.mask);

	return lat_spsc_run_(r->cons.capacity, at, filled, n)
		       ? r->cons.slots + at * r->cons.elem_size
		       : NULL;
}

LAT_INLINE void lat_spsc_consume(struct lat_spsc *r, size_t k)
{
	uint64_t head = atomic_load_explicit(&r->cons.index,
					     memory_order_relaxed);

	assert(k <= r->cons.cached - head);
	/* release pairs with the producer's acquire load of head: our reads
	 * of the k slots are done before it may overwrite them */
	atomic_store_explicit(&r->cons.index, head + k, memory_order_release);
}

/*
 * LAT_SPSC_TYPED(prefix, type) defines static inline typed operations on a
 * struct lat_spsc whose element size is sizeof(type):
 *   int    prefix_init(struct lat_spsc *r, void *buf, size_t capacity);
 *   int    prefix_create(size_t capacity, struct lat_spsc **out);
 *   bool   prefix_try_push(struct lat_spsc *r, const type *elem);
 *   bool   prefix_try_pop(struct lat_spsc *r, type *out);
 *   size_t prefix_push_burst(struct lat_spsc *r, const type *elems, size_t n);
 *   size_t prefix_pop_burst(struct lat_spsc *r, type *out, size_t n);
 * Same contracts as the lat_spsc_* functions they wrap; the copy is
 * inlined because its size is a constant.
 */
#define LAT_SPSC_TYPED(prefix, type)                                        \
	static inline int prefix##_init(struct lat_spsc *r, void *buf,      \
					size_t capacity)                    \
	{                                                                   \
		return lat_spsc_init(r, buf, capacity, sizeof(type));       \
	}                                                                   \
	static inline int prefix##_create(size_t capacity,                  \
					  struct lat_spsc **out)            \
	{                                                                   \
		return lat_spsc_create(capacity, sizeof(type), out);        \
	}                                                                   \
	static inline bool prefix##_try_push(struct lat_spsc *r,            \
					     const type *elem)              \
	{                                                                   \
		return lat_spsc_try_push_raw(r, elem, sizeof(type));        \
	}                                                                   \
	static inline bool prefix##_try_pop(struct lat_spsc *r, type *out)  \
	{                                                                   \
		return lat_spsc_try_pop_raw(r, out, sizeof(type));          \
	}                                                                   \
	static inline size_t prefix##_push_burst(struct lat_spsc *r,        \
						 const type *elems,         \
						 size_t n)                  \
	{                                                                   \
		return lat_spsc_push_burst_raw(r, elems, n, sizeof(type));  \
	}                                                                   \
	static inline size_t prefix##_pop_burst(struct lat_spsc *r,         \
						type *out, size_t n)        \
	{                                                                   \
		return lat_spsc_pop_burst_raw(r, out, n, sizeof(type));     \
	}

#endif

/*
 * lat_seqring: the latency-mode SPSC ring. Each slot carries its own
 * sequence number and, on a ring that is not filling up, the consumer
 * never writes a slot, so a hand-off moves the slot's line(s) and
 * nothing else.
 *
 * Why a second ring: lat_spsc (latlab/spsc.h) publishes a tail index and
 * a head index; when the ring runs near empty, as a latency pipeline's
 * rings do, every hand-off moves three lines (the slot, the tail, and the
 * head on its way back), about 3x the cache-line floor in `latlab bench`.
 * Here the consumer polls the slot it is about to read (the scheme of
 * Lamport's queue with a per-slot mark, FastFlow, and the Disruptor's
 * per-slot sequence), so a hand-off costs the slot's line. lat_spsc stays
 * the ring for bursts and zero-copy, which this one has not.
 * `latlab bench` and bench/bench_ring_peer print both.
 *
 * Slot protocol (position p = free-running 64-bit counter, slot p & mask):
 *   full for position p  <=>  the slot's mark == p + 1
 * The producer at position t writes the payload and then release-stores
 * t + 1 into the slot's mark; the consumer at h acquire-loads the mark,
 * sees h + 1, copies the payload out and release-stores its position
 * h + 1 on its own line, after every pop. The producer learns that slots
 * are free from that position, which it reads only when its cached copy
 * says the ring is full (about once per lap on a ring that is not
 * filling up): the consumer's progress travels lazily, off the
 * hand-off's path. Why the consumer does not mark the slot empty instead
 * (the first version did): x86 makes stores visible in program order, so
 * in a pipeline that store, which needs the line back from the
 * producer's side, held up the consumer's own next publication
 * (docs/ring.md). A stale mark left from the previous lap reads
 * p + 1 - capacity, never p + 1, so no empty mark is needed. Sequence
 * values are compared for equality only, so the 2^64 wrap is harmless
 * (tests start near UINT64_MAX).
 *
 * A ring that fills up: a producer running ahead would re-read the
 * consumer's position on every push, and that line would then move once
 * per message. So when a refresh finds a quarter of the ring or less
 * free, the producer sets `pressed` (on the consumer's line); while it is
 * set, each pop also release-stores p + 1 + LAT_SEQRING_FREED into the
 * slot's mark, and the producer checks that mark (in the line it is
 * about to write) before the consumer's position. The consumer clears
 * `pressed` when it finds the ring empty. The position is still
 * published on every pop, so a push fails exactly when the ring is full.
 *
 * Invariants (the same guarantees as lat_spsc):
 *  - One producer thread and one consumer thread; "any thread" functions
 *    may be called by observers (answers may be stale).
 *  - capacity is a power of two and every slot is usable.
 *  - Nothing is dropped silently: a push fails only on a full ring and
 *    the element then stays with the caller; a pop on an empty ring
 *    returns false with @out untouched.
 *  - Hot operations are inline, lock-free, syscall-free, allocation-free.
 *
 * Layout: an element of up to LAT_SEQRING_SMALL (56) bytes sits behind
 * its 8-byte mark in a power-of-two slot within one line (16, 32 or 64
 * bytes), never straddling two: its hand-off moves one line. A larger
 * element starts the slot, whole and line-aligned (copied as one block,
 * as any ring copies it), and the mark follows it: a 64-byte element is
 * a line of payload plus a line holding the mark (stride 128), so its
 * hand-off moves two lines, the least for 64 bytes plus a "full" mark
 * (docs/ring.md measures that floor). While polling, the consumer
 * prefetches the payload's lines, so they travel with the mark's.
 * Each side's position and private state live in their own
 * LAT_PAD_BYTES region.
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

/*
 * A slot's first mark after a pop under pressure: position p's reader is
 * done when it reads p + 1 + LAT_SEQRING_FREED. Never equal to a full
 * mark the consumer waits for (p + 1 + k * capacity, capacity <= 2^28)
 * nor to another lap's free mark.
 */
#define LAT_SEQRING_FREED ((uint64_t)1 << 63)

/* Largest element that shares one line with its slot's mark. */
#define LAT_SEQRING_SMALL (LAT_CACHELINE - sizeof(uint64_t))

/* One side's private state, on its own lines. */
struct lat_seqring_side {
	/* consumer: released after each pop, read by the producer when its
	 * cache says full; producer: relaxed, read only by observers */
	_Atomic uint64_t pos;
	/* consumer side only: set by the producer while the ring runs
	 * nearly full, cleared by the consumer when it finds it empty; while
	 * set, a pop also marks its slot free (LAT_SEQRING_FREED). On the
	 * consumer's own line: reading it costs a pop nothing, and the
	 * producer writes it only when the ring fills up */
	_Atomic uint32_t pressed;
	uint64_t seen;         /* producer: the consumer's pos, last read */
	unsigned char *slots;  /* copy of the shape: no shared line read */
	uint64_t mask;
	uint64_t capacity;
	size_t stride;         /* bytes per slot */
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
 * not straddle lines; checked). Writes every mark. Returns 0 or -EINVAL.
 * No allocation. Before either thread uses the ring.
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
 * positions. Any thread, not for hot loops.
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

/*
 * Where a slot's mark and payload sit for elements of @size bytes: a
 * small element behind its mark, a larger one from the slot's start
 * (whole lines, copied as one block) with the mark right after it.
 * Internal; inline so that a constant size makes them constants.
 */
LAT_INLINE size_t lat_seqring_mark_off_(size_t size)
{
	return size <= LAT_SEQRING_SMALL ?
		       0 :
		       (size + sizeof(uint64_t) - 1) & ~(sizeof(uint64_t) - 1);
}

LAT_INLINE size_t lat_seqring_payload_off_(size_t size)
{
	return size <= LAT_SEQRING_SMALL ? sizeof(uint64_t) : 0;
}

/*
 * Bytes per slot for a valid @size: a power of two within a line up to
 * LAT_SEQRING_SMALL bytes, whole lines above. Inline so that a constant
 * size (the typed wrappers, the *_raw forms with sizeof) turns the slot
 * address into a shift. Internal; lat_seqring_stride() checks the range.
 */
LAT_INLINE size_t lat_seqring_stride_(size_t size)
{
	size_t s = 16, end = lat_seqring_mark_off_(size) + sizeof(uint64_t);

	if (size > LAT_SEQRING_SMALL)
		return (end + LAT_CACHELINE - 1) / LAT_CACHELINE *
		       LAT_CACHELINE;
	while (s < size + sizeof(uint64_t))
		s *= 2;
	return s;
}

/* The mark of slot @pos on side @s. Internal (and tests). */
LAT_INLINE _Atomic uint64_t *lat_seqring_mark_(const struct lat_seqring_side *s,
					       uint64_t pos)
{
	return (_Atomic uint64_t *)(void *)(s->slots + (pos & s->mask) *
						       s->stride +
					    lat_seqring_mark_off_(s->elem_size));
}

/* Slot @pos's first byte on side @s, for elements of @size bytes. */
LAT_INLINE unsigned char *lat_seqring_slot_(const struct lat_seqring_side *s,
					    uint64_t pos, size_t size)
{
	size_t stride = __builtin_constant_p(size) ? lat_seqring_stride_(size)
						   : s->stride;

	return s->slots + (pos & s->mask) * stride;
}

/*
 * Producer only, hot. True when the next push will succeed: the
 * consumer has moved past the slot's previous lap. The wait strategies'
 * readiness test (it reads the consumer's position; the push itself
 * reads it only when its cache says full).
 */
LAT_INLINE bool lat_seqring_can_push(const struct lat_seqring *r)
{
	uint64_t t = atomic_load_explicit(&r->prod.pos, memory_order_relaxed);

	if (t - r->prod.seen < r->prod.capacity)
		return true;
	/* acquire pairs with the consumer's release of its position in
	 * lat_seqring_try_pop_raw: its read of the slot is done before we
	 * overwrite it */
	return t - atomic_load_explicit(&r->cons.pos, memory_order_acquire) <
	       r->prod.capacity;
}

/*
 * Consumer only. True when the mark of @slot (position @h, elements of
 * @size bytes) reads @h + 1: full. For a slot of several lines, each
 * poll first prefetches the lines before the mark's, so they travel
 * with it rather than after it (a prefetch is not an access: no race
 * with the producer's writes). Internal.
 */
LAT_INLINE bool lat_seqring_ready_(const unsigned char *slot, uint64_t h,
				   size_t size)
{
	size_t off = lat_seqring_mark_off_(size);

	for (size_t l = 0; l < off / LAT_CACHELINE; l++)
		__builtin_prefetch(slot + l * LAT_CACHELINE);
	/* acquire pairs with the producer's release of the mark in
	 * lat_seqring_try_push_raw: the whole payload is visible */
	return atomic_load_explicit((const _Atomic uint64_t *)(const void *)(
					    slot + off),
				    memory_order_acquire) == h + 1;
}

/* Consumer only, hot. True when the next pop will succeed. */
LAT_INLINE bool lat_seqring_can_pop(const struct lat_seqring *r)
{
	uint64_t h = atomic_load_explicit(&r->cons.pos, memory_order_relaxed);

	return lat_seqring_ready_(lat_seqring_slot_(&r->cons, h,
						    r->cons.elem_size),
				  h, r->cons.elem_size);
}

/*
 * Producer only, when its cached copy of the consumer's position says
 * full: true when slot @slot (position @t) may be written. First the
 * slot's own first mark (the line we are about to write anyway): a
 * consumer under pressure marked it free after reading position t - cap,
 * so a producer running a full ring learns of each free slot from the
 * slot's line, and the consumer's position line stays where it is (the
 * old design's throughput, without the consumer's store on an idle
 * ring's hand-off). Else the consumer's position, exact as ever (it is
 * published on every pop): a push fails only on a truly full ring. A
 * refresh that leaves a quarter of the ring or less free asks the
 * consumer to start marking (pressed). Internal.
 */
static inline bool lat_seqring_room_(struct lat_seqring *r, uint64_t t,
				     _Atomic uint64_t *mark)
{
	uint64_t cap = r->prod.capacity;

	/* acquire pairs with the consumer's release of the free mark in
	 * lat_seqring_try_pop_raw: its read of position t - cap is done */
	if (atomic_load_explicit(mark, memory_order_acquire) ==
	    t - cap + 1 + LAT_SEQRING_FREED) {
		r->prod.seen = t - cap + 1;
		return true;
	}
	/* acquire: see lat_seqring_can_push */
	r->prod.seen = atomic_load_explicit(&r->cons.pos,
					    memory_order_acquire);
	/* relaxed: a hint, no data is handed over by it; the load is of
	 * the line just read, the store happens once per filling-up */
	if (cap - (t - r->prod.seen) <= cap / 4 &&
	    !atomic_load_explicit(&r->cons.pressed, memory_order_relaxed))
		atomic_store_explicit(&r->cons.pressed, 1,
				      memory_order_relaxed);
	return t - r->prod.seen < cap;
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
	unsigned char *slot = lat_seqring_slot_(&r->prod, t, size);
	_Atomic uint64_t *mark = (_Atomic uint64_t *)(void *)(
		slot + lat_seqring_mark_off_(size));

	assert(size == r->prod.elem_size &&
	       lat_seqring_stride_(size) == r->prod.stride);
	if (LAT_UNLIKELY(t - r->prod.seen >= r->prod.capacity) &&
	    !lat_seqring_room_(r, t, mark))
		return false;
	memcpy(slot + lat_seqring_payload_off_(size), elem, size);
	/* release pairs with the consumer's acquire of the mark: the
	 * payload is written before the slot reads full */
	atomic_store_explicit(mark, t + 1, memory_order_release);
	/* relaxed: our own line, read only by observers */
	atomic_store_explicit(&r->prod.pos, t + 1, memory_order_relaxed);
	return true;
}

/*
 * Consumer only, hot. Copy the oldest element into @out (@size bytes, a
 * constant) and release its slot by moving our position. False when
 * empty.
 */
LAT_INLINE bool lat_seqring_try_pop_raw(struct lat_seqring *r, void *out,
					size_t size)
{
	uint64_t h = atomic_load_explicit(&r->cons.pos, memory_order_relaxed);
	unsigned char *slot = lat_seqring_slot_(&r->cons, h, size);

	assert(size == r->cons.elem_size);
	if (LAT_UNLIKELY(!lat_seqring_ready_(slot, h, size))) {
		/* empty: the pressure is off; relaxed, a hint on our own
		 * line (see the pressed field) */
		if (LAT_UNLIKELY(atomic_load_explicit(&r->cons.pressed,
						      memory_order_relaxed)))
			atomic_store_explicit(&r->cons.pressed, 0,
					      memory_order_relaxed);
		return false;
	}
	memcpy(out, slot + lat_seqring_payload_off_(size), size);
	/* a nearly full ring: tell the producer on the slot's own line
	 * (lat_seqring_room_). Release pairs with its acquire of the
	 * mark: our read of the payload is done. Never on an idle ring:
	 * there this store would hold up our next publication (x86 keeps
	 * stores in order) while it fetched the line back */
	if (LAT_UNLIKELY(atomic_load_explicit(&r->cons.pressed,
					      memory_order_relaxed)))
		atomic_store_explicit((_Atomic uint64_t *)(void *)(
					      slot +
					      lat_seqring_mark_off_(size)),
				      h + 1 + LAT_SEQRING_FREED,
				      memory_order_release);
	/* release pairs with the producer's acquire of our position: our
	 * read of the payload is done before the next lap overwrites it */
	atomic_store_explicit(&r->cons.pos, h + 1, memory_order_release);
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

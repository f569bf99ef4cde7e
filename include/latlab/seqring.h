/*
 * lat_seqring: the latency-mode SPSC ring. Each slot carries its own
 * sequence number and the consumer never writes a slot, so a hand-off
 * moves the slot's line and nothing else.
 *
 * Why a second ring: lat_spsc (latlab/spsc.h) publishes a tail index and
 * a head index; when the ring runs near empty, as a latency pipeline's
 * rings do, every hand-off moves three lines (the slot, the tail, and the
 * head on its way back), about 3x the cache-line floor in `latlab bench`.
 * Here the consumer polls the slot it is about to read (the scheme of
 * Lamport's queue with a per-slot mark, FastFlow, and the Disruptor's
 * per-slot sequence), so a hand-off costs the slot's line. lat_spsc stays
 * the ring for throughput: it has bursts and zero-copy, which this one
 * has not. `latlab bench` and bench/bench_ring_peer print both.
 *
 * Slot protocol (position p = free-running 64-bit counter, slot p & mask):
 *   full for position p  <=>  every mark of the slot == p + 1
 * The producer at position t writes the payload and then release-stores
 * t + 1 into the slot's marks; the consumer at h acquire-loads the marks,
 * sees h + 1, copies the payload out and release-stores its position
 * h + 1 on its own line. The producer learns that slots are free from
 * that position, which it reads only when its cached copy says the ring
 * is full (about once per lap): the consumer's progress travels lazily,
 * off the hand-off's path. Why the consumer does not mark the slot empty
 * instead (the first version did): x86 makes stores visible in program
 * order, so in a pipeline that store, which needs the line back from
 * the producer's side, held up the consumer's own next publication
 * (docs/ring.md: 2.1x the floor with it, about 1x without). A stale mark
 * left from the previous lap reads p + 1 - capacity, never p + 1, so no
 * empty mark is needed. Sequence values are compared for equality only,
 * so the 2^64 wrap is harmless (tests start near UINT64_MAX).
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
 * Layout: every cache line of a slot starts with an 8-byte mark, followed
 * by up to 56 bytes of the element. A slot of up to 56 bytes of payload is
 * a power of two within a line (16, 32, 64 bytes), never straddling two;
 * a larger one takes whole lines, 56 bytes of payload each (a 64-byte
 * element: 56 + 8 in two lines). The consumer loads all the marks of a
 * slot before it tests any of them, so the lines travel in parallel and a
 * two-line hand-off costs about one transfer, not two. Each side's
 * position and private state live in their own LAT_PAD_BYTES region.
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

/* Payload bytes in each line of a slot (the rest is its mark). */
#define LAT_SEQRING_LINE_PAYLOAD (LAT_CACHELINE - sizeof(uint64_t))

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

/* Mark of line @line of slot @pos on side @s. Internal. */
LAT_INLINE _Atomic uint64_t *lat_seqring_mark_(const struct lat_seqring_side *s,
					       uint64_t pos, size_t line)
{
	return (_Atomic uint64_t *)(void *)(s->slots + (pos & s->mask) *
						       s->stride +
					    line * LAT_CACHELINE);
}

/* Lines (marks) in a slot for @size bytes of payload. Internal. */
LAT_INLINE size_t lat_seqring_lines_(size_t size)
{
	return (size + LAT_SEQRING_LINE_PAYLOAD - 1) /
	       LAT_SEQRING_LINE_PAYLOAD;
}

/*
 * Bytes per slot for a valid @size: a power of two within a line up to
 * 56 bytes of payload, whole lines above. Inline so that a constant size
 * (the typed wrappers, the *_raw forms with sizeof) turns the slot
 * address into a shift. Internal; lat_seqring_stride() checks the range.
 */
LAT_INLINE size_t lat_seqring_stride_(size_t size)
{
	size_t s = 16;

	if (size + sizeof(uint64_t) > LAT_CACHELINE)
		return lat_seqring_lines_(size) * LAT_CACHELINE;
	while (s < size + sizeof(uint64_t))
		s *= 2;
	return s;
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
 * Consumer only. Zero when every mark of @slot (position @h, elements of
 * @size bytes) reads @h + 1: full. Loads all the marks before any test,
 * so their lines are fetched in parallel. Internal.
 */
LAT_INLINE uint64_t lat_seqring_unready_(const unsigned char *slot,
					 uint64_t h, size_t size)
{
	uint64_t bad = 0;

	/* acquire pairs with the producer's release of each mark in
	 * lat_seqring_try_push_raw: the payload of that line is visible */
	for (size_t i = 0; i < lat_seqring_lines_(size); i++)
		bad |= atomic_load_explicit(
			       (_Atomic uint64_t *)(void *)(slot +
							   i * LAT_CACHELINE),
			       memory_order_acquire) ^
		       (h + 1);
	return bad;
}

/* Consumer only, hot. True when the next pop will succeed. */
LAT_INLINE bool lat_seqring_can_pop(const struct lat_seqring *r)
{
	uint64_t h = atomic_load_explicit(&r->cons.pos, memory_order_relaxed);

	return lat_seqring_unready_(lat_seqring_slot_(&r->cons, h,
						      r->cons.elem_size),
				    h, r->cons.elem_size) == 0;
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
				     unsigned char *slot)
{
	uint64_t cap = r->prod.capacity;

	/* acquire pairs with the consumer's release of the free mark in
	 * lat_seqring_try_pop_raw: its read of position t - cap is done */
	if (atomic_load_explicit((_Atomic uint64_t *)(void *)slot,
				 memory_order_acquire) ==
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
	const unsigned char *src = elem;

	assert(size == r->prod.elem_size &&
	       lat_seqring_stride_(size) == r->prod.stride);
	if (LAT_UNLIKELY(t - r->prod.seen >= r->prod.capacity) &&
	    !lat_seqring_room_(r, t, slot))
		return false;
	/* last line first: x86 shows our stores in program order and the
	 * consumer loads the marks first to last, so once it sees line 0
	 * full it sees every line full; no poll round is spent on a slot
	 * it caught half-written */
	for (size_t i = lat_seqring_lines_(size); i-- > 0;) {
		size_t off = i * LAT_SEQRING_LINE_PAYLOAD;
		size_t n = size - off < LAT_SEQRING_LINE_PAYLOAD ?
				   size - off :
				   LAT_SEQRING_LINE_PAYLOAD;
		unsigned char *line = slot + i * LAT_CACHELINE;

		memcpy(line + sizeof(uint64_t), src + off, n);
		/* release pairs with the consumer's acquire of this mark:
		 * the line's payload is written before it reads full */
		atomic_store_explicit((_Atomic uint64_t *)(void *)line, t + 1,
				      memory_order_release);
	}
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
	unsigned char *dst = out;

	assert(size == r->cons.elem_size);
	if (LAT_UNLIKELY(lat_seqring_unready_(slot, h, size) != 0)) {
		/* empty: the pressure is off; relaxed, a hint on our own
		 * line (see the pressed field) */
		if (LAT_UNLIKELY(atomic_load_explicit(&r->cons.pressed,
						      memory_order_relaxed)))
			atomic_store_explicit(&r->cons.pressed, 0,
					      memory_order_relaxed);
		return false;
	}
	for (size_t i = 0, off = 0; off < size;
	     i++, off += LAT_SEQRING_LINE_PAYLOAD) {
		size_t n = size - off < LAT_SEQRING_LINE_PAYLOAD ?
				   size - off :
				   LAT_SEQRING_LINE_PAYLOAD;

		memcpy(dst + off, slot + i * LAT_CACHELINE + sizeof(uint64_t),
		       n);
	}
	/* a nearly full ring: tell the producer on the slot's own line
	 * (lat_seqring_room_). Release pairs with its acquire of the
	 * mark: our read of the payload is done. Never on an idle ring:
	 * there this store would hold up our next publication (x86 keeps
	 * stores in order) while it fetched the line back */
	if (LAT_UNLIKELY(atomic_load_explicit(&r->cons.pressed,
					      memory_order_relaxed)))
		atomic_store_explicit((_Atomic uint64_t *)(void *)slot,
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

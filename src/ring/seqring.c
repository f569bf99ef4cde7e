/*
 * lat_seqring: the cold half of the latency-mode ring (sizing, init,
 * heap pair). The hot operations are inline in latlab/seqring.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "latlab/seqring.h"

size_t lat_seqring_stride(size_t elem_size)
{
	if (elem_size == 0 || elem_size > LAT_SEQRING_MAX_ELEM)
		return 0;
	return lat_seqring_stride_(elem_size);
}

size_t lat_seqring_buffer_size(size_t capacity, size_t elem_size)
{
	size_t stride = lat_seqring_stride(elem_size);

	if (capacity == 0 || capacity > LAT_SEQRING_MAX_CAPACITY ||
	    (capacity & (capacity - 1)) != 0 || stride == 0)
		return 0;
	/* 2^28 * 65 lines of 64 bytes fits in 64 bits */
	return capacity * stride;
}

int lat_seqring_init(struct lat_seqring *r, void *buf, size_t capacity,
		     size_t elem_size)
{
	struct lat_seqring_side side;
	unsigned char *b = buf;

	if (!r || !buf || lat_seqring_buffer_size(capacity, elem_size) == 0)
		return -EINVAL;
	if ((uintptr_t)r % LAT_PAD_BYTES || (uintptr_t)buf % LAT_CACHELINE)
		return -EINVAL;
	memset(&side, 0, sizeof(side));
	side.slots = b;
	side.mask = capacity - 1;
	side.capacity = capacity;
	side.stride = lat_seqring_stride(elem_size);
	side.elem_size = elem_size;
	memset(r, 0, sizeof(*r));
	memcpy(&r->prod, &side, sizeof(side));
	memcpy(&r->cons, &side, sizeof(side));
	atomic_init(&r->prod.pos, 0);
	atomic_init(&r->cons.pos, 0);
	/* slot i's marks read i, not i + 1: empty for position i; no
	 * thread sees the ring yet */
	for (size_t i = 0; i < capacity; i++) {
		memset(b + i * side.stride, 0, side.stride);
		atomic_init(lat_seqring_mark_(&side, i), (uint64_t)i);
	}
	return 0;
}

int lat_seqring_create(size_t capacity, size_t elem_size,
		       struct lat_seqring **out)
{
	size_t buf_size = lat_seqring_buffer_size(capacity, elem_size);
	size_t head = sizeof(struct lat_seqring), total;
	struct lat_seqring *r;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (buf_size == 0)
		return -EINVAL;
	total = (head + buf_size + LAT_PAD_BYTES - 1) / LAT_PAD_BYTES *
		LAT_PAD_BYTES;
	r = aligned_alloc(LAT_PAD_BYTES, total);
	if (!r)
		return -ENOMEM;
	/* the slots start right after the struct, LAT_PAD_BYTES-aligned */
	rc = lat_seqring_init(r, (unsigned char *)r + head, capacity,
			      elem_size);
	if (rc) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void lat_seqring_free(struct lat_seqring *r)
{
	free(r);
}

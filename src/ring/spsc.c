/*
 * lat_spsc: the cold half of the ring (sizing, init, heap pair). The hot
 * operations are inline in latlab/spsc.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "latlab/spsc.h"

size_t lat_spsc_buffer_size(size_t capacity, size_t elem_size)
{
	if (capacity == 0 || capacity > LAT_SPSC_MAX_CAPACITY ||
	    (capacity & (capacity - 1)) != 0)
		return 0;
	if (elem_size == 0 || elem_size > LAT_SPSC_MAX_ELEM)
		return 0;
	/* both bounded (2^31 * 2^16), so the product fits in 64 bits */
	return capacity * elem_size;
}

int lat_spsc_init(struct lat_spsc *r, void *buf, size_t capacity,
		  size_t elem_size)
{
	struct lat_spsc_side side;

	if (!r || !buf || lat_spsc_buffer_size(capacity, elem_size) == 0)
		return -EINVAL;
	if ((uintptr_t)r % LAT_PAD_BYTES != 0)
		return -EINVAL;
	memset(&side, 0, sizeof(side));
	side.slots = buf;
	side.mask = capacity - 1;
	side.capacity = capacity;
	side.elem_size = elem_size;
	/* plain copies: no other thread may see @r before init returns */
	memset(r, 0, sizeof(*r));
	memcpy(&r->prod, &side, sizeof(side));
	memcpy(&r->cons, &side, sizeof(side));
	atomic_init(&r->prod.index, 0);
	atomic_init(&r->cons.index, 0);
	return 0;
}

int lat_spsc_create(size_t capacity, size_t elem_size, struct lat_spsc **out)
{
	size_t buf_size = lat_spsc_buffer_size(capacity, elem_size);
	size_t head = sizeof(struct lat_spsc), total;
	struct lat_spsc *r;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (buf_size == 0)
		return -EINVAL;
	/* aligned_alloc wants a multiple of the alignment */
	total = (head + buf_size + LAT_PAD_BYTES - 1) /
		LAT_PAD_BYTES * LAT_PAD_BYTES;
	r = aligned_alloc(LAT_PAD_BYTES, total);
	if (!r)
		return -ENOMEM;
	/* the buffer starts right after the struct: LAT_PAD_BYTES-aligned,
	 * so it never shares a line with either side's index */
	rc = lat_spsc_init(r, (unsigned char *)r + head, capacity, elem_size);
	if (rc) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void lat_spsc_free(struct lat_spsc *r)
{
	free(r);
}

/*
 * Sequence-numbered ring elements for the ring stress tests
 * (test_spsc_threads, test_seqring_threads): word 0 is the sequence
 * number, every further word a function of (seq, word), so a lost,
 * duplicated, reordered or torn element shows.
 */
#ifndef LATLAB_T_RING_ELEM_H
#define LATLAB_T_RING_ELEM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Word k of element seq: differs per word so a torn copy shows. */
static inline uint64_t t_elem_word(uint64_t seq, unsigned k)
{
	uint64_t x = seq * 0x9e3779b97f4a7c15ull + k * 0xbf58476d1ce4e5b9ull;

	x ^= x >> 31;
	return x;
}

/* Write element seq (@size bytes) into dst; returns the sum of its words. */
static inline uint64_t t_elem_fill(unsigned char *dst, uint64_t seq,
				   size_t size)
{
	uint64_t v, sum = seq;

	memcpy(dst, &seq, sizeof(seq));
	for (unsigned k = 1; k < size / 8; k++) {
		v = t_elem_word(seq, k);
		memcpy(dst + 8 * k, &v, sizeof(v));
		sum += v;
	}
	return sum;
}

/*
 * Read element @src: its sequence number into *@seq, the sum of its words
 * added to *@sum; true when every word is the one t_elem_fill wrote.
 */
static inline bool t_elem_check(const unsigned char *src, size_t size,
				uint64_t *seq, uint64_t *sum)
{
	uint64_t v;
	bool ok = true;

	memcpy(seq, src, sizeof(*seq));
	*sum += *seq;
	for (unsigned k = 1; k < size / 8; k++) {
		memcpy(&v, src + 8 * k, sizeof(v));
		*sum += v;
		ok &= v == t_elem_word(*seq, k);
	}
	return ok;
}

#endif

/*
 * V2 encoder: what Java's encodeIntoByteBuffer and
 * encodeIntoCompressedByteBuffer write, byte for byte before compression.
 *
 * Layout (big-endian): cookie 0x1c849313, payload length, normalizing
 * index offset (0), significant digits, lowest discernible value, highest
 * trackable value, conversion ratio 1.0, then the payload: counts of slots
 * 0..last non-empty as zigzag LEB128 (9 bytes at most, the 9th carrying 8
 * bits), a run of k > 1 zero slots as zigzag(-k), a single zero as 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hist_v2_int.h"

size_t lat_hist_v2_put_varint(uint8_t *p, int64_t value)
{
	uint64_t z = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
	size_t n = 0;

	while (n < 8) {
		if (z >> 7 == 0) {
			p[n++] = (uint8_t)z;
			return n;
		}
		p[n++] = (uint8_t)((z & 0x7f) | 0x80);
		z >>= 7;
	}
	p[n++] = (uint8_t)z; /* ninth byte: the remaining 8 bits, no flag */
	return n;
}

void lat_hist_v2_put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* Slots the payload covers: up to the last non-empty one, at least 1. */
static int32_t payload_slots(const struct lat_hist *h)
{
	int32_t i = h->counts_len - 1;

	while (i > 0 && h->counts[i] == 0)
		i--;
	return i + 1;
}

size_t lat_hist_v2_encoded_bound(const struct lat_hist *h)
{
	return LAT_HIST_V2_HEADER_LEN + 9 * (size_t)h->counts_len;
}

int lat_hist_v2_encode(const struct lat_hist *h, uint8_t *buf, size_t cap,
		       size_t *len)
{
	int32_t slots = payload_slots(h);
	size_t o = LAT_HIST_V2_HEADER_LEN;
	double ratio = 1.0;
	uint64_t ratio_bits;

	*len = 0;
	if (cap < LAT_HIST_V2_HEADER_LEN)
		return -ENOSPC;
	for (int32_t i = 0; i < slots;) {
		int64_t count = h->counts[i++];

		if (count < 0)
			return -EINVAL;
		if (count == 0) {
			int64_t zeros = 1;

			while (i < slots && h->counts[i] == 0) {
				zeros++;
				i++;
			}
			if (zeros > 1)
				count = -zeros;
		}
		if (cap - o < 9) {
			uint8_t tmp[9];
			size_t n = lat_hist_v2_put_varint(tmp, count);

			if (cap - o < n)
				return -ENOSPC;
			memcpy(buf + o, tmp, n);
			o += n;
			continue;
		}
		o += lat_hist_v2_put_varint(buf + o, count);
	}
	memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
	lat_hist_v2_put_be32(buf, LAT_HIST_V2_COOKIE);
	lat_hist_v2_put_be32(buf + 4, (uint32_t)(o - LAT_HIST_V2_HEADER_LEN));
	lat_hist_v2_put_be32(buf + 8, 0);
	lat_hist_v2_put_be32(buf + 12, (uint32_t)h->sig_figs);
	put_be64(buf + 16, (uint64_t)h->lowest_discernible);
	put_be64(buf + 24, (uint64_t)h->highest_trackable);
	put_be64(buf + 32, ratio_bits);
	*len = o;
	return 0;
}

int lat_hist_v2_encode_compressed(const struct lat_hist *h, int level,
				  uint8_t **out, size_t *len)
{
	size_t raw_len, cap = lat_hist_v2_encoded_bound(h);
	uLongf zlen;
	uint8_t *raw, *z;
	int rc;

	*out = NULL;
	*len = 0;
	if (level < -1 || level > 9)
		return -EINVAL;
	raw = malloc(cap);
	if (!raw)
		return -ENOMEM;
	rc = lat_hist_v2_encode(h, raw, cap, &raw_len);
	if (rc) {
		free(raw);
		return rc;
	}
	zlen = compressBound((uLong)raw_len);
	z = malloc(8 + zlen);
	if (!z) {
		free(raw);
		return -ENOMEM;
	}
	/* compress2 writes a zlib (RFC 1950) stream, as java.util.zip does */
	rc = compress2(z + 8, &zlen, raw, (uLong)raw_len, level);
	free(raw);
	if (rc != Z_OK) {
		free(z);
		return rc == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	lat_hist_v2_put_be32(z, LAT_HIST_V2_COMPRESSED_COOKIE);
	lat_hist_v2_put_be32(z + 4, (uint32_t)zlen);
	*out = z;
	*len = 8 + zlen;
	return 0;
}

int lat_hist_v2_encode_base64(const struct lat_hist *h, int level,
			      char **out, size_t *len)
{
	uint8_t *bin;
	size_t bin_len, text_len;
	int rc;

	*out = NULL;
	*len = 0;
	rc = lat_hist_v2_encode_compressed(h, level, &bin, &bin_len);
	if (rc)
		return rc;
	text_len = lat_base64_encoded_len(bin_len);
	*out = malloc(text_len + 1);
	if (!*out) {
		free(bin);
		return -ENOMEM;
	}
	lat_base64_encode(bin, bin_len, *out, text_len + 1);
	free(bin);
	*len = text_len;
	return 0;
}

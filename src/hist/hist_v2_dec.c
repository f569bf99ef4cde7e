/*
 * V2 decoder, for input that may be hostile.
 *
 * The header is checked before anything is allocated: the configuration
 * must be one lat_hist_init_any() accepts, its counts array no longer than
 * LAT_HIST_IO_MAX_COUNTS, and the payload length at most 9 bytes per slot
 * (no valid payload is longer, since every entry covers at least one
 * slot). Compressed input is inflated in fixed chunks straight into the
 * payload decoder, so no buffer is ever sized from a length field, and
 * decoding stops at the first entry that would land beyond the array:
 * work is bounded by the counts array, whatever the input claims.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hist_v2_int.h"

#define V2_CHUNK 4096

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* Refuse encodings we know but do not read with a precise code. */
static int classify_cookie(uint32_t cookie)
{
	uint32_t base = cookie & ~0xf0u;

	if (cookie == LAT_HIST_DOUBLE_COOKIE ||
	    cookie == LAT_HIST_DOUBLE_COMPRESSED_COOKIE ||
	    base == LAT_HIST_V1_COOKIE_BASE ||
	    base == LAT_HIST_V1_COMPRESSED_COOKIE_BASE ||
	    base == LAT_HIST_V0_COOKIE_BASE ||
	    base == LAT_HIST_V0_COMPRESSED_COOKIE_BASE)
		return -LAT_EUNSUPP;
	return -LAT_EFORMAT;
}

/* Payload decoder state: fed any number of byte chunks. */
struct v2_dec {
	struct lat_hist *h;
	int64_t index;           /* next slot to fill */
	int64_t payload_left;    /* bytes the header promised, not yet fed */
	uint8_t carry[9];        /* a varint split across chunks */
	int ncarry;
};

/*
 * Parse one varint from @p (@n bytes available). Returns bytes used, or 0
 * when it is incomplete.
 */
static size_t get_varint(const uint8_t *p, size_t n, int64_t *value)
{
	uint64_t z = 0;
	size_t i;

	for (i = 0; i < 8; i++) {
		if (i >= n)
			return 0;
		z |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			i++;
			goto done;
		}
	}
	if (n < 9)
		return 0;
	z |= (uint64_t)p[8] << 56;
	i = 9;
done:
	*value = (int64_t)((z >> 1) ^ (~(z & 1) + 1));
	return i;
}

/* Apply one payload entry: a count for the next slot or a run of zeros. */
static int apply_entry(struct v2_dec *d, int64_t v)
{
	int64_t len = d->h->counts_len;

	if (v < 0) {
		/* -v cannot overflow: INT64_MIN is not a valid run either */
		if (v == INT64_MIN || -v > len - d->index)
			return -LAT_EFORMAT;
		d->index += -v;
		return 0;
	}
	if (d->index >= len)
		return -LAT_EFORMAT;
	d->h->counts[d->index++] = v;
	return 0;
}

static int dec_feed(struct v2_dec *d, const uint8_t *p, size_t n)
{
	int64_t v;
	size_t used;
	int rc;

	if ((int64_t)n > d->payload_left)
		return -LAT_EFORMAT; /* more bytes than the header said */
	d->payload_left -= (int64_t)n;
	while (n && d->ncarry) {
		d->carry[d->ncarry++] = *p++;
		n--;
		used = get_varint(d->carry, (size_t)d->ncarry, &v);
		if (used) {
			d->ncarry = 0;
			rc = apply_entry(d, v);
			if (rc)
				return rc;
		}
	}
	while (n) {
		used = get_varint(p, n, &v);
		if (!used) {
			memcpy(d->carry, p, n);
			d->ncarry = (int)n;
			return 0;
		}
		rc = apply_entry(d, v);
		if (rc)
			return rc;
		p += used;
		n -= used;
	}
	return 0;
}

static int dec_finish(struct v2_dec *d)
{
	int rc;

	if (d->ncarry || d->payload_left)
		return -LAT_ETRUNC;
	rc = lat_hist_recount(d->h);
	if (rc == -EOVERFLOW)
		return -ERANGE;
	return rc ? -LAT_EFORMAT : 0;
}

/*
 * Check the 40-byte uncompressed header and create the histogram it
 * describes. The payload length is returned in *payload_len.
 */
static int dec_begin(struct v2_dec *d, const uint8_t *hdr)
{
	uint32_t cookie = get_be32(hdr);
	int64_t payload_len = (int32_t)get_be32(hdr + 4);
	int32_t sig_figs = (int32_t)get_be32(hdr + 12);
	int64_t lowest = (int64_t)get_be64(hdr + 16);
	int64_t highest = (int64_t)get_be64(hdr + 24);
	size_t mem, counts_len;
	struct lat_hist *h;
	int rc;

	memset(d, 0, sizeof(*d));
	if (cookie != LAT_HIST_V2_COOKIE)
		return classify_cookie(cookie);
	if (sig_figs < 0 || sig_figs > 5 || payload_len < 0)
		return -LAT_EFORMAT;
	mem = lat_hist_mem_size_for(lowest, highest, sig_figs);
	if (!mem)
		return -LAT_EFORMAT;
	counts_len = (mem - sizeof(struct lat_hist)) / sizeof(int64_t);
	if (counts_len > LAT_HIST_IO_MAX_COUNTS)
		return -LAT_ECOMPAT;
	if ((uint64_t)payload_len > 9 * (uint64_t)counts_len)
		return -LAT_EFORMAT;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	rc = lat_hist_init_any(h, lowest, highest, sig_figs);
	if (rc) {
		free(h);
		return rc == -ENOMEM ? rc : -LAT_EFORMAT;
	}
	d->h = h;
	d->payload_left = payload_len;
	return 0;
}

static int decode_plain(const uint8_t *buf, size_t len, struct lat_hist **out)
{
	struct v2_dec d;
	int rc;

	if (len < LAT_HIST_V2_HEADER_LEN)
		return len >= 4 && get_be32(buf) != LAT_HIST_V2_COOKIE ?
			classify_cookie(get_be32(buf)) : -LAT_ETRUNC;
	rc = dec_begin(&d, buf);
	if (rc)
		return rc;
	buf += LAT_HIST_V2_HEADER_LEN;
	len -= LAT_HIST_V2_HEADER_LEN;
	if ((int64_t)len < d.payload_left)
		rc = -LAT_ETRUNC;
	else
		rc = dec_feed(&d, buf, len);
	if (!rc)
		rc = dec_finish(&d);
	if (rc) {
		lat_hist_free(d.h);
		return rc;
	}
	*out = d.h;
	return 0;
}

/* Inflate up to @cap bytes into @dst; *got gets the count. */
static int inflate_some(z_stream *zs, uint8_t *dst, size_t cap, size_t *got,
			bool *ended)
{
	int zrc;

	zs->next_out = dst;
	zs->avail_out = (uInt)cap;
	zrc = inflate(zs, Z_NO_FLUSH);
	*got = cap - zs->avail_out;
	if (zrc == Z_STREAM_END) {
		*ended = true;
		return 0;
	}
	if (zrc == Z_OK)
		return 0;
	if (zrc == Z_BUF_ERROR) /* no progress possible: input ran out */
		return *got ? 0 : -LAT_ETRUNC;
	return zrc == Z_MEM_ERROR ? -ENOMEM : -LAT_EFORMAT;
}

static int decode_compressed(const uint8_t *buf, size_t len,
			     struct lat_hist **out)
{
	uint8_t hdr[LAT_HIST_V2_HEADER_LEN];
	uint8_t *chunk = NULL;
	struct v2_dec d = { 0 };
	z_stream zs;
	size_t have = 0, got;
	bool ended = false;
	uint32_t zlen;
	int rc;

	if (len < 8)
		return -LAT_ETRUNC;
	zlen = get_be32(buf + 4);
	if (zlen > len - 8)
		return -LAT_ETRUNC;
	if (zlen < len - 8)
		return -LAT_EFORMAT;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)(uintptr_t)(buf + 8);
	zs.avail_in = zlen;
	/* the header first: it decides everything else */
	while (have < sizeof(hdr)) {
		rc = inflate_some(&zs, hdr + have, sizeof(hdr) - have, &got,
				  &ended);
		have += got;
		if (rc)
			goto out;
		if (ended && have < sizeof(hdr)) {
			rc = have >= 4 && get_be32(hdr) != LAT_HIST_V2_COOKIE ?
				classify_cookie(get_be32(hdr)) : -LAT_ETRUNC;
			goto out;
		}
	}
	rc = dec_begin(&d, hdr);
	if (rc)
		goto out;
	chunk = malloc(V2_CHUNK);
	if (!chunk) {
		rc = -ENOMEM;
		goto out;
	}
	while (!ended) {
		rc = inflate_some(&zs, chunk, V2_CHUNK, &got, &ended);
		if (rc)
			goto out;
		rc = dec_feed(&d, chunk, got);
		if (rc)
			goto out;
	}
	if (zs.avail_in) { /* bytes after the end of the zlib stream */
		rc = -LAT_EFORMAT;
		goto out;
	}
	rc = dec_finish(&d);
out:
	inflateEnd(&zs);
	free(chunk);
	if (rc) {
		lat_hist_free(d.h);
		return rc;
	}
	*out = d.h;
	return 0;
}

int lat_hist_v2_decode(const uint8_t *buf, size_t len, struct lat_hist **out)
{
	uint32_t cookie;

	*out = NULL;
	if (len < 4)
		return -LAT_ETRUNC;
	cookie = get_be32(buf);
	if (cookie == LAT_HIST_V2_COMPRESSED_COOKIE)
		return decode_compressed(buf, len, out);
	if (cookie == LAT_HIST_V2_COOKIE)
		return decode_plain(buf, len, out);
	return classify_cookie(cookie);
}

int lat_hist_v2_decode_base64(const char *text, size_t len,
			      struct lat_hist **out)
{
	size_t cap = len / 4 * 3, n;
	uint8_t *bin;
	int rc;

	*out = NULL;
	if (len == 0)
		return -LAT_ETRUNC;
	bin = malloc(cap ? cap : 1);
	if (!bin)
		return -ENOMEM;
	rc = lat_base64_decode(text, len, bin, cap, &n);
	if (!rc)
		rc = lat_hist_v2_decode(bin, n, out);
	free(bin);
	return rc;
}

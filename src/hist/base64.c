/*
 * base64 (RFC 4648): the standard alphabet with '=' padding, no line
 * breaks, as Java's Base64Helper writes it into .hlog lines. The decoder is
 * strict because its input comes from files: any other character, a length
 * that is not a multiple of 4 or padding in the middle is an error.
 */
#include <errno.h>

#include "latlab/hist_io.h"

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t lat_base64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

int lat_base64_encode(const uint8_t *in, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	if (cap < lat_base64_encoded_len(n) + 1)
		return -ENOSPC;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		out[o++] = b64_alphabet[(v >> 18) & 63];
		out[o++] = b64_alphabet[(v >> 12) & 63];
		out[o++] = left > 1 ? b64_alphabet[(v >> 6) & 63] : '=';
		out[o++] = left > 2 ? b64_alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return 0;
}

/* 0..63 for an alphabet character, -1 otherwise. */
static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int lat_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap,
		      size_t *n)
{
	size_t o = 0;

	*n = 0;
	if (len % 4)
		return -LAT_EFORMAT;
	for (size_t i = 0; i < len; i += 4) {
		int pad = 0;
		uint32_t v = 0;

		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)in[i + k];
			int d = b64_value(c);

			/* '=' only as the last one or two of the last quad */
			if (c == '=' && i + 4 == len && k >= 2) {
				pad++;
				d = 0;
			} else if (d < 0 || pad) {
				return -LAT_EFORMAT;
			}
			v = v << 6 | (uint32_t)d;
		}
		if (o + 3 - (size_t)pad > cap)
			return -ENOSPC;
		out[o++] = (uint8_t)(v >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(v >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)v;
	}
	*n = o;
	return 0;
}

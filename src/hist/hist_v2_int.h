/*
 * V2 encoding internals shared by the encoder, the decoder and the tests.
 * Not a public header.
 */
#ifndef LATLAB_HIST_V2_INT_H
#define LATLAB_HIST_V2_INT_H

#include <stddef.h>
#include <stdint.h>

#include "latlab/hist_io.h"

/* Cookie bases (cookie & ~0xf0) of encodings we recognise but refuse. */
#define LAT_HIST_V1_COOKIE_BASE 0x1c849301u
#define LAT_HIST_V1_COMPRESSED_COOKIE_BASE 0x1c849302u
#define LAT_HIST_V0_COOKIE_BASE 0x1c849308u
#define LAT_HIST_V0_COMPRESSED_COOKIE_BASE 0x1c849309u
#define LAT_HIST_DOUBLE_COOKIE 0x0c72124eu
#define LAT_HIST_DOUBLE_COMPRESSED_COOKIE 0x0c72124fu

/* Write zigzag LEB128-64b9B of @value at @p (9 bytes room); bytes used. */
size_t lat_hist_v2_put_varint(uint8_t *p, int64_t value);

/* Big-endian 32-bit store. */
void lat_hist_v2_put_be32(uint8_t *p, uint32_t v);

#endif

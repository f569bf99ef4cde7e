/*
 * lat_fmt: numbers for people. Every duration shown to a person goes
 * through here so that units are always written and chosen consistently.
 */
#ifndef LATLAB_FMT_H
#define LATLAB_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Buffer size that always fits lat_fmt_ns()/lat_fmt_rate() output. */
#define LAT_FMT_LEN 32

/*
 * Format @ns nanoseconds with a unit chosen by magnitude ("812 ns",
 * "12.4 µs", "3.07 ms", "1.50 s"), three significant digits. Returns @buf.
 */
char *lat_fmt_ns(char *buf, size_t len, double ns);

/* Format a rate in events/s ("200.0 k/s", "1.25 M/s"). Returns @buf. */
char *lat_fmt_rate(char *buf, size_t len, double per_s);

/*
 * Columns @s takes on a terminal: UTF-8 aware, so "12.4 µs" is 7 wide
 * although it is 8 bytes. printf's %*s counts bytes and would misalign
 * every table with a µs in it.
 */
int lat_fmt_width(const char *s);

/* lat_fmt_width of the first @n bytes of @s. */
int lat_fmt_width_n(const char *s, size_t n);

/* Write @s right-aligned in @width columns (lat_fmt_width), to @out. */
void lat_fmt_pad(FILE *out, const char *s, int width);

/* Write @s left-aligned in @width columns, to @out. */
void lat_fmt_pad_left(FILE *out, const char *s, int width);

/*
 * Print @text to @out as one paragraph wrapped at 78 display columns
 * (UTF-8 aware), ending with a newline; a number and its unit ("12 µs")
 * stay on one line. The caller has already printed @indent (0..20)
 * columns of the first line (a "  -> " marker, say); later lines are
 * indented by as many spaces. Words longer than a line are printed whole.
 */
void lat_fmt_paragraph(FILE *out, const char *text, int indent);

/* "32 KiB", "1.5 MiB": a byte count for people, binary units, in @buf. */
char *lat_fmt_bytes(char *buf, size_t len, uint64_t bytes);

#endif

/*
 * lat_fmt: numbers for people. Every duration shown to a person goes
 * through here so that units are always written and chosen consistently.
 */
#ifndef LATLAB_FMT_H
#define LATLAB_FMT_H

#include <stddef.h>

/* Buffer size that always fits lat_fmt_ns()/lat_fmt_rate() output. */
#define LAT_FMT_LEN 32

/*
 * Format @ns nanoseconds with a unit chosen by magnitude ("812 ns",
 * "12.4 µs", "3.07 ms", "1.50 s"), three significant digits. Returns @buf.
 */
char *lat_fmt_ns(char *buf, size_t len, double ns);

/* Format a rate in events/s ("200.0 k/s", "1.25 M/s"). Returns @buf. */
char *lat_fmt_rate(char *buf, size_t len, double per_s);

#endif

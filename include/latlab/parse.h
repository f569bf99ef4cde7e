/*
 * lat_parse: numbers, durations and sizes as people type them ("200k",
 * "0.5", "500us", "32K"), read strictly, for a configuration file or a
 * command line: what is not plainly a number is refused rather than
 * guessed. strtod
 * alone would take leading blanks, hex floats, "inf" and "nan", none of
 * which a person means as a setting; strtoull would take "-1" as
 * 18446744073709551615.
 *
 * Each returns 0 and stores the value in *@out, or a negative errno
 * (lat_strerror()) and leaves *@out alone:
 *   -EINVAL     not a number of the kind asked for (NULL, empty, "12x");
 *   -ERANGE     a number, outside [min, max];
 *   -EOVERFLOW  lat_parse_double: a number beyond a double ("1e400",
 *               "1e-400");
 *   -EDOM       lat_parse_duration_ns: a bare number where a unit is
 *               needed.
 */
#ifndef LATLAB_PARSE_H
#define LATLAB_PARSE_H

#include <stdint.h>

/*
 * A whole number in [@min, @max]: decimal digits, optionally followed by
 * k, K, M or G (10^3, 10^6, 10^9). A number too large for 64 bits is
 * -ERANGE.
 */
int lat_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A finite plain decimal, [+-]digits[.digits][e[+-]digits], in [@min,
 * @max] (either may be infinite). */
int lat_parse_double(const char *s, double min, double max, double *out);

/*
 * A duration in nanoseconds, in [@min_ns, @max_ns]: a plain decimal and
 * a unit, ns, us (or µs), ms, s, min (or m). A bare number is taken in
 * @default_unit_ns nanoseconds, or refused (-EDOM) when that is 0.
 */
int lat_parse_duration_ns(const char *s, double default_unit_ns,
			  double min_ns, double max_ns, double *out);

/*
 * A byte count as people and sysfs write it: "4096", "4096B", "32K",
 * "32k", "32KiB", "128M", "1G" (K, M, G binary). -ERANGE above 2^50
 * bytes.
 */
int lat_parse_bytes(const char *s, uint64_t *out);

#endif

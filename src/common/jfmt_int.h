/*
 * Java-compatible fixed-point formatting (internal to hist_io).
 *
 * Java's Formatter prints %.Nf by taking the decimal digits that
 * FloatingDecimal produces for the double and rounding them half-up at the
 * N-th decimal. C's printf rounds the exact binary value half-even, so the
 * two disagree on ties (Java: 2.5 -> "3", 0.125 -> "0.13"; C: "2",
 * "0.12") and on integers above 2^53, where Java keeps only the digits it
 * deems significant (2^62 -> "4611686018427387900"). The .hgrm text must
 * be byte-identical to Java's, so it is formatted here.
 *
 * Checked against Java 17 on 395k values of the kinds .hgrm/.hlog print
 * (longs, longs divided by unit ratios, percentile levels, their
 * 1/(1-p)): identical. Known gap: for some values >= 2^63, which latlab
 * never prints, Java emits non-shortest digits (1e23 -> 9.999..E22) that
 * are not reproduced.
 */
#ifndef LATLAB_JFMT_INT_H
#define LATLAB_JFMT_INT_H

#include <stddef.h>

/*
 * Java's String.format(Locale.US, "%.<prec>f", x) into @buf (@cap bytes,
 * NUL terminated). @prec: 0..40. Returns the length, or -ENOSPC / -EINVAL.
 */
int lat_jfmt_fixed(char *buf, size_t cap, double x, int prec);

#endif

/*
 * Java-compatible %.Nf (see jfmt_int.h for why).
 *
 * The decimal digits follow FloatingDecimal's two paths:
 *  - an integral value in [1, 2^63) is printed from its exact integer,
 *    minus the low decimal digits that its binary exponent makes
 *    insignificant (rounded half-up), which is why Java prints 2^62 with
 *    17 significant digits;
 *  - any other value uses the shortest digits that read back as the same
 *    double, found here by trying 1..17 digits with the C library's
 *    correctly rounded conversion.
 * The digits are then rounded half-up at the requested decimal, as Java's
 * FormattedFloatingDecimal.applyPrecision does.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfmt_int.h"

#define JFMT_MAX_DIGITS 24

/* Decimal digits of a positive double: value = 0.D1D2...Dn * 10^exp. */
struct jdigits {
	char d[JFMT_MAX_DIGITS + 2];
	int n;
	int exp;
};

static int count_digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void digits_of_u64(struct jdigits *out, uint64_t v, int extra_exp)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);

	memcpy(out->d, tmp, (size_t)n);
	out->n = n;
	out->exp = n + extra_exp;
}

/*
 * Integral x in [1, 2^63): exact digits, minus floor(log10(2^p)) low
 * digits where p = binary exponent - 54 (only when p > 1).
 */
static void integer_digits(struct jdigits *out, double x)
{
	uint64_t v = (uint64_t)x;
	int bin_exp = 63 - __builtin_clzll(v);
	int p2 = bin_exp - 54;
	int insignificant = 0;

	if (p2 > 1)
		insignificant = count_digits((uint64_t)1 << p2) - 1;
	if (insignificant) {
		uint64_t pow10 = 1;

		for (int i = 0; i < insignificant; i++)
			pow10 *= 10;
		uint64_t residue = v % pow10;

		v /= pow10;
		if (residue >= pow10 / 2)
			v++;
	}
	digits_of_u64(out, v, insignificant);
}

/* Shortest round-tripping digits of x > 0, nearest among that length. */
static void shortest_digits(struct jdigits *out, double x)
{
	char tmp[40];

	for (int p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, x);
		if (strtod(tmp, NULL) == x || p == 17)
			break;
	}
	/* tmp is "D.DDDDe[+-]XX" (or "De[+-]XX") */
	char *e = strchr(tmp, 'e');
	int n = 0;

	for (char *c = tmp; c < e; c++)
		if (*c != '.')
			out->d[n++] = *c;
	out->n = n;
	out->exp = atoi(e + 1) + 1;
	while (out->n > 1 && out->d[out->n - 1] == '0')
		out->n--;
}

/* Round the digits half-up so that @prec decimals remain. */
static void round_half_up(struct jdigits *g, int prec)
{
	int keep = g->exp + prec;
	bool up;

	if (keep >= g->n)
		return;
	if (keep <= 0) {
		/* nothing kept: 10^-prec when the first dropped digit is 5+ */
		up = keep == 0 && g->d[0] >= '5';
		g->d[0] = up ? '1' : '0';
		g->n = 1;
		g->exp = up ? 1 - prec : 1;
		return;
	}
	up = g->d[keep] >= '5';
	g->n = keep;
	if (!up)
		return;
	int i = keep - 1;

	while (i >= 0 && g->d[i] == '9')
		g->d[i--] = '0';
	if (i >= 0) {
		g->d[i]++;
		return;
	}
	/* 999.. rounded up to 1000..: one more integer digit */
	g->d[0] = '1';
	memset(g->d + 1, '0', (size_t)keep - 1);
	g->exp++;
}

int lat_jfmt_fixed(char *buf, size_t cap, double x, int prec)
{
	struct jdigits g;
	char out[JFMT_MAX_DIGITS + 400];
	size_t o = 0;

	if (prec < 0 || prec > 40 || cap == 0)
		return -EINVAL;
	if (isnan(x))
		return snprintf(buf, cap, "NaN") < (int)cap ? 3 : -ENOSPC;
	if (signbit(x)) {
		out[o++] = '-';
		x = -x;
	}
	if (isinf(x)) {
		memcpy(out + o, "Infinity", 8);
		o += 8;
		goto done;
	}
	if (x == 0) {
		g.d[0] = '0';
		g.n = 1;
		g.exp = 1;
	} else if (x >= 1 && x < 0x1p63 && x == floor(x)) {
		integer_digits(&g, x);
	} else {
		shortest_digits(&g, x);
	}
	round_half_up(&g, prec);
	if (g.n == 1 && g.d[0] == '0')
		g.exp = 1;
	/* integer part: digits before the decimal point, zero-filled */
	if (g.exp <= 0) {
		out[o++] = '0';
	} else {
		if (g.exp > 330)
			return -EINVAL;
		for (int i = 0; i < g.exp; i++)
			out[o++] = i < g.n ? g.d[i] : '0';
	}
	if (prec > 0) {
		out[o++] = '.';
		for (int k = 0; k < prec; k++) {
			/* decimal k+1 is digit index exp + k */
			int i = g.exp + k;

			out[o++] = i >= 0 && i < g.n ? g.d[i] : '0';
		}
	}
done:
	if (o + 1 > cap)
		return -ENOSPC;
	memcpy(buf, out, o);
	buf[o] = '\0';
	return (int)o;
}

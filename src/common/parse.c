/* Strict numbers, durations and sizes (see latlab/parse.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/parse.h"

/*
 * Length of the plain decimal number at the start of @s:
 * [+-]digits[.digits][e[+-]digits], 0 when there is none.
 */
static size_t decimal_len(const char *s)
{
	const char *p = s;
	size_t digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return 0;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return (size_t)(p - s);
}

int lat_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	/* a sign or a blank is not a whole number (strtoull takes both) */
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE) /* 20 digits: a number, just too large */
		return -ERANGE;
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul || v * mul < min || v * mul > max)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int lat_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || decimal_len(s) != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	/* 1e400 and 1e-400 are numbers out of range, not garbage */
	if (errno == ERANGE)
		return -EOVERFLOW;
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int lat_parse_duration_ns(const char *s, double default_unit_ns,
			  double min_ns, double max_ns, double *out)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 },
		      { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 },
		      { "m", 60e9 } };
	double v, scale = default_unit_ns;
	size_t i, n = sizeof(units) / sizeof(units[0]);
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) ||
	    (size_t)(end - s) != decimal_len(s))
		return -EINVAL;
	if (!*end && default_unit_ns == 0)
		return -EDOM;
	if (*end) {
		for (i = 0; i < n && strcmp(end, units[i].suffix); i++)
			;
		if (i == n)
			return -EINVAL;
		scale = units[i].ns;
	}
	v *= scale;
	if (v < min_ns || v > max_ns)
		return -ERANGE;
	*out = v;
	return 0;
}

int lat_parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	default: break;
	}
	if (shift && !strcmp(end, "iB"))
		end += 2;
	else if (!shift && !strcmp(end, "B"))
		end++;
	if (*end)
		return -EINVAL;
	if (errno || v > (UINT64_C(1) << (50 - shift)))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

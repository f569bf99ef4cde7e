/* Byte counts for people: "4 KiB", "1.5 MiB" (binary units), and back. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/fmt.h"

char *lat_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0 || v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.3g %s", v, unit[u]);
	return buf;
}

int lat_fmt_parse_bytes(const char *s, uint64_t *out)
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

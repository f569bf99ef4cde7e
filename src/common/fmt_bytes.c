/* Byte counts for people: "4 KiB", "1.5 MiB" (binary units). */
#include <stdint.h>
#include <stdio.h>

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

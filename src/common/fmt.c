#include <math.h>
#include <stdio.h>

#include "latlab/fmt.h"

/* Three significant digits: 1.23, 12.3, 123. */
static int decimals_for(double v)
{
	v = fabs(v);
	if (v < 10)
		return 2;
	if (v < 100)
		return 1;
	return 0;
}

char *lat_fmt_ns(char *buf, size_t len, double ns)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "µs" } };

	if (!isfinite(ns)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (fabs(ns) >= units[i].scale) {
			double v = ns / units[i].scale;
			snprintf(buf, len, "%.*f %s", decimals_for(v), v,
				 units[i].unit);
			return buf;
		}
	}
	if (fabs(ns) < 10 && ns != floor(ns))
		snprintf(buf, len, "%.2f ns", ns);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

char *lat_fmt_rate(char *buf, size_t len, double per_s)
{
	if (!isfinite(per_s))
		snprintf(buf, len, "n/a");
	else if (per_s >= 1e6)
		snprintf(buf, len, "%.2f M/s", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(buf, len, "%.1f k/s", per_s / 1e3);
	else
		snprintf(buf, len, "%.1f /s", per_s);
	return buf;
}

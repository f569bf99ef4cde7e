#include <string.h>
#include <time.h>

#include "latlab/common.h"

const char *lat_strerror(int code)
{
	if (code == 0)
		return "success";
	switch (-code) {
	case LAT_EFORMAT:
		return "malformed input";
	case LAT_ETRUNC:
		return "truncated input";
	case LAT_ECOMPAT:
		return "incompatible histograms";
	case LAT_EUNSUPP:
		return "not available on this machine";
	case LAT_EBINARY:
		return "binary data (a NUL byte), not a text file";
	case LAT_EBADTIME:
		return "negative or backward interval time stamp";
	}
	if (code < 0 && -code < LAT_EBASE)
		return strerror(-code);
	return "unknown error";
}

uint64_t lat_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#include <string.h>

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
	}
	if (code < 0 && -code < LAT_EBASE)
		return strerror(-code);
	return "unknown error";
}

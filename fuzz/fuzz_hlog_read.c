/*
 * libFuzzer target: the .hlog reader over arbitrary text, intervals and
 * all (each interval goes through the V2 decoder).
 */
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (lat_hlog_reader_open_stream(f, &r) == 0) {
		while (lat_hlog_reader_next(r, &iv) == 1) {
			(void)lat_hist_max(iv.hist);
			lat_hist_free(iv.hist);
		}
		lat_hlog_reader_close(r);
	}
	fclose(f);
	return 0;
}

/*
 * libFuzzer target: the .hgrm reader. What it rebuilds must be writable
 * again as .hgrm text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlab/hist_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lat_hgrm_info info;
	struct lat_hist *h = NULL;
	char *text = NULL;
	size_t len;
	FILE *f;

	if (lat_hgrm_read((const char *)data, size, 0, &info, &h)) {
		if (h)
			abort();
		return 0;
	}
	f = open_memstream(&text, &len);
	if (f) {
		if (lat_hgrm_write(f, h, 5, 1.0, false))
			abort();
		fclose(f);
	}
	free(text);
	lat_hist_free(h);
	return 0;
}

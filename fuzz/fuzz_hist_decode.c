/*
 * libFuzzer target: the V2 decoder (binary, compressed or not, and the
 * base64 text form). Oracle besides the sanitizers: whatever decodes must
 * re-encode and decode to the same counts, and queries must not trip.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct lat_hist *h)
{
	struct lat_hist *back = NULL;
	uint8_t *bin;
	size_t len;

	if (lat_hist_v2_encode_compressed(h, 1, &bin, &len))
		abort();
	if (lat_hist_v2_decode(bin, len, &back))
		abort();
	if (back->counts_len != h->counts_len ||
	    back->total_count != h->total_count ||
	    memcmp(back->counts, h->counts,
		   (size_t)h->counts_len * sizeof(int64_t)))
		abort();
	(void)lat_hist_value_at_percentile(back, 99.9);
	(void)lat_hist_mean(back);
	lat_hist_free(back);
	free(bin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lat_hist *h = NULL;

	if (lat_hist_v2_decode(data, size, &h) == 0) {
		check_round_trip(h);
		lat_hist_free(h);
	} else if (h) {
		abort(); /* failure must leave *out NULL */
	}
	if (lat_hist_v2_decode_base64((const char *)data, size, &h) == 0) {
		check_round_trip(h);
		lat_hist_free(h);
	}
	return 0;
}

/*
 * lat_co_write_svg: the coordinated-omission lesson as one picture. The
 * three lanes share the body of the distribution and part at the tail:
 * the closed loop hides the queue behind the stall, the open loop shows
 * it, the correction approximates it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "latlab/co.h"
#include "latlab/fmt.h"
#include "latlab/svg.h"

int lat_co_write_svg(FILE *out, const struct lat_co_config *cfg,
		     const struct lat_hist *closed,
		     const struct lat_hist *corrected,
		     const struct lat_hist *open)
{
	char title[256], rate[LAT_FMT_LEN], stall[LAT_FMT_LEN];
	const struct lat_svg_curve c[] = {
		{ "open loop: from the intended send (what users waited)",
		  open, 1, NULL, "#d62728" },
		{ "closed, corrected with the expected interval 1/rate",
		  corrected, 1, "8 4", "#2ca02c" },
		{ "closed loop: from the actual send (the benchmark's lie)",
		  closed, 1, "2 3", "#1f77b4" },
	};

	if (!out || !cfg || !closed || !corrected || !open)
		return -EINVAL;
	lat_fmt_rate(rate, sizeof(rate), cfg->rate_per_s);
	lat_fmt_ns(stall, sizeof(stall), cfg->stall_ns);
	snprintf(title, sizeof(title), "coordinated omission: %" PRIu64
		 " requests at %s, one %s stall", cfg->requests, rate, stall);
	return lat_svg_percentiles(out, &(struct lat_svg_spectrum_opts){
					   .title = title },
				   c, sizeof(c) / sizeof(c[0]));
}

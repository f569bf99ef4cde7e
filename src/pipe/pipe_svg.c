/*
 * lat_pipe_write_svg: a run's latency by percentile, one line per hop and
 * one for e2e, so where the tail is born shows at a glance: the hop whose
 * line climbs with e2e's at the right is the one the tail comes from.
 */
#include <errno.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/pipe.h"
#include "latlab/svg.h"

int lat_pipe_write_svg(FILE *out, const struct lat_pipe_result *r)
{
	struct lat_svg_curve c[LAT_PIPE_MAX_DELTAS];
	char title[256], rate[LAT_FMT_LEN], partial[128];
	int n = r->n_deltas;

	if (!out || n < 1 || n > LAT_SVG_MAX_CURVES || n > LAT_PIPE_MAX_DELTAS)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		bool e2e = i == n - 1;

		c[i] = (struct lat_svg_curve){
			.label = r->delta[i].name, .hist = &r->delta[i].hist,
			.ns_per_value = 1,
			/* e2e in black, the hops in the palette */
			.color = e2e ? "#000000" : lat_svg_palette((size_t)i),
			.dash = e2e ? "10 3" : NULL,
		};
	}
	lat_fmt_rate(rate, sizeof(rate), r->offered_rate);
	snprintf(title, sizeof(title), "latlab pipeline: %llu events at %s, "
		 "%d stage%s", (unsigned long long)r->produced, rate,
		 r->config.stages, r->config.stages == 1 ? "" : "s");
	/* an interrupted run draws what it measured, and says so */
	snprintf(partial, sizeof(partial), "the run was stopped after %llu "
		 "of %llu events", (unsigned long long)r->produced,
		 (unsigned long long)r->config.events);
	return lat_svg_percentiles(out, &(struct lat_svg_spectrum_opts){
					   .title = title,
					   .partial = r->interrupted ? partial
								     : NULL },
				   c, (size_t)n);
}

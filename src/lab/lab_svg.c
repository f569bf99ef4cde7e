/*
 * lat_lab_write_svg: the lab as one percentile plot: each experiment's
 * e2e beside its baselines', so a disease that moves the tail shows
 * where in the distribution it does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/lab.h"
#include "latlab/svg.h"

int lat_lab_write_svg(FILE *out, const struct lat_lab *L)
{
	static const char *const base_dash[] = { NULL, "8 4", "2 3", "12 3" };
	struct lat_svg_curve c[LAT_LAB_MAX_CURVES];
	char label[LAT_LAB_MAX_CURVES][80];
	int n = 0, nbase = 0;

	if (!out || !L->n_e2e)
		return -EINVAL;
	for (int i = 0; i < L->n_e2e; i++) {
		const struct lat_lab_e2e *e = &L->e2e[i];
		bool base = !strncmp(e->name, "baseline", 8);

		if (!e->hist)
			continue;
		snprintf(label[n], sizeof(label[n]), "%s (%d run%s)",
			 e->name, e->runs, e->runs == 1 ? "" : "s");
		c[n] = (struct lat_svg_curve){
			.label = label[n], .hist = e->hist, .ns_per_value = 1,
			/* baselines black, one dash per arm; experiments in
			 * the palette */
			.color = base ? "#000000" : lat_svg_palette((size_t)
								    (n - nbase)),
			.dash = base ? base_dash[nbase % 4] : NULL,
		};
		nbase += base;
		n++;
	}
	if (!n)
		return -EINVAL;
	return lat_svg_percentiles(out, &(struct lat_svg_spectrum_opts){
					   .title = "latlab lab: e2e of the "
						    "baselines and each "
						    "experiment" },
				   c, (size_t)n);
}

void lat_lab_free_e2e(struct lat_lab *L)
{
	for (int i = 0; i < L->n_e2e; i++)
		lat_hist_free(L->e2e[i].hist);
	memset(L->e2e, 0, sizeof(L->e2e));
	L->n_e2e = 0;
}

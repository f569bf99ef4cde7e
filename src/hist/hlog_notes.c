/*
 * What a loaded file could not keep, said to the reader: an .hgrm's
 * placement of counts at its ticks, values with decimals read in an
 * assumed unit, intervals of mixed precision merged, counts refused by
 * the merge. `latlab report` prints these on stderr before the numbers.
 */
#include <stdio.h>

#include "latlab/hist_io.h"

static void hgrm_notes(FILE *out, const char *prefix,
		       const struct lat_hlog_data *d, bool unit_given)
{
	fprintf(out, "%snote: .hgrm keeps one value per percentile tick; "
		"counts between ticks are placed at the upper tick%s\n",
		prefix, d->hgrm.has_footer ?
		" (mean, stddev and max are the footer's, exact)" : "");
	if (d->hgrm.fractional_values && !unit_given &&
	    !(d->hgrm.ns_per_value > 0))
		fprintf(out, "%snote: values have decimals (written with a "
			"unit ratio); taking 1 value = 1 ns, give the unit in "
			"ns per value (1e6 for ms) if wrong\n", prefix);
}

void lat_hlog_notes(FILE *out, const char *prefix, const char *path,
		    const struct lat_hlog_data *d, bool unit_given)
{
	char label[LAT_HLOG_LABEL_LEN];
	/* the file is named only when the caller has several */
	const char *sep = path ? ": " : "";

	if (!path)
		path = "";
	if (d->is_hgrm)
		hgrm_notes(out, prefix, d, unit_given);
	for (int i = -1; i < d->ntags; i++) {
		const struct lat_hlog_tag *t = i < 0 ? &d->total : &d->tags[i];

		if (t->mixed_precision)
			fprintf(out, "%snote: %s%s%s mixes intervals of "
				"different precision; merged at %d significant "
				"digit%s as HdrHistogram's add() does\n",
				prefix, path, sep, i < 0 ? "the total" :
				lat_hlog_tag_label(t->name, label,
						   sizeof(label)),
				t->hist->sig_figs,
				t->hist->sig_figs == 1 ? "" : "s");
	}
	if (d->refused)
		fprintf(out, "%swarning: %s%s%lld counts could not be merged "
			"(beyond the accumulator's range, or a total beyond "
			"2^63)\n", prefix, path, sep, (long long)d->refused);
}

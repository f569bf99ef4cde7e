/*
 * A profile's flame graph with the facts of its run in the subtitle (the
 * event, the rate, what was lost), and the one line that says where a
 * profile directory's graphs went: what `latlab profile --svg` and
 * `latlab pipeline --profile` write.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>

#include "latlab/prof.h"

int lat_prof_svg_write_run(const struct lat_prof_folded *f,
			   const struct lat_prof_stats *st, bool off,
			   const char *what, const char *title, FILE *out)
{
	struct lat_prof_svg_opts so = {
		.title = title ? title : off ? "Off-CPU flame graph" :
			 "On-CPU flame graph",
		.palette = off ? LAT_PROF_COLD : LAT_PROF_HOT,
		.unit = off ? "ns" : "samples",
	};
	struct lat_prof_folded none;
	char sub[256];
	int rc;

	if (off)
		snprintf(sub, sizeof(sub), "%s: time off CPU (eBPF "
			 "sched_switch), %.3f s in all, %" PRIu64 " dropped",
			 what, st->offcpu_ns / 1e9, st->offcpu_dropped);
	else
		snprintf(sub, sizeof(sub), "%s: %.0f Hz %s, %" PRIu64
			 " samples, %" PRIu64 " lost%s", what, st->freq_hz,
			 st->hardware ? "cycles" : "cpu-clock", st->samples,
			 st->lost, st->kernel ? "" : ", user frames only");
	so.subtitle = sub;
	if (f->total)
		return lat_prof_svg_write(f, &so, out);
	/* an empty profile still gets a graph, with one honest frame */
	lat_prof_folded_init(&none);
	rc = lat_prof_folded_add(&none, off ? "no time off CPU" : "no samples",
				 1);
	if (!rc)
		rc = lat_prof_svg_write(&none, &so, out);
	lat_prof_folded_release(&none);
	return rc;
}

void lat_prof_print_dir(FILE *out, const char *dir,
			const struct lat_prof_stats *st)
{
	fprintf(out, "profile: %s/oncpu.svg (%" PRIu64 " samples at %.0f "
		"Hz, %" PRIu64 " lost, kernel frames %s)", dir, st->samples,
		st->freq_hz, st->lost, st->kernel ? "yes" : "no");
	if (st->offcpu)
		fprintf(out, ", %s/offcpu.svg (%.3f s off CPU, %" PRIu64
			" dropped)\n", dir, st->offcpu_ns / 1e9,
			st->offcpu_dropped);
	else
		fprintf(out, "; off CPU %s\n", st->offcpu_note);
}

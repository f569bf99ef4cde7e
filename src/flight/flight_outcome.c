/*
 * What became of a recorder at the end of a run, in one place for every
 * command that arms one: never triggered (and why), the window on a
 * table, or where the CSV went.
 */
#include <stdio.h>

#include "latlab/flight.h"
#include "latlab/fmt.h"

void lat_flight_print_outcome(FILE *out, struct lat_flight *f,
			      bool auto_threshold, const char *csv_path)
{
	struct lat_flight_rec trigger;
	char t[LAT_FMT_LEN];

	if (f->state == LAT_FLIGHT_RECORDING) {
		lat_fmt_ns(t, sizeof(t), (double)f->threshold_ns);
		fprintf(out, "flight recorder: never triggered (no e2e above "
			"%s%s)%s%s\n", f->threshold_ns ? t : "the threshold: "
			"the warm-up did not finish",
			auto_threshold && f->threshold_ns ? ", auto" : "",
			csv_path ? "; last window written to " : "",
			csv_path ? csv_path : "");
		return;
	}
	if (!csv_path) {
		lat_flight_dump_table(f, out, 16);
		return;
	}
	lat_flight_get(f, (size_t)lat_flight_trigger_index(f), &trigger);
	fprintf(out, "flight recorder: %s on seq %llu; window written to %s\n",
		lat_flight_state_name(f->state),
		(unsigned long long)trigger.seq, csv_path);
}

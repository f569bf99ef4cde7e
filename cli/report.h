/*
 * 'latlab report' internals: load an .hlog or .hgrm file into one merged
 * histogram per tag. Shared by cmd_report.c (options and output) and
 * report_load.c (reading and merging).
 */
#ifndef LATLAB_CLI_REPORT_H
#define LATLAB_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/hist_io.h"

/* More tags than this in one log is refused (memory is per tag). */
#define REPORT_MAX_TAGS 64

struct report_tag {
	char name[64];            /* "" = untagged */
	struct lat_hist *hist;    /* merged intervals, owned */
	int64_t intervals;
	double first_start_s;     /* absolute seconds since the epoch */
	double last_end_s;
	bool mixed_precision;     /* intervals of another layout were merged */
};

struct report_data {
	bool is_hgrm;
	struct report_tag tags[REPORT_MAX_TAGS];
	int ntags;
	struct report_tag total;  /* every selected interval merged */
	int64_t refused;          /* counts lost while merging (reported) */
	double start_time_s;      /* hlog StartTime, NAN if none */
	struct lat_hgrm_info hgrm;/* when is_hgrm */
	double hgrm_scale;        /* ns per .hgrm file value actually used */
};

/*
 * Load @path. @tag: NULL for every tag, else only intervals with that tag
 * ("" = untagged). @scale: .hgrm values are multiplied by it (0 = what the
 * file says, else 1). On failure returns a negative code and writes a
 * one-line reason (with the line number when known) into @why.
 */
int report_load(const char *path, const char *tag, double scale,
		struct report_data *d, char *why, size_t why_len);

void report_data_free(struct report_data *d);

#endif

/*
 * 'latlab report' internals shared by cmd_report.c (options, tables),
 * report_svg.c (--svg) and report_compare.c (--compare).
 */
#ifndef LATLAB_CLI_REPORT_H
#define LATLAB_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "latlab/hist_io.h"

/* Files one command line may name (--svg, --compare). */
#define REPORT_MAX_FILES 16

struct report_opts {
	const char *path;         /* the first file */
	const char *const *paths;
	int npaths;
	const char *tag;          /* NULL = all */
	bool json;
	const char *hgrm_out;
	double hgrm_ratio;
	int32_t ticks;
	double ns_per_value;      /* 0 = default / what the file says */
	const char *svg_out;
	bool linear;
	bool compare;
};

/* ns per value of @d's histograms as loaded. */
double report_ns_per_value(const struct report_opts *o,
			   const struct lat_hlog_data *d);

/* "(untagged)" for "", else @name. */
const char *report_tag_label(const char *name);

/* --svg: write o->svg_out from the loaded files (exit 1 on failure). */
void report_svg(const struct report_opts *o,
		struct lat_hlog_data *const *d);

struct lat_compare_spreads;

/*
 * --compare: exit 2 with one line unless the files hold the same tags and
 * every .hlog's intervals can be read again; their spreads otherwise.
 */
struct lat_compare_spreads *report_compare_load(const struct report_opts *o,
						struct lat_hlog_data *const *d);

/* --compare: print (text or --json) every file against the first. */
void report_compare(const struct report_opts *o,
		    struct lat_hlog_data *const *d,
		    const struct lat_compare_spreads *sp);

void report_compare_free(const struct report_opts *o,
			 struct lat_compare_spreads *sp);

#endif

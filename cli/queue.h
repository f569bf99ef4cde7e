/*
 * latlab queue internals: --service-from FILE.hlog[:TAG] (queue_hlog.c),
 * used by cmd_queue.c. The report's printers are the library's
 * (lat_qsim_print_*, lat_qsim_json_*, lat_qsim_sweep_svg).
 */
#ifndef LATLAB_CLI_QUEUE_H
#define LATLAB_CLI_QUEUE_H

#include "latlab/qsim.h"

/*
 * Load FILE.hlog[:TAG] (all interval histograms with that tag, merged)
 * into an empirical service distribution; *tau_ns gets its mean. Exits 2
 * for a bad spec or unreadable file, as every CLI input error does.
 */
void queue_load_service(const char *spec, struct lat_qsim_dist *d,
			double *tau_ns);

#endif

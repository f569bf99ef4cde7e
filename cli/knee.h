/*
 * latlab knee: shared between the command (cmd_knee.c), its printers
 * (knee_out.c) and its chart (knee_plot.c).
 */
#ifndef LATLAB_CLI_KNEE_H
#define LATLAB_CLI_KNEE_H

#include <stdbool.h>

#include "latlab/knee.h"

#define KNEE_MAX_DISTS 4

/* One work distribution's sweep. */
struct knee_run {
	struct lat_work_dist dist;
	double tau_ns;            /* calibrated service time */
	double cal_cs;            /* its c_s at saturation */
	double work_cv;           /* the drawn table's cv (0 for det) */
	struct lat_knee_sweep sweep;
	bool started;             /* the calibration ran */
};

struct knee_opts {
	struct lat_pipe_config base;
	struct lat_knee_config kc;
	struct lat_work_dist dists[KNEE_MAX_DISTS];
	int n_dists;
	bool work_set;            /* --work-ns given (else 20 x floor) */
	bool json, force;
	const char *svg, *hlog_dir;
	bool oversubscribed;
	double floor_ns;
	double floor_rate;
	struct knee_run runs[KNEE_MAX_DISTS];
	int n_runs;
	struct lat_knee_pipe kp;  /* the last run's placement and facts */
	double rate_tau_ns;       /* the tau every point's rate comes from:
				   * the shortest calibrated */
	int autogroup_error;      /* 0, or why the autogroup nice failed */
	int autogroup_old;
	int sig;
};

void knee_print_text(const struct knee_opts *o);
void knee_print_json(const struct knee_opts *o);
int knee_plot(const struct knee_opts *o);
/* "det", "exp", ...: the name of a dist */
const char *knee_dist_name(const struct lat_work_dist *d);

#endif

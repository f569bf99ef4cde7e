/*
 * latlab queue internals: options shared by cmd_queue.c (parsing, runs),
 * queue_out.c (text and JSON), queue_plot.c (SVG) and queue_hlog.c
 * (--service-from).
 */
#ifndef LATLAB_CLI_QUEUE_H
#define LATLAB_CLI_QUEUE_H

#include <stdbool.h>
#include <stdio.h>

#include "latlab/qsim.h"

struct queue_opts {
	struct lat_qsim_config cfg;
	double tau_ns;          /* mean service time in ns; 0: show τ units */
	const char *service_from;
	bool sweep;
	double sweep_lo, sweep_hi, sweep_step;
	const char *svg;
	double knee_slope;
	double target;          /* p99 target in τ; 0 when not asked */
	bool json;
};

struct queue_target {
	int status;             /* lat_qsim_target_p99's return: 0, -ENOENT */
	struct lat_qsim_target found;
	double tol;
	struct lat_qsim_result at; /* final run at rho (histograms kept) */
};

/* A warning when the achieved utilization is far from rho (see .c). */
bool queue_util_warning(const struct lat_qsim_result *r, char *buf,
			size_t len);

void queue_print_point(const struct queue_opts *o,
		       const struct lat_qsim_result *r);
void queue_json_point(const struct queue_opts *o,
		      const struct lat_qsim_result *r);
void queue_print_sweep(const struct queue_opts *o,
		       const struct lat_qsim_sweep *s);
void queue_json_sweep(const struct queue_opts *o,
		      const struct lat_qsim_sweep *s);
void queue_print_target(const struct queue_opts *o,
			const struct queue_target *t);
void queue_json_target(const struct queue_opts *o,
		       const struct queue_target *t);

/* Kendall's letter for a distribution: M, D, E<k> or G. */
const char *queue_kendall(const struct lat_qsim_dist *d, char *buf,
			  size_t len);

/* Write the sweep chart to o->svg; 0 or -errno. */
int queue_plot(const struct queue_opts *o, const struct lat_qsim_sweep *s);

/*
 * Load FILE.hlog[:TAG] (all interval histograms with that tag, merged)
 * into an empirical service distribution; *tau_ns gets its mean. Exits 2
 * for a bad spec or unreadable file, as every CLI input error does.
 */
void queue_load_service(const char *spec, struct lat_qsim_dist *d,
			double *tau_ns);

#endif

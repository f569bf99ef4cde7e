/*
 * `latlab queue` as one call: the composite values it reads (a sweep's
 * range, an empirical service "FILE.hlog:TAG"), and the run of a point,
 * a sweep or a target search with its standard outputs written to the
 * FILE *s the caller gives, the interrupted cases included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/json.h"
#include "latlab/qsim.h"

int lat_qsim_parse_range(const char *spec, double *lo, double *hi,
			 double *step)
{
	double *v[3] = { lo, hi, step };
	const char *p = spec;
	char *end;

	for (int i = 0; i < 3; i++, p = end + 1) {
		errno = 0;
		*v[i] = strtod(p, &end);
		if (errno || end == p || !isfinite(*v[i]) ||
		    *end != (i < 2 ? ':' : 0))
			return -EINVAL;
	}
	return lat_qsim_sweep_points(*lo, *hi, *step) ? 0 : -ERANGE;
}

int lat_qsim_dist_init_hlog_spec(struct lat_qsim_dist *d, const char *spec,
				 int64_t *refused, char *why, size_t len)
{
	const char *tag = NULL, *dot = strstr(spec, ".hlog:");
	size_t n = strlen(spec);
	char path[4096];
	int rc;

	*refused = 0;
	/* the tag follows ".hlog:" or ".hgrm:", so a ':' elsewhere in the
	 * path is the path's */
	if (!dot)
		dot = strstr(spec, ".hgrm:");
	if (dot) {
		n = (size_t)(dot - spec) + 5;
		tag = dot + 6;
	}
	if (n >= sizeof(path) || (tag && !*tag)) {
		snprintf(why, len, n >= sizeof(path) ? "path too long" :
			 "'%s': empty tag after ':'", spec);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%.*s", (int)n, spec);
	rc = lat_qsim_dist_init_hlog(d, path, tag, refused, why, len);
	if (rc == -EINVAL && !*why)
		snprintf(why, len, "'%s': no positive values to sample", spec);
	return rc;
}

/* A cv lat_qsim_dist_from_cv refused, in @why. */
static int bad_cv(enum lat_qsim_field *bad, enum lat_qsim_field which,
		  char *why, size_t len)
{
	*bad = which;
	snprintf(why, len, "must be 0 (deterministic) or between %g and %g",
		 LAT_QSIM_CV_MIN, LAT_QSIM_CV_MAX);
	return -EINVAL;
}

/* A spec lat_qsim_dist_parse refused, in @why. */
static int bad_spec(const char *spec, char *why, size_t len)
{
	snprintf(why, len, "unknown or invalid distribution '%s'", spec);
	return -EINVAL;
}

int lat_qsim_report_dists(struct lat_qsim_report *o, const char *arrival,
			  double ca, const char *service, double cs,
			  int64_t *refused, enum lat_qsim_field *bad,
			  char *why, size_t len)
{
	int rc;

	*refused = 0;
	*why = '\0';
	*bad = LAT_QSIM_ARRIVAL;
	if (arrival && lat_qsim_dist_parse(&o->cfg.arrival, arrival))
		return bad_spec(arrival, why, len);
	if (!arrival && lat_qsim_dist_from_cv(&o->cfg.arrival, ca))
		return bad_cv(bad, LAT_QSIM_CA, why, len);
	*bad = LAT_QSIM_SERVICE;
	if (service && lat_qsim_dist_parse(&o->cfg.service, service))
		return bad_spec(service, why, len);
	if (!service && !o->service_from &&
	    lat_qsim_dist_from_cv(&o->cfg.service, cs))
		return bad_cv(bad, LAT_QSIM_CS, why, len);
	if (service || !o->service_from)
		return 0;
	*bad = LAT_QSIM_SERVICE_FROM;
	rc = lat_qsim_dist_init_hlog_spec(&o->cfg.service, o->service_from,
					  refused, why, len);
	if (!rc)
		o->tau_ns = o->cfg.service.scale_ns;
	return rc;
}

/* One document on @out: the caller's writer between init and finish. */
#define JSON_DOC(out, call)                                               \
	do {                                                              \
		struct lat_json j_;                                       \
		lat_json_init(&j_, (out));                                \
		call;                                                     \
		lat_json_finish(&j_);                                     \
	} while (0)

static int run_point(struct lat_qsim_session *s)
{
	const struct lat_qsim_report *o = s->rep;
	struct lat_qsim_result r;
	int err = lat_qsim_run(&o->cfg, &r);
	char warn[256];

	if (err && err != -EINTR) {
		lat_qsim_result_destroy(&r);
		snprintf(s->why, sizeof(s->why), "simulation failed");
		return err;
	}
	if (r.batches >= 2 && lat_qsim_util_warning(&r, warn, sizeof(warn)))
		fprintf(s->warn, "%swarning: %s\n", s->prefix, warn);
	if (s->json) /* a run stopped before two batches is a stub */
		JSON_DOC(s->out, lat_qsim_json_point(&j_, o, &r));
	else if (r.batches >= 2)
		lat_qsim_print_point(s->out, o, &r);
	lat_qsim_result_destroy(&r);
	if (err == -EINTR && r.batches < 2)
		snprintf(s->why, sizeof(s->why), "stopped before two batches "
			 "were done, no result");
	else if (err == -EINTR)
		snprintf(s->why, sizeof(s->why), "the result is of the first "
			 "%u of %u batches", r.batches, o->cfg.batches);
	return err;
}

static int run_sweep(struct lat_qsim_session *s)
{
	const struct lat_qsim_report *o = s->rep;
	struct lat_qsim_sweep sw;
	int err = lat_qsim_sweep_init(&sw, o->sweep_lo, o->sweep_hi,
				      o->sweep_step, o->knee_slope);

	if (!err)
		err = lat_qsim_sweep_run(&sw, &o->cfg, s->stop, s->stop_ctx);
	if (err) {
		if (sw.pts)
			snprintf(s->why, sizeof(s->why), "simulation at rho "
				 "%.4g failed", sw.pts[sw.done].rho);
		lat_qsim_sweep_destroy(&sw);
		return err;
	}
	if (s->json)
		JSON_DOC(s->out, lat_qsim_json_sweep(&j_, o, &sw));
	else
		lat_qsim_print_sweep(s->out, o, &sw);
	if (s->svg)
		s->svg_rc = lat_qsim_sweep_svg(s->svg, o, &sw);
	if (sw.done < sw.n) {
		snprintf(s->why, sizeof(s->why), "the sweep holds the first "
			 "%zu of %zu points", sw.done, sw.n);
		err = -EINTR;
	}
	lat_qsim_sweep_destroy(&sw);
	return err;
}

static int run_target(struct lat_qsim_session *s)
{
	const struct lat_qsim_report *o = s->rep;
	struct lat_qsim_target_run t;
	int err = lat_qsim_target_search(&o->cfg, o->target,
					 LAT_QSIM_TARGET_TOL, &t);

	if (err && err != -EINTR) {
		snprintf(s->why, sizeof(s->why), "simulation failed");
		return err;
	}
	if (s->json) /* an interrupted search is a stub */
		JSON_DOC(s->out, lat_qsim_json_target(&j_, o, &t));
	else if (!err)
		lat_qsim_print_target(s->out, o, &t);
	lat_qsim_result_destroy(&t.at);
	if (err == -EINTR)
		snprintf(s->why, sizeof(s->why), t.status == -EINTR ?
			 "the search for the load was not finished" :
			 "the load was found; its final run was not finished");
	return err;
}

int lat_qsim_session_run(struct lat_qsim_session *s)
{
	s->why[0] = '\0';
	s->svg_rc = 0;
	if (!s->prefix)
		s->prefix = "";
	if (s->rep->sweep_step > 0)
		return run_sweep(s);
	return s->rep->target > 0 ? run_target(s) : run_point(s);
}

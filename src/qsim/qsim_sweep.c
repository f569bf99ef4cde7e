/*
 * lat_qsim_sweep: simulate a queue across utilizations and find the knee
 * of its mean wait (the driver behind `latlab queue --sweep`).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/qsim.h"

size_t lat_qsim_sweep_points(double lo, double hi, double step)
{
	double n;

	if (!(lo > 0) || !(hi >= lo) || !(hi <= 10) || !(step > 0))
		return 0;
	n = floor((hi - lo) / step + 1e-9) + 1;
	return n > LAT_QSIM_MAX_SWEEP ? 0 : (size_t)n;
}

int lat_qsim_sweep_init(struct lat_qsim_sweep *s, double lo, double hi,
			double step, double knee_slope)
{
	memset(s, 0, sizeof(*s));
	s->knee = s->kingman_knee = NAN;
	s->n = lat_qsim_sweep_points(lo, hi, step);
	if (!s->n || !(knee_slope > 0))
		return -EINVAL;
	s->pts = calloc(s->n, sizeof(*s->pts));
	if (!s->pts)
		return -ENOMEM;
	s->knee_slope = knee_slope;
	for (size_t i = 0; i < s->n; i++) {
		s->pts[i].rho = lo + (double)i * step;
		s->pts[i].stable = s->pts[i].rho < 1;
	}
	return 0;
}

/* The knee of the simulated mean wait over the stable points done. */
static int find_knee(struct lat_qsim_sweep *s,
		     const struct lat_qsim_config *cfg)
{
	double *rho = calloc(s->done + 1, sizeof(double));
	double *w = calloc(s->done + 1, sizeof(double));
	size_t n = 0;

	if (!rho || !w) {
		free(rho);
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->done && s->pts[i].stable; i++, n++) {
		rho[n] = s->pts[i].rho;
		w[n] = s->pts[i].r.wait.mean;
	}
	s->knee = NAN;
	s->knee_err = lat_qsim_knee(rho, w, n, s->knee_slope, &s->knee);
	s->kingman_knee = cfg->servers == 1 ?
		lat_qsim_kingman_knee(cfg->arrival.cv, cfg->service.cv,
				      s->knee_slope) : NAN;
	free(rho);
	free(w);
	return 0;
}

int lat_qsim_sweep_run(struct lat_qsim_sweep *s,
		       const struct lat_qsim_config *cfg,
		       lat_qsim_stop_fn stop, void *ctx)
{
	for (s->done = 0; s->done < s->n; s->done++) {
		struct lat_qsim_point *p = &s->pts[s->done];
		struct lat_qsim_config c = *cfg;
		int err;

		if (stop && stop(ctx, s->done, s->n))
			break;
		c.rho = p->rho;
		lat_qsim_formulas(&c, &p->f);
		if (!p->stable)
			continue;
		err = lat_qsim_run(&c, &p->r);
		lat_qsim_result_destroy(&p->r);
		if (err == -EINTR)
			break; /* stopped inside a point: the sweep ends before it */
		if (err)
			return err;
	}
	return find_knee(s, cfg);
}

void lat_qsim_sweep_destroy(struct lat_qsim_sweep *s)
{
	free(s->pts);
	s->pts = NULL;
	s->n = s->done = 0;
}

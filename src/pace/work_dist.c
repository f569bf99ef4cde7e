/*
 * Work-time distributions for a stage: parse, draw a table of step counts
 * before the run, and check the table's mean on the clock. See work.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/parse.h"
#include "latlab/stats.h"
#include "latlab/work.h"

/*
 * The numbers in a spec are read by latlab/parse.h like every setting;
 * its range codes collapse to -EINVAL here (this parser's one code).
 * Both bounds of CV, P and SLOW are checked in lat_work_dist_parse:
 * P and SLOW exclude 0, which a [min, max] range cannot say.
 */
int lat_work_dist_parse(struct lat_work_dist *d, const char *spec)
{
	struct lat_work_dist v;
	char buf[64], *colon;

	memset(&v, 0, sizeof(v));
	if (!d || !spec || strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	if (!strcmp(buf, "det")) {
		v.kind = LAT_WORK_DET;
	} else if (!strcmp(buf, "exp")) {
		v.kind = LAT_WORK_EXP;
	} else if (!strncmp(buf, "lognormal:", 10)) {
		v.kind = LAT_WORK_LOGNORMAL;
		if (lat_parse_double(buf + 10, 0, 10, &v.cv) || !(v.cv > 0))
			return -EINVAL;
	} else if (!strncmp(buf, "bimodal:", 8)) {
		v.kind = LAT_WORK_BIMODAL;
		colon = strchr(buf + 8, ':');
		if (!colon)
			return -EINVAL;
		*colon = 0;
		if (lat_parse_double(buf + 8, 0, 1, &v.p_slow) ||
		    !(v.p_slow > 0 && v.p_slow < 1) ||
		    lat_parse_duration_ns(colon + 1, 0, 0, 1e9, &v.slow_ns) ||
		    !(v.slow_ns > 0))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	snprintf(v.name, sizeof(v.name), "%s", spec);
	*d = v;
	return 0;
}

const char *lat_work_dist_name(const struct lat_work_dist *d)
{
	return d->kind == LAT_WORK_DET ? "det" : d->name;
}

int lat_work_dist_check(const struct lat_work_dist *d, double mean_ns,
			const char **why)
{
	const char *msg = NULL;

	if (d->kind != LAT_WORK_DET && !(mean_ns > 0))
		msg = "a work distribution needs a work time above 0";
	else if (d->kind == LAT_WORK_BIMODAL && !(d->slow_ns > mean_ns))
		msg = "bimodal: the slow time must be above the mean work time";
	else if (d->kind == LAT_WORK_BIMODAL &&
		 !(d->p_slow * d->slow_ns < mean_ns))
		msg = "bimodal: p * slow must be below the mean work time "
		      "(the fast events would take no time)";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

static double bimodal_fast(const struct lat_work_dist *d, double mean_ns,
			   double p)
{
	return (mean_ns - p * d->slow_ns) / (1 - p);
}

double lat_work_dist_cv(const struct lat_work_dist *d, double mean_ns)
{
	double f, m2;

	switch (d->kind) {
	case LAT_WORK_EXP:
		return 1;
	case LAT_WORK_LOGNORMAL:
		return d->cv;
	case LAT_WORK_BIMODAL:
		f = bimodal_fast(d, mean_ns, d->p_slow);
		m2 = d->p_slow * d->slow_ns * d->slow_ns +
		     (1 - d->p_slow) * f * f;
		return sqrt(fmax(m2 - mean_ns * mean_ns, 0)) / mean_ns;
	default:
		return 0;
	}
}

/* uniform on (0, 1]: never 0, so its log is finite */
static double unit(uint64_t *s)
{
	return (double)((lat_splitmix64(s) >> 11) + 1) * 0x1p-53;
}

/*
 * Draw the table's times in ns at mean @mean into @x. Exp and lognormal
 * are rescaled to the exact mean (a table of 65536 draws is within ~0.4%
 * of it otherwise, and that would shift rho); bimodal places exactly
 * round(p N) slow events at random positions and gives the others the
 * fast time that makes the mean exact.
 */
static void draw(const struct lat_work_dist *d, double mean, uint64_t seed,
		 double *x, size_t n)
{
	uint64_t s = seed;
	double sum = 0, sigma, fast;
	size_t slow;

	switch (d->kind) {
	case LAT_WORK_EXP:
	case LAT_WORK_LOGNORMAL:
		sigma = sqrt(log1p(d->cv * d->cv));
		for (size_t i = 0; i < n; i++) {
			if (d->kind == LAT_WORK_EXP) {
				x[i] = -log(unit(&s));
			} else { /* Box-Muller, one normal per pair */
				double z = sqrt(-2 * log(unit(&s))) *
					   cos(6.283185307179586 * unit(&s));

				x[i] = exp(sigma * z - sigma * sigma / 2);
			}
			sum += x[i];
		}
		for (size_t i = 0; i < n; i++)
			x[i] *= mean * n / sum;
		break;
	case LAT_WORK_BIMODAL:
		slow = (size_t)llround(d->p_slow * n);
		if (slow < 1)
			slow = 1;
		fast = bimodal_fast(d, mean, (double)slow / n);
		for (size_t i = 0; i < n; i++)
			x[i] = i < slow ? d->slow_ns : fast;
		for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
			size_t j = (size_t)(lat_splitmix64(&s) % (i + 1));
			double t = x[i];

			x[i] = x[j];
			x[j] = t;
		}
		break;
	default:
		for (size_t i = 0; i < n; i++)
			x[i] = mean;
	}
}

/*
 * Time the first @n entries as the stage times them, and return the
 * median of (measured - intended) in ns: the systematic miss. A mean
 * would be the check of a loaded machine, not of the table: one
 * preemption of a few ms in 50 ms of work moves it by tens of percent,
 * and preemptions only ever add time.
 */
static double median_miss(const struct lat_work_table *t, const double *x,
			  double *d, size_t n, const struct lat_clock_cal *cal)
{
	volatile uint64_t sink = 0;

	for (size_t i = 0; i < n; i++) {
		lat_cycles_t a = lat_clock_start();

		sink = lat_work_run(t->steps[i], i + sink);
		d[i] = (double)(lat_clock_end() - a) / cal->cycles_per_ns -
		       x[i];
	}
	return lat_median_sort(d, n);
}

int lat_work_table_init(struct lat_work_table *t,
			const struct lat_work_dist *d,
			const struct lat_work *w, uint64_t seed,
			const struct lat_clock_cal *cal)
{
	const size_t n = LAT_WORK_TABLE_LEN;
	double *x, sum = 0, sum2 = 0, head = 0, intended, miss;

	if (!t || !d || !w || !cal || !(cal->cycles_per_ns > 0) ||
	    !(w->ns_per_step > 0) || lat_work_dist_check(d, w->target_ns,
							 NULL) ||
	    !(w->target_ns > 0))
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	x = malloc(2 * n * sizeof(*x)); /* the draws, then the misses */
	t->steps = malloc(n * sizeof(*t->steps));
	if (!x || !t->steps) {
		free(x);
		lat_work_table_destroy(t);
		return -ENOMEM;
	}
	draw(d, w->target_ns, seed, x, n);
	/* about 50 ms of work, at least 256 entries */
	t->checked = (size_t)fmin(n, fmax(256, 50e6 / w->target_ns));
	for (size_t i = 0; i < n; i++) {
		double steps = (double)w->steps +
			       (x[i] - w->target_ns) / w->ns_per_step;

		if (steps < 0) {
			steps = 0;
			t->raised++;
		}
		t->steps[i] = (uint64_t)llround(steps);
		intended = w->target_ns +
			   ((double)t->steps[i] - (double)w->steps) *
			   w->ns_per_step;
		x[i] = intended;
		sum += intended;
		sum2 += intended * intended;
		if (i < t->checked)
			head += intended;
	}
	t->mean_ns = sum / n;
	t->cv = sqrt(fmax(sum2 / n - t->mean_ns * t->mean_ns, 0)) /
		t->mean_ns;
	median_miss(t, x, x + n, 64, cal); /* warm code and frequency */
	miss = median_miss(t, x, x + n, t->checked, cal);
	head /= t->checked;
	t->check_mean_ns = head + miss;
	t->check_error = miss / head;
	free(x);
	return 0;
}

void lat_work_table_destroy(struct lat_work_table *t)
{
	if (!t)
		return;
	free(t->steps);
	t->steps = NULL;
}

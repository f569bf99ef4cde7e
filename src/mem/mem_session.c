/*
 * A whole memory run, as `latlab mem` does it: the machine read and
 * measured once, then the experiments in order, each report written as it
 * finishes so that a stop or a failure keeps what was done, and the JSON
 * document closed whatever happens.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "latlab/bench.h"
#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"

int lat_mem_experiment_parse(const char *name)
{
	static const char *const names[] = { "chase", "c2c", "false-sharing",
					     "read-mostly" };

	if (!strcmp(name, "all"))
		return LAT_MEM_EXP_ALL;
	for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i]))
			return 1 << i; /* enum lat_mem_experiment's order */
	return -EINVAL;
}

int lat_mem_session_init(struct lat_mem_session *s)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->min_size = LAT_MEM_CHASE_MIN;
	s->steps = LAT_MEM_CHASE_STEPS;
	s->loads = LAT_MEM_CHASE_LOADS;
	s->write_interval_ns = LAT_MEM_RM_WRITE_INTERVAL_NS;
	rc = lat_topo_load(&s->topo, NULL, NULL);
	if (rc)
		return rc;
	s->n_cpus = lat_topo_usable_cpus(&s->topo, s->cpus, LAT_TOPO_MAX_CPUS);
	if (!s->n_cpus)
		return -ENODEV;
	s->m.usable = s->n_cpus;
	return lat_topo_caches_load(&s->m.caches, NULL, s->cpus[0]);
}

int lat_mem_session_use_cpus(struct lat_mem_session *s, const int *cpus,
			     int n, int *bad)
{
	bool seen[LAT_TOPO_MAX_CPUS] = { false };
	int k = 0;

	for (int i = 0; i < n; i++) {
		int c = cpus[i];

		if (c < 0 || c >= s->topo.n_cpus || !s->topo.cpu[c].online ||
		    !s->topo.cpu[c].allowed) {
			*bad = c;
			return -EINVAL;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!seen[cpus[i]])
			s->cpus[k++] = cpus[i];
		seen[cpus[i]] = true;
	}
	s->n_cpus = k;
	return k ? 0 : -EINVAL;
}

/* @v when set, else the quick or the ordinary default. */
#define DEFAULT(v, quick, q, d) ((v) = (v) ? (v) : (quick) ? (q) : (d))

int lat_mem_session_check(struct lat_mem_session *s)
{
	bool q = s->quick;
	int rc;

	if (!s->what)
		s->what = LAT_MEM_EXP_ALL;
	DEFAULT(s->samples, q, LAT_MEM_QUICK_SAMPLES, LAT_MEM_CHASE_SAMPLES);
	DEFAULT(s->rounds, q, LAT_MEM_QUICK_ROUNDS, LAT_MEM_ROUNDS);
	DEFAULT(s->rm_ns, q, LAT_MEM_QUICK_RM_NS, LAT_MEM_RM_NS);
	DEFAULT(s->c2c_iters, q, LAT_MEM_QUICK_C2C_ITERS, LAT_MEM_C2C_ITERS);
	DEFAULT(s->share_ns, q, LAT_MEM_QUICK_SHARE_NS, LAT_MEM_SHARE_NS);
	DEFAULT(s->max_size, q, LAT_MEM_QUICK_MAX_SIZE,
		lat_mem_chase_default_max(&s->m.caches));
	if (s->min_size < LAT_CACHELINE)
		return -EDOM;
	if (s->max_size < s->min_size)
		return -ERANGE;
	if (!s->n_threads)
		s->n_threads = lat_mem_rm_default_threads(
			s->n_cpus, s->threads, LAT_MEM_RM_MAX_READER_SETS);
	if (s->n_cpus < 1 || s->n_threads > LAT_MEM_RM_MAX_READER_SETS ||
	    s->rounds > LAT_MEM_C2C_MAX_ROUNDS)
		return -EINVAL;
	if (!(s->what & LAT_MEM_EXP_CHASE))
		return 0;
	/* the core clock is measured by run, which sets it then */
	rc = lat_mem_chase_sweep_setup(&s->chase, s->min_size, s->max_size,
				       s->steps, s->samples, s->loads,
				       &s->m.caches, 0, s->quick);
	if (rc)
		return rc;
	s->avail_bytes = lat_mem_available(NULL);
	return lat_mem_chase_fits(s->max_size, s->hugepages, s->avail_bytes,
				  &s->need_bytes);
}

/* Record what failed, for the caller and as the document's last members. */
static int fail(struct lat_mem_session *s, struct lat_json *j,
		const char *in, int rc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(struct lat_mem_session *s, struct lat_json *j,
		const char *in, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	s->failed_in = in;
	s->complete = false;
	if (j) {
		lat_json_str(j, "error", s->error);
		lat_json_str(j, "failed_in", in);
		lat_json_bool(j, "complete", false);
		lat_json_bool(j, "interrupted", false);
		lat_json_obj_end(j);
	}
	return rc;
}

/* The machine, then the warning when other work shares these cores. */
static void header(const struct lat_mem_session *s, FILE *out)
{
	lat_mem_machine_print(out, &s->m, s->cpus, s->n_cpus);
	if (s->m.loadavg > s->m.usable)
		fprintf(out, "warning: load average %.1f on %d usable CPUs: "
			"other work shares these cores; the figures below are "
			"medians and minima over repeated samples for that "
			"reason%s\n", s->m.loadavg, s->m.usable,
			(s->what & (LAT_MEM_EXP_C2C | LAT_MEM_EXP_SHARE)) &&
			!s->rt ? "; the two-thread loops run at normal "
			"priority (SCHED_FIFO not asked for)" : "");
}

static int chase(struct lat_mem_session *s, FILE *out, struct lat_json *j)
{
	struct lat_mem_chase_sweep *r = &s->chase;
	int rc;

	r->core_ghz = s->m.core_ghz;
	rc = lat_mem_chase_sweep_run(r, &s->m.cal, s->hugepages, s->stop,
				     s->stop_ctx);
	if (rc && r->failed < 0)
		return fail(s, j, "chase", rc, "cannot map %llu bytes for the "
			    "chase: %s", (unsigned long long)
			    r->sizes[r->n_sizes - 1], lat_strerror(rc));
	/* a failed size still shows the sizes before it, marked partial */
	if (j)
		lat_mem_chase_json(j, r, !r->interrupted && !rc);
	else
		lat_mem_chase_print(out, r);
	if (rc)
		return fail(s, j, "chase", rc, "chase at %llu bytes failed: %s",
			    (unsigned long long)r->sizes[r->failed],
			    lat_strerror(rc));
	s->complete = !r->interrupted;
	return 0;
}

static int c2c(struct lat_mem_session *s, FILE *out, struct lat_json *j)
{
	struct lat_mem_c2c_matrix *m = &s->c2c;
	const struct lat_mem_chase_sweep *r = &s->chase;
	int rc;

	memcpy(m->cpus, s->cpus, sizeof(m->cpus));
	m->n_cpus = s->n_cpus;
	m->rounds = s->rounds;
	m->iters = s->c2c_iters;
	m->rt = s->rt;
	/* an L1 hit, when the chase found that plateau, for the verdict */
	m->l1_ns = (s->what & LAT_MEM_EXP_CHASE) && r->n_pl &&
		   r->pl[0].first == 0 ? r->pl[0].level : 0;
	rc = lat_mem_c2c_matrix_run(m, &s->topo, &s->m.cal, s->stop,
				    s->stop_ctx);
	if (rc && m->failed >= 0)
		return fail(s, j, "c2c", rc, "hand-off cpu %d <-> cpu %d "
			    "failed: %s", m->pair[m->failed].a,
			    m->pair[m->failed].b, lat_strerror(rc));
	if (rc)
		return fail(s, j, "c2c", rc, "%s", lat_strerror(rc));
	if (j)
		lat_mem_c2c_json(j, m);
	else
		lat_mem_c2c_print(out, m);
	s->complete = m->complete;
	return 0;
}

static int share(struct lat_mem_session *s, FILE *out, struct lat_json *j)
{
	struct lat_mem_share_sweep *sh = &s->share;
	int rc;

	memcpy(sh->cpu_list, s->cpus, sizeof(sh->cpu_list));
	sh->n_cpus = s->n_cpus;
	sh->rounds = s->rounds;
	sh->duration_ns = s->share_ns;
	sh->rt = s->rt;
	rc = lat_mem_share_sweep_run(sh, &s->topo, &s->m.cal, s->stop,
				     s->stop_ctx);
	if (rc)
		return fail(s, j, "false_sharing", rc, "false-sharing run "
			    "failed: %s", lat_strerror(rc));
	if (j)
		lat_mem_share_json(j, sh);
	else
		lat_mem_share_print(out, sh);
	lat_mem_share_sweep_release(sh);
	s->complete = sh->complete;
	return 0;
}

static int rm(struct lat_mem_session *s, FILE *out, struct lat_json *j)
{
	struct lat_mem_rm_sweep *r = &s->rm;
	int rc;

	memcpy(r->threads, s->threads, sizeof(r->threads));
	r->n_threads = s->n_threads;
	memcpy(r->cpu_list, s->cpus, sizeof(r->cpu_list));
	r->n_cpus = s->n_cpus;
	r->rounds = s->rounds;
	r->duration_ns = s->rm_ns;
	r->write_interval_ns = s->write_interval_ns;
	rc = lat_mem_rm_sweep_run(r, &s->m.cal, s->stop, s->stop_ctx);
	if (rc)
		return fail(s, j, "read_mostly", rc, "read-mostly run failed: "
			    "%s", lat_strerror(rc));
	if (j)
		lat_mem_rm_json(j, r);
	else
		lat_mem_rm_print(out, r);
	lat_mem_rm_sweep_release(r);
	s->complete = r->complete;
	return 0;
}

int lat_mem_session_run(struct lat_mem_session *s, FILE *out,
			struct lat_json *j)
{
	static const struct {
		unsigned bit;
		int (*run)(struct lat_mem_session *, FILE *, struct lat_json *);
	} exp[] = {
		{ LAT_MEM_EXP_CHASE, chase }, { LAT_MEM_EXP_C2C, c2c },
		{ LAT_MEM_EXP_SHARE, share }, { LAT_MEM_EXP_RM, rm },
	};
	double t0 = lat_bench_now_ns();
	int rc;

	if (j)
		lat_json_obj_begin(j, NULL);
	s->complete = true;
	s->failed_in = NULL;
	s->error[0] = '\0';
	rc = lat_mem_machine_measure(&s->m, 200);
	if (rc)
		return fail(s, j, "machine", rc, "cannot calibrate the cycle "
			    "clock: %s", lat_strerror(rc));
	if (j)
		lat_mem_machine_json(j, &s->m, s->cpus, s->n_cpus);
	else
		header(s, out);
	for (size_t i = 0; i < sizeof(exp) / sizeof(*exp) && s->complete;
	     i++) {
		if (!(s->what & exp[i].bit))
			continue;
		rc = exp[i].run(s, out, j);
		if (rc)
			return rc;
	}
	s->wall_ns = lat_bench_now_ns() - t0;
	if (j) {
		lat_json_bool(j, "complete", s->complete);
		lat_json_bool(j, "interrupted", !s->complete);
		lat_json_double(j, "wall_s", s->wall_ns / 1e9);
		lat_json_obj_end(j);
	} else {
		char w[LAT_FMT_LEN];

		fprintf(out, "\n%swall time %s\n", s->complete ? ""
			: "interrupted: the rows above finished; ",
			lat_fmt_ns(w, sizeof(w), s->wall_ns));
	}
	return 0;
}

/*
 * What `latlab queue` reports, through the public API alone: the service
 * times loaded from an .hlog (lat_qsim_dist_init_hlog, --service-from)
 * and the JSON of runs their stop cut short (the documents a Ctrl-C
 * leaves on stdout), so a library user gets the command's results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/hist_io.h"
#include "latlab/json.h"
#include "latlab/qsim.h"
#include "t_test.h"

/* A report of @cfg and its JSON from @write, as a string (caller frees). */
typedef void (*json_fn)(struct lat_json *j, const void *what,
			const struct lat_qsim_report *o);

static char *json_of(const struct lat_qsim_config *cfg, json_fn write,
		     const void *what)
{
	struct lat_qsim_report o = { .cfg = *cfg };
	struct lat_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	T_CHECK(f != NULL);
	if (!f)
		return NULL;
	lat_json_init(&j, f);
	write(&j, what, &o);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(f);
	return text;
}

static void point_json(struct lat_json *j, const void *r,
		       const struct lat_qsim_report *o)
{
	lat_qsim_json_point(j, o, r);
}

static void target_json(struct lat_json *j, const void *t,
			const struct lat_qsim_report *o)
{
	lat_qsim_json_target(j, o, t);
}

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

/* Counts its calls; says stop once more than *limit were made. */
struct poll_count {
	unsigned long calls, limit;
};

static bool stop_after(void *ctx)
{
	struct poll_count *c = ctx;

	return ++c->calls > c->limit;
}

static void config(struct lat_qsim_config *c, uint64_t customers)
{
	lat_qsim_config_init(c);
	c->rho = 0.5;
	lat_qsim_config_customers(c, customers);
}

/* A point stopped before two batches has no result: a stub, not zeros. */
static void test_point_stopped(void)
{
	struct lat_qsim_config c;
	struct lat_qsim_result r;
	char *s;

	config(&c, 1000000);
	T_EQ_I64(c.warmup, 100000); /* the default share, n/10 */
	c.stop = stop_now;
	T_EQ_I64(lat_qsim_run(&c, &r), -EINTR);
	T_CHECK(r.batches < 2);
	s = json_of(&c, point_json, &r);
	T_CHECK(s && !strcmp(s, "{\"mode\":\"point\",\"complete\":false,"
			     "\"customers\":0}\n"));
	free(s);
	lat_qsim_result_destroy(&r);
	/* a finished point is the full document, complete */
	c.stop = NULL;
	c.customers = 20000;
	T_EQ_I64(lat_qsim_run(&c, &r), 0);
	s = json_of(&c, point_json, &r);
	T_CHECK(s && strstr(s, "\"complete\":true,\"customers_measured\":"
			    "20000,"));
	free(s);
	lat_qsim_result_destroy(&r);
}

/* A target search stopped in the bisection, then in its final run. */
static void test_target_stopped(void)
{
	struct lat_qsim_config c;
	struct lat_qsim_target tg;
	struct lat_qsim_target_run t;
	struct poll_count n = { 0, (unsigned long)-1 };
	const char *head = "{\"mode\":\"target_p99\",\"status\":"
			   "\"interrupted\",\"rho\":";
	char *s, want[160];

	config(&c, 200000);
	c.stop = stop_now;
	T_EQ_I64(lat_qsim_target_search(&c, 20, 1e-3, &t), -EINTR);
	T_EQ_I64(t.status, -EINTR);
	T_CHECK(!t.stopped);
	snprintf(want, sizeof(want), "{\"mode\":\"target_p99\",\"status\":"
		 "\"interrupted\",\"rho\":null,\"runs\":%u}\n", t.found.runs);
	s = json_of(&c, target_json, &t);
	T_CHECK(s && !strcmp(s, want));
	free(s);
	/* how many polls the bisection alone makes; the same seed makes the
	 * same runs, so a stop one poll later lands in the final run */
	c.stop = stop_after;
	c.stop_ctx = &n;
	T_EQ_I64(lat_qsim_target_p99(&c, 20, 1e-3, &tg), 0);
	n.limit = n.calls;
	n.calls = 0;
	T_EQ_I64(lat_qsim_target_search(&c, 20, 1e-3, &t), -EINTR);
	T_EQ_I64(t.status, 0);
	T_CHECK(t.stopped);
	T_NEAR(t.found.rho, tg.rho, 0);
	s = json_of(&c, target_json, &t);
	T_CHECK(s && !strncmp(s, head, strlen(head)));
	T_CHECK(s && strtod(s + strlen(head), NULL) == tg.rho &&
		!strstr(s, "runs"));
	free(s);
	/* a finished search: found, with its run */
	c.stop = NULL;
	T_EQ_I64(lat_qsim_target_search(&c, 20, 1e-3, &t), 0);
	T_CHECK(!t.stopped);
	s = json_of(&c, target_json, &t);
	T_CHECK(s && strstr(s, "\"status\":\"found\""));
	free(s);
	lat_qsim_result_destroy(&t.at);
}

/* An .hlog of two tags: "work" uniform on [1000, 3000) ns, "io" ~50 µs. */
static int write_log(const char *path)
{
	struct lat_hlog_writer *w;
	struct lat_hist a, b;
	int rc;

	T_EQ_I64(lat_hist_init(&a, 1, 10000000, 3), 0);
	T_EQ_I64(lat_hist_init(&b, 1, 10000000, 3), 0);
	for (int v = 1000; v < 3000; v++)
		lat_hist_record(&a, v);
	for (int i = 0; i < 100; i++)
		lat_hist_record(&b, 50000);
	rc = lat_hlog_writer_open(path, NULL, &w);
	if (!rc)
		rc = lat_hlog_writer_write_interval(w, "work", 0, 1, &a);
	if (!rc)
		rc = lat_hlog_writer_write_interval(w, "io", 0, 1, &b);
	if (!rc)
		rc = lat_hlog_writer_write_interval(w, "work", 1, 1, &a);
	if (!rc)
		rc = lat_hlog_writer_close(w);
	lat_hist_destroy(&a);
	lat_hist_destroy(&b);
	return rc;
}

static void test_service_from_hlog(void)
{
	char dir[] = "/tmp/t_qsim_report.XXXXXX", path[64], why[512], spec[80];
	struct lat_qsim_dist d;
	struct lat_hist z;
	int64_t refused = -1;
	struct lat_hlog_writer *w;

	T_CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/svc.hlog", dir);
	T_EQ_I64(write_log(path), 0);
	/* one tag: its two intervals merged, mean 2000 ns */
	T_EQ_I64(lat_qsim_dist_init_hlog(&d, path, "work", &refused, why,
					 sizeof(why)), 0);
	T_EQ_I64(refused, 0);
	T_CHECK(d.kind == LAT_QSIM_EMPIRICAL && d.mean == 1);
	T_NEAR(d.scale_ns, 2000, 2);
	T_NEAR(d.cv, 1 / (2 * sqrt(3)), 0.005);
	lat_qsim_dist_destroy(&d);
	/* every tag: 4000 values near 2 µs and 100 at 50 µs */
	T_EQ_I64(lat_qsim_dist_init_hlog(&d, path, NULL, NULL, why,
					 sizeof(why)), 0);
	T_NEAR(d.scale_ns, (4000 * 2000.0 + 100 * 50000.0) / 4100, 30);
	lat_qsim_dist_destroy(&d);
	/* a tag the file does not have: the loader's reason, naming it */
	T_CHECK(lat_qsim_dist_init_hlog(&d, path, "none", NULL, why,
					sizeof(why)) < 0);
	T_CHECK(strstr(why, path) != NULL);
	/* a file that is not there */
	snprintf(path, sizeof(path), "%s/missing.hlog", dir);
	T_EQ_I64(lat_qsim_dist_init_hlog(&d, path, NULL, NULL, why,
					 sizeof(why)), -ENOENT);
	T_CHECK(strstr(why, "missing.hlog") != NULL);
	/* an interval with no values: nothing to sample, no loader reason */
	snprintf(path, sizeof(path), "%s/empty.hlog", dir);
	T_EQ_I64(lat_hist_init(&z, 1, 1000, 3), 0);
	T_EQ_I64(lat_hlog_writer_open(path, NULL, &w), 0);
	T_EQ_I64(lat_hlog_writer_write_interval(w, NULL, 0, 1, &z), 0);
	T_EQ_I64(lat_hlog_writer_close(w), 0);
	T_EQ_I64(lat_qsim_dist_init_hlog(&d, path, NULL, NULL, why,
					 sizeof(why)), -EINVAL);
	T_CHECK(why[0] == 0);
	/* the same through the command's one-string form: now it says why */
	T_EQ_I64(lat_qsim_dist_init_hlog_spec(&d, path, &refused, why,
					      sizeof(why)), -EINVAL);
	T_CHECK(strstr(why, "no positive values") != NULL);
	lat_qsim_dist_destroy(&d);
	lat_hist_destroy(&z);
	unlink(path);
	snprintf(path, sizeof(path), "%s/svc.hlog", dir);
	/* "FILE.hlog:TAG" selects the tag; an empty tag is refused */
	snprintf(spec, sizeof(spec), "%s:work", path);
	T_EQ_I64(lat_qsim_dist_init_hlog_spec(&d, spec, &refused, why,
					      sizeof(why)), 0);
	T_NEAR(d.scale_ns, 2000, 2);
	lat_qsim_dist_destroy(&d);
	/* both distributions at once, the refusal naming its input */
	{
		struct lat_qsim_report o = { .service_from = spec };
		enum lat_qsim_field bad;

		lat_qsim_config_init(&o.cfg);
		T_EQ_I64(lat_qsim_report_dists(&o, "erlang:2", 1, NULL, 1,
					       &refused, &bad, why,
					       sizeof(why)), 0);
		T_NEAR(o.tau_ns, 2000, 2);
		T_CHECK(strcmp(o.cfg.arrival.name, "erlang:2") == 0);
		lat_qsim_dist_destroy(&o.cfg.service);
		T_EQ_I64(lat_qsim_report_dists(&o, "nosuch", 1, NULL, 1,
					       &refused, &bad, why,
					       sizeof(why)), -EINVAL);
		T_EQ_I64(bad, LAT_QSIM_ARRIVAL);
		T_CHECK(strstr(why, "'nosuch'") != NULL);
		T_EQ_I64(lat_qsim_report_dists(&o, NULL, 1, "erlang:2.5", 1,
					       &refused, &bad, why,
					       sizeof(why)), -EINVAL);
		T_EQ_I64(bad, LAT_QSIM_SERVICE);
		o.service_from = NULL;
		T_EQ_I64(lat_qsim_report_dists(&o, NULL, 1e-6, NULL, 1,
					       &refused, &bad, why,
					       sizeof(why)), -EINVAL);
		T_EQ_I64(bad, LAT_QSIM_CA);
		T_CHECK(strstr(why, "deterministic") != NULL);
		T_EQ_I64(lat_qsim_report_dists(&o, NULL, 1, NULL, 1e-6,
					       &refused, &bad, why,
					       sizeof(why)), -EINVAL);
		T_EQ_I64(bad, LAT_QSIM_CS);
	}
	snprintf(spec, sizeof(spec), "%s:", path);
	T_EQ_I64(lat_qsim_dist_init_hlog_spec(&d, spec, &refused, why,
					      sizeof(why)), -EINVAL);
	T_CHECK(strstr(why, "empty tag") != NULL);
	unlink(path);
	rmdir(dir);
}

/* "lo:hi:step": three finite numbers, nothing else. */
static void test_parse_range(void)
{
	double lo, hi, step;

	T_EQ_I64(lat_qsim_parse_range("0.1:0.99:0.01", &lo, &hi, &step), 0);
	T_CHECK(lo == 0.1 && hi == 0.99 && step == 0.01);
	T_EQ_I64(lat_qsim_parse_range("0.1:0.9", &lo, &hi, &step), -EINVAL);
	T_EQ_I64(lat_qsim_parse_range("0.1:0.9:0.1x", &lo, &hi, &step),
		 -EINVAL);
	T_EQ_I64(lat_qsim_parse_range("nan:0.9:0.1", &lo, &hi, &step),
		 -EINVAL);
	T_EQ_I64(lat_qsim_parse_range("a:b:c", &lo, &hi, &step), -EINVAL);
	/* numbers, but no sweep: backwards, no step, too many points */
	T_EQ_I64(lat_qsim_parse_range("0.9:0.1:0.1", &lo, &hi, &step), -ERANGE);
	T_EQ_I64(lat_qsim_parse_range("0.1:0.9:0", &lo, &hi, &step), -ERANGE);
	T_EQ_I64(lat_qsim_parse_range("0.1:9:0.0001", &lo, &hi, &step),
		 -ERANGE);
	T_EQ_I64(lat_qsim_sweep_points(0.1, 0.99, 0.01), 90);
}

/* Stops once the sweep has @ctx points done. */
static bool sweep_stop_at(void *ctx, size_t done, size_t n)
{
	(void)n;
	return done >= *(size_t *)ctx;
}

/* fd 1 into a fresh temporary until stdout_end, which returns how
 * many bytes reached it: the library writes only to the FILE * given. */
static int stdout_begin(int *saved)
{
	char name[] = "/tmp/t_qsim_stdout.XXXXXX";
	int fd = mkstemp(name);

	T_CHECK(fd >= 0);
	unlink(name);
	fflush(stdout);
	*saved = dup(1);
	T_CHECK(*saved >= 0 && dup2(fd, 1) == 1);
	return fd;
}

static off_t stdout_end(int fd, int saved)
{
	off_t n;

	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = lseek(fd, 0, SEEK_END);
	close(fd);
	return n;
}

/* A session writes what the command writes, and says what a stop kept. */
static void test_session(void)
{
	struct lat_qsim_report o = { .knee_slope = LAT_QSIM_KNEE_SLOPE };
	struct lat_qsim_session s = { .rep = &o, .warn = stderr };
	char *text = NULL, *svg = NULL;
	size_t len = 0, slen = 0, stop_at = 2;
	int fd, saved;

	config(&o.cfg, 20000);
	s.out = open_memstream(&text, &len);
	fd = stdout_begin(&saved);
	T_EQ_I64(lat_qsim_session_run(&s), 0);
	T_EQ_I64(stdout_end(fd, saved), 0); /* the table's spaces too */
	fclose(s.out);
	T_CHECK(strstr(text, "M/M/1") != NULL);
	free(text);
	/* a sweep of 4 points stopped after 2: its JSON and chart partial */
	T_EQ_I64(lat_qsim_parse_range("0.2:0.8:0.2", &o.sweep_lo, &o.sweep_hi,
				      &o.sweep_step), 0);
	s.json = true;
	s.stop = sweep_stop_at;
	s.stop_ctx = &stop_at;
	s.out = open_memstream(&text, &len);
	s.svg = open_memstream(&svg, &slen);
	T_EQ_I64(lat_qsim_session_run(&s), -EINTR);
	fclose(s.out);
	fclose(s.svg);
	T_EQ_I64(s.svg_rc, 0);
	T_CHECK(strstr(s.why, "first 2 of 4 points") != NULL);
	T_CHECK(strstr(text, "\"complete\":false") != NULL);
	T_CHECK(strstr(svg, "<svg") != NULL && strstr(svg, "partial"));
	free(text);
	free(svg);
	/* a target search whose runs are stopped at once: a stub, and why */
	o.sweep_step = 0;
	o.target = 20;
	o.cfg.stop = stop_now;
	s.svg = NULL;
	s.out = open_memstream(&text, &len);
	T_EQ_I64(lat_qsim_session_run(&s), -EINTR);
	fclose(s.out);
	T_CHECK(strstr(s.why, "search for the load") != NULL);
	T_CHECK(strstr(text, "\"interrupted\"") != NULL);
	free(text);
	/* a bad configuration fails before writing, naming the run */
	o.target = 0;
	o.cfg.stop = NULL;
	o.cfg.rho = 2;
	s.out = open_memstream(&text, &len);
	T_EQ_I64(lat_qsim_session_run(&s), -EINVAL);
	fclose(s.out);
	T_EQ_I64(len, 0);
	T_CHECK(strstr(s.why, "simulation failed") != NULL);
	free(text);
}

int main(void)
{
	test_parse_range();
	test_session();
	test_point_stopped();
	test_target_stopped();
	test_service_from_hlog();
	T_DONE();
}

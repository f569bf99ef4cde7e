/*
 * Description: the pipeline's diagnosis as data (lat_pipe_diagnose) on
 * results built by hand, so every finding is known in advance: the worst
 * part and its kind, shared CPUs with summed waits, load, steal, the work
 * calibration verdict, the scheduler probe's facts (made up: the
 * largest cause above p99.9, ties, none), and that the table's "tail:"
 * lines and the JSON's "diagnosis" object render the same findings. Also the config check's
 * field names, lat_pipe_delta_part and placing on a CPU pool.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/pipe.h"
#include "t_test.h"

/* stages = 1: pace, q1+wake, work1, q2+wake, e2e; @big goes to delta @w */
static void fake(struct lat_pipe_result *r, int w, int64_t big)
{
	char name[16];

	memset(r, 0, sizeof(*r));
	lat_pipe_config_init(&r->config);
	r->n_hot = 3;
	r->n_deltas = lat_pipe_n_deltas(1);
	for (int i = 0; i < r->n_deltas; i++) {
		T_EQ_I64(lat_hist_init(&r->delta[i].hist, 1,
				       LAT_PIPE_HIST_MAX_NS,
				       LAT_PIPE_HIST_SIG_FIGS), 0);
		snprintf(r->delta[i].name, sizeof(r->delta[i].name), "%s",
			 lat_pipe_delta_name(1, i, name, sizeof(name)));
		for (int k = 0; k < 1000; k++)
			lat_hist_record(&r->delta[i].hist, 100 + k);
	}
	lat_hist_record_n(&r->delta[w].hist, big, 10);
	/* e2e larger than any part, as it always is */
	lat_hist_record_n(&r->delta[4].hist, 2 * big, 10);
	r->loadavg = -1;
	r->steal_pct = -1;
	r->online_cpus = 2;
}

static char *render_json(const struct lat_pipe_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lat_json j;

	lat_json_init(&j, f);
	lat_json_obj_begin(&j, NULL);
	lat_pipe_write_json(&j, r);
	lat_json_obj_end(&j);
	T_EQ_I64(lat_json_finish(&j), 0);
	fclose(f);
	return buf;
}

static char *render_table(const struct lat_pipe_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	T_EQ_I64(lat_pipe_print_table(f, r), 0);
	fclose(f);
	return buf;
}

static void test_quiet_run(void)
{
	struct lat_pipe_result r;
	struct lat_pipe_diag d;
	char *js, *tab;

	fake(&r, 2, 50000); /* work1 */
	lat_pipe_diagnose(&r, &d);
	T_EQ_I64(d.worst_delta, 2);
	T_EQ_I64(d.worst_part, LAT_PIPE_PART_WORK);
	T_CHECK(d.worst_p999_ns >= 49950 && d.worst_p999_ns <= 50050);
	T_CHECK(!d.shared_cpus && !d.loaded && !d.stolen);
	T_EQ_I64(d.work, LAT_WORK_OK);
	js = render_json(&r);
	T_CHECK(strstr(js, "\"diagnosis\":{\"worst_part\":{\"name\":\"work1\","
			   "\"kind\":\"work\""));
	T_CHECK(strstr(js, "\"shared_cpus\":false"));
	T_CHECK(strstr(js, "\"work_calibration\":\"ok\""));
	tab = render_table(&r);
	T_CHECK(strstr(tab, "tail: the largest p99.9 part is work1"));
	T_CHECK(!strstr(tab, "share CPUs"));
	/* no probe: the diagnosis says so, and no probe line */
	T_CHECK(!d.probe && d.probe_largest == -1);
	T_CHECK(strstr(js, "\"scheduler\":null"));
	T_CHECK(!strstr(tab, "scheduler probe"));
	free(js);
	free(tab);
	lat_pipe_result_destroy(&r);
}

static void test_busy_machine(void)
{
	struct lat_pipe_result r;
	struct lat_pipe_diag d;
	char *js, *tab;

	fake(&r, 1, 80000); /* q1+wake */
	r.config.place_flags = LAT_TOPO_SHARED_CPU;
	r.thread[0].wait.yields = 3;
	r.thread[2].wait.yields = 4;
	r.thread[1].wait.sleeps = 5;
	r.loadavg = 2.5;
	r.steal_pct = 1.5;
	r.work.target_ns = 10;
	r.work.overhead_ns = 30;
	r.work.check_p50_ns = 30;
	r.work.check_error = 2;
	lat_pipe_diagnose(&r, &d);
	T_EQ_I64(d.worst_delta, 1);
	T_EQ_I64(d.worst_part, LAT_PIPE_PART_QUEUE);
	T_CHECK(d.shared_cpus && d.loaded && d.stolen);
	T_EQ_I64(d.yields, 7);
	T_EQ_I64(d.sleeps, 5);
	T_EQ_I64(d.work, LAT_WORK_BELOW_OVERHEAD);
	js = render_json(&r);
	T_CHECK(strstr(js, "\"kind\":\"queue\""));
	T_CHECK(strstr(js, "\"shared_cpus\":true,\"yields\":7,\"sleeps\":5,"
			   "\"loaded\":true,\"stolen\":true"));
	T_CHECK(strstr(js, "\"work_calibration\":\"below_overhead\""));
	tab = render_table(&r);
	T_CHECK(strstr(tab, "(7 yields, 5 sleeps)"));
	T_CHECK(strstr(tab, "load average was 2.5 on 2 CPUs"));
	T_CHECK(strstr(tab, "stole 1.5%"));
	free(js);
	free(tab);
	lat_pipe_result_destroy(&r);
}

/* Facts as lat_sched_attr_fill_result hands them over, made up here so
 * the diagnosis is checked where the probe cannot run. */
static void probe_cause(struct lat_pipe_tail_probe *p, const char *name,
			const char *text, uint64_t ns, const char *who,
			int pid, bool foreign)
{
	struct lat_pipe_tail_cause *c = &p->cause[p->n_causes++];

	c->name = name;
	c->text = text;
	c->ns = ns;
	snprintf(c->who, sizeof(c->who), "%s", who);
	c->who_pid = pid;
	c->who_foreign = foreign;
	p->total_ns += ns;
}

static void test_probe_facts(void)
{
	struct lat_pipe_result r;
	struct lat_pipe_diag d;
	struct lat_pipe_tail_probe *p = &r.sched;
	char *js, *tab;

	fake(&r, 2, 50000);
	p->ran = true;
	p->threshold_ns = 90000;
	p->events = 3;
	probe_cause(p, "backlog", "queued behind earlier events", 0, "", 0,
		    false);
	probe_cause(p, "own", "runnable behind our own threads", 2000,
		    "stage1", 4242, false);
	probe_cause(p, "foreign", "runnable behind other tasks", 5000,
		    "kworker/0:1", 97, true);
	probe_cause(p, "irq", "interrupts and softirqs", 1000, "timer", 0,
		    false);
	probe_cause(p, "unexplained", "unexplained: no scheduler event",
		    2000, "", 0, false);
	lat_pipe_diagnose(&r, &d);
	T_CHECK(d.probe == p);
	T_EQ_I64(d.probe_largest, 2);
	T_CHECK(d.probe_largest_pct > 49.99 && d.probe_largest_pct < 50.01);
	js = render_json(&r);
	T_CHECK(strstr(js, "\"scheduler\":{\"threshold_ns\":90000,"
			   "\"events\":3,\"total_ns\":10000,\"shares\":{"
			   "\"backlog\":0,\"own\":0.2,\"foreign\":0.5,"
			   "\"irq\":0.1,\"unexplained\":0.2},"
			   "\"largest\":{\"cause\":\"foreign\","
			   "\"share\":0.5,\"who\":\"kworker/0:1\","
			   "\"who_pid\":97,\"who_foreign\":true}}"));
	tab = render_table(&r);
	T_CHECK(strstr(tab, "tail: with the scheduler probe: 50% of the time "
			    "above p99.9 was runnable behind other tasks, most "
			    "of it kworker/0:1 (pid 97, another process)\n"));
	free(js);
	free(tab);

	/* a tie goes to the first cause; one without a name says none */
	p->cause[1].ns = 5000;
	p->cause[2].ns = 0;
	p->cause[4].ns = 5000;
	lat_pipe_diagnose(&r, &d);
	T_EQ_I64(d.probe_largest, 1);
	tab = render_table(&r);
	T_CHECK(strstr(tab, "above p99.9 was runnable behind our own threads, "
			    "most of it stage1\n"));
	free(tab);
	p->cause[1].ns = 0;
	lat_pipe_diagnose(&r, &d);
	T_EQ_I64(d.probe_largest, 4);
	js = render_json(&r);
	T_CHECK(strstr(js, "\"largest\":{\"cause\":\"unexplained\","));
	T_CHECK(strstr(js, "\"who\":null,\"who_pid\":0,"
			   "\"who_foreign\":false}"));
	free(js);
	/* a holder the probe did not see: not said to be another process */
	snprintf(p->cause[2].who, sizeof(p->cause[2].who), "(unknown)");
	p->cause[2].who_pid = -1;
	p->cause[2].who_foreign = false;
	p->cause[2].ns = 6000;
	lat_pipe_diagnose(&r, &d);
	T_EQ_I64(d.probe_largest, 2);
	tab = render_table(&r);
	T_CHECK(strstr(tab, "was runnable behind other tasks, most of it a "
			    "task the probe did not see switch in\n"));
	free(tab);

	/* the probe ran but nothing was above p99.9: nothing to blame */
	for (int c = 0; c < p->n_causes; c++)
		p->cause[c].ns = 0;
	p->total_ns = 0;
	p->events = 0;
	lat_pipe_diagnose(&r, &d);
	T_EQ_I64(d.probe_largest, -1);
	js = render_json(&r);
	T_CHECK(strstr(js, "\"total_ns\":0,\"shares\":{\"backlog\":0,"));
	T_CHECK(strstr(js, "\"largest\":null"));
	tab = render_table(&r);
	T_CHECK(!strstr(tab, "scheduler probe"));
	free(js);
	free(tab);
	lat_pipe_result_destroy(&r);
}

static void test_work_verdicts(void)
{
	struct lat_work w = { .target_ns = 100, .overhead_ns = 20,
			      .check_p50_ns = 119, .check_error = 0.19 };

	T_EQ_I64(lat_work_check(&w), LAT_WORK_OK);
	w.check_error = -0.21;
	T_EQ_I64(lat_work_check(&w), LAT_WORK_MISSED);
	w.target_ns = 0; /* no work asked: nothing to miss */
	T_EQ_I64(lat_work_check(&w), LAT_WORK_OK);
	T_CHECK(!strcmp(lat_work_verdict_name(LAT_WORK_MISSED), "missed"));
}

static void test_config_fields(void)
{
	struct lat_pipe_config c;
	const char *why = NULL, *rest;
	char field[32];

	lat_pipe_config_init(&c);
	c.pin = false;
	c.work_ns = 2e9;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	rest = lat_pipe_config_field(why, field, sizeof(field));
	T_CHECK(!strcmp(field, "work_ns"));
	T_CHECK(rest && !strcmp(rest, "must be between 0 and 1 s"));
	lat_pipe_config_init(&c);
	c.pin = false;
	c.stall_ns = 1e6;
	c.stall_seq = c.events;
	T_EQ_I64(lat_pipe_config_check(&c, &why), -EINVAL);
	lat_pipe_config_field(why, field, sizeof(field));
	T_CHECK(!strcmp(field, "stall_seq"));
	T_CHECK(lat_pipe_config_field(NULL, field, sizeof(field)) == NULL);
	T_EQ_I64(lat_pipe_delta_part(2, 0), LAT_PIPE_PART_PACE);
	T_EQ_I64(lat_pipe_delta_part(2, 3), LAT_PIPE_PART_QUEUE);
	T_EQ_I64(lat_pipe_delta_part(2, 4), LAT_PIPE_PART_WORK);
	T_EQ_I64(lat_pipe_delta_part(2, 6), LAT_PIPE_PART_E2E);
}

static void test_place_pool(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_placement pl;
	int bad[] = { 0, LAT_TOPO_MAX_CPUS - 1 };
	int one[] = { 0 };

	lat_pipe_config_init(&c);
	T_EQ_I64(lat_pipe_place_pool(&c, bad, 2, false, &pl), -ESRCH);
	T_EQ_I64(pl.bad_cpu, LAT_TOPO_MAX_CPUS - 1);
	T_CHECK(pl.usable[0] >= '0' && pl.usable[0] <= '9');
	/* CPU 0 may be outside this process's mask: then it is refused */
	if (lat_pipe_place_pool(&c, one, 1, false, &pl) == -ESRCH) {
		T_EQ_I64(pl.bad_cpu, 0);
		return;
	}
	/* three hot threads packed onto one CPU: shared, so they yield */
	T_CHECK(pl.oversubscribed);
	T_EQ_I64(c.cpu[0], 0);
	T_EQ_I64(c.cpu[2], 0);
	T_EQ_I64(c.wait, LAT_WAIT_YIELD);
	T_CHECK(c.place_flags & LAT_TOPO_CHOSEN);
	/* the whole machine as a pool: placed within it, flagged chosen */
	lat_pipe_config_init(&c);
	T_EQ_I64(lat_pipe_place_pool(&c, NULL, 0, false, &pl), 0);
	T_CHECK(pl.n_usable >= 1);
	T_CHECK(!(c.place_flags & LAT_TOPO_CHOSEN));
	T_EQ_I64(lat_pipe_place_pool(&c, NULL, 1, false, &pl), -EINVAL);
}

int main(void)
{
	test_place_pool();
	test_quiet_run();
	test_busy_machine();
	test_probe_facts();
	test_work_verdicts();
	test_config_fields();
	T_DONE();
}

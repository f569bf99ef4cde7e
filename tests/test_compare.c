/*
 * lat_compare_read_spreads' per-interval percentiles, the same from
 * lat_compare_load's single pass (also through a FIFO, which has no
 * second pass), and the verdicts on logs built here: a run that differs by less than its own interval
 * spread is noise, one shifted beyond both spreads is higher, a file of
 * one interval has no spread, and files with other tags are refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latlab/compare.h"
#include "t_test.h"

static char dir[] = "/tmp/test_compare.XXXXXX";

/*
 * Write @path: @intervals intervals tagged @tag of 1000 values each,
 * interval i holding base + jitter * i + (0..99) ns.
 */
static void write_log(const char *path, const char *tag, int intervals,
		      int64_t base, int64_t jitter)
{
	struct lat_hlog_writer *w;
	struct lat_hist *h;

	T_EQ_I64(lat_hist_create(1, 3600000000000LL, 3, &h), 0);
	T_EQ_I64(lat_hlog_writer_open(path, NULL, &w), 0);
	for (int i = 0; i < intervals; i++) {
		lat_hist_reset(h);
		for (int v = 0; v < 1000; v++)
			lat_hist_record(h, base + jitter * i + v % 100);
		T_EQ_I64(lat_hlog_writer_write_interval(w, tag, i, 1, h), 0);
	}
	T_EQ_I64(lat_hlog_writer_close(w), 0);
	lat_hist_free(h);
}

/* A file as lat_compare sees it: merged, unit 1 ns, with its spread. */
struct file {
	struct lat_hlog_data d;
	struct lat_compare_spreads s;
	struct lat_compare_side side;
};

static void load(const char *name, struct file *f)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	T_EQ_I64(lat_hlog_load(path, NULL, 0, &f->d), 0);
	T_EQ_I64(lat_compare_read_spreads(path, NULL, &f->s), 0);
	f->side = (struct lat_compare_side){
		f->d.tags[0].hist, 1,
		lat_compare_find_spread(&f->s, f->d.tags[0].name) };
}

static void unload(struct file *f)
{
	lat_hlog_data_free(&f->d);
	lat_compare_spreads_free(&f->s);
}

/*
 * lat_compare_load of @path (through a FIFO fed by a child when @fifo)
 * against @f, loaded in two passes: the same merge, the same spreads.
 */
static void one_pass(const char *name, const struct file *f, bool fifo,
		     const char *tag)
{
	static struct lat_hlog_data d;
	static struct lat_compare_spreads s;
	char path[256], from[256];
	pid_t child = -1;

	snprintf(from, sizeof(from), "%s/%s", dir, name);
	snprintf(path, sizeof(path), "%s", from);
	if (fifo) {
		snprintf(path, sizeof(path), "%s/fifo", dir);
		T_EQ_I64(mkfifo(path, 0600), 0);
		child = fork();
		if (child == 0) /* the FIFO's writer: the file, once */
			_exit(execlp("cp", "cp", from, path, (char *)NULL));
	}
	T_EQ_I64(lat_compare_load(path, tag, 0, &d, &s), 0);
	if (child > 0) {
		int st;

		T_EQ_I64(waitpid(child, &st, 0), child);
		T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		unlink(path);
	}
	T_EQ_I64(d.ntags, tag ? 1 : f->d.ntags);
	T_EQ_I64(d.total.hist->total_count, tag ? d.tags[0].hist->total_count
						: f->d.total.hist->total_count);
	T_EQ_I64(s.ntags, d.ntags);
	for (int t = 0; t < s.ntags; t++) {
		const struct lat_compare_spread *w =
			lat_compare_find_spread(&f->s, s.tags[t].tag);

		T_CHECK(w && w->n == s.tags[t].n);
		if (w && w->n == s.tags[t].n)
			T_CHECK(!memcmp(w->v, s.tags[t].v, (size_t)w->n *
					LAT_COMPARE_NPCTS * sizeof(*w->v)));
	}
	lat_hlog_data_free(&d);
	lat_compare_spreads_free(&s);
}

static enum lat_compare_verdict verdict_p50(const struct file *a,
					    const struct file *b,
					    struct lat_compare_cell *c)
{
	T_EQ_I64(lat_compare_cell(&a->side, &b->side, 0, c), 0);
	return c->verdict;
}

int main(void)
{
	static struct file a, b, c, one, other;
	const struct lat_hlog_data *pair[2] = { &a.d, &other.d };
	struct lat_compare_side milli;
	const char *names[2] = { "a", "other" };
	struct lat_compare_cell cell;
	double lo, hi;
	char path[256], why[256];

	T_CHECK(mkdtemp(dir) != NULL);
	/* a: interval p50s 1049 + 10 i ns, i = 0..9 */
	snprintf(path, sizeof(path), "%s/a.hlog", dir);
	write_log(path, "e2e", 10, 1000, 10);
	snprintf(path, sizeof(path), "%s/b.hlog", dir);
	write_log(path, "e2e", 10, 1030, 10); /* +30 ns: inside a's 90 */
	snprintf(path, sizeof(path), "%s/c.hlog", dir);
	write_log(path, "e2e", 10, 2000, 10); /* twice: beyond it */
	snprintf(path, sizeof(path), "%s/one.hlog", dir);
	write_log(path, "e2e", 1, 2000, 0);
	snprintf(path, sizeof(path), "%s/other.hlog", dir);
	write_log(path, "pace", 10, 1000, 10);
	load("a.hlog", &a);
	load("b.hlog", &b);
	load("c.hlog", &c);
	load("one.hlog", &one);
	load("other.hlog", &other);

	/* every non-empty interval kept, its p50 and max as recorded */
	T_EQ_I64(a.s.ntags, 1);
	T_EQ_I64(a.s.tags[0].n, 10);
	T_EQ_I64(a.s.tags[0].v[0], 1049);
	T_EQ_I64(a.s.tags[0].v[9 * LAT_COMPARE_NPCTS + LAT_HIST_SUMMARY_N], 1000 + 90 + 99);
	/* one pass gives the same; a FIFO can only be read once */
	one_pass("a.hlog", &a, false, NULL);
	one_pass("a.hlog", &a, true, NULL);
	one_pass("other.hlog", &other, true, "pace");
	/* the band of 10 intervals drops one at each end */
	T_EQ_I64(lat_compare_band(&a.side, 0, &lo, &hi), 0);
	T_NEAR(lo, 1049 + 10, 0.5);
	T_NEAR(hi, 1049 + 80, 0.5);
	T_EQ_I64(lat_compare_band(&one.side, 0, &lo, &hi), -ENODATA);
	T_CHECK(isnan(lo) && isnan(hi));

	T_EQ_I64(verdict_p50(&a, &a, &cell), LAT_COMPARE_BASELINE);
	T_NEAR(cell.ratio, 1, 1e-12);
	T_EQ_I64(verdict_p50(&a, &b, &cell), LAT_COMPARE_NOISE);
	T_CHECK(cell.ratio > 1.02 && cell.ratio < 1.04);
	T_EQ_I64(verdict_p50(&a, &c, &cell), LAT_COMPARE_HIGHER);
	T_CHECK(cell.ratio > 1.8);
	T_EQ_I64(verdict_p50(&c, &a, &cell), LAT_COMPARE_LOWER);
	T_EQ_I64(verdict_p50(&a, &one, &cell), LAT_COMPARE_NO_SPREAD);
	T_CHECK(!strcmp(lat_compare_verdict_name(LAT_COMPARE_NOISE),
			"noise"));

	/* the unit applies to values and band alike */
	milli = c.side;
	milli.ns_per_value = 1000;
	T_EQ_I64(lat_compare_cell(&a.side, &milli, 0, &cell), 0);
	T_NEAR(cell.value_ns, 1000.0 * lat_hist_value_at_percentile(
		       c.side.hist, 50), 1e-6);
	T_NEAR(cell.lo_ns, 1000.0 * 2059, 1000 * 2.0);

	T_EQ_I64(lat_compare_same_tags(pair, names, 2, why, sizeof(why)),
		 -LAT_ECOMPAT);
	T_CHECK(strstr(why, "'e2e'") != NULL);
	pair[1] = &b.d;
	T_EQ_I64(lat_compare_same_tags(pair, names, 2, why, sizeof(why)), 0);

	unload(&a);
	unload(&b);
	unload(&c);
	unload(&one);
	unload(&other);
	const char *files[] = { "a", "b", "c", "one", "other" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.hlog", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	T_DONE();
}

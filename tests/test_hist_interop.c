/*
 * Description: interop with the official HdrHistogram (Java 2.1.11, the
 * reference implementation), both ways:
 *  - Java-encoded histograms (compressed and plain V2) decode in latlab to
 *    identical counts, min/max and percentiles (mean/stddev to 1e-12);
 *  - latlab's uncompressed encoding of the same values is byte-identical
 *    to Java's, and Java decodes latlab's encodings to the same summary;
 *  - latlab's .hgrm text is byte-identical to outputPercentileDistribution
 *    (ratio 1 and 1e6) for Java-decoded and for locally recorded data;
 *  - Java's HistogramLogReader reads latlab's .hlog (tags, timestamps,
 *    counts) and latlab reads HistogramLogWriter's output.
 * Cases: 0, 1, 2, 3, 5 significant digits, values 1 .. 2^62, empty
 * histograms, a few huge outliers, L = 1000 with values above H, huge
 * counts. Skips (77) when java or the jar is missing.
 * Cost: 20 (rough seconds: ctest -j starts the costly tests first)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latlab/hist_io.h"
#include "t_test.h"

static const char *const jar_paths[] = {
	"/usr/share/java/hdrhistogram.jar",
	"/usr/share/java/HdrHistogram.jar",
};

static const struct {
	double p;
	const char *java; /* Double.toString(p) */
} pcts[] = {
	{ 0, "0.0" }, { 1, "1.0" }, { 10, "10.0" }, { 25, "25.0" },
	{ 50, "50.0" }, { 75, "75.0" }, { 90, "90.0" }, { 99, "99.0" },
	{ 99.9, "99.9" }, { 99.99, "99.99" }, { 99.999, "99.999" },
	{ 100, "100.0" },
};

static char dir[256];

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
		t_failures++;
		return NULL;
	}
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		if (!got)
			break;
		n += got;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static FILE *open_out(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

/* The same text Interop.java's summary() writes (mean/stddev as %.17g). */
static void summary(FILE *out, const struct lat_hist *h)
{
	struct lat_hist_iter it;

	fprintf(out, "config %lld %lld %d\n", (long long)h->lowest_discernible,
		(long long)h->highest_trackable, h->sig_figs);
	fprintf(out, "total %lld\n", (long long)h->total_count);
	fprintf(out, "min %lld\n", (long long)lat_hist_min(h));
	fprintf(out, "minnz %lld\n", (long long)lat_hist_min_nonzero(h));
	fprintf(out, "max %lld\n", (long long)lat_hist_max(h));
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		fprintf(out, "p %s %lld\n", pcts[i].java,
			(long long)lat_hist_value_at_percentile(h, pcts[i].p));
	fprintf(out, "mean %.17g\n", lat_hist_mean(h));
	fprintf(out, "stddev %.17g\n", lat_hist_stddev(h));
	lat_hist_iter_recorded_init(&it, h);
	while (lat_hist_iter_next(&it))
		fprintf(out, "slot %lld %lld\n", (long long)it.value,
			(long long)it.count_at_value);
}

static char *summary_text(const struct lat_hist *h)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	summary(f, h);
	fclose(f);
	return text;
}

/*
 * Compare two summaries line by line: exact, except mean and stddev,
 * which are doubles summed in possibly different orders.
 */
static void compare_summaries(const char *what, const char *want,
			      const char *got)
{
	int line = 1;

	while (*want || *got) {
		size_t wn = strcspn(want, "\n"), gn = strcspn(got, "\n");
		bool same = wn == gn && !memcmp(want, got, wn);

		if (!same && (!strncmp(want, "mean ", 5) ||
			      !strncmp(want, "stddev ", 7)) &&
		    !strncmp(want, got, 5)) {
			double a = strtod(strchr(want, ' ') + 1, NULL);
			double b = strtod(strchr(got, ' ') + 1, NULL);

			same = fabs(a - b) <= 1e-12 * fmax(fabs(a), 1);
		}
		if (!same) {
			fprintf(stderr, "%s: line %d: want '%.*s', got '%.*s'\n",
				what, line, (int)wn, want, (int)gn, got);
			t_failures++;
			return;
		}
		want += wn + (want[wn] == '\n');
		got += gn + (got[gn] == '\n');
		line++;
	}
}

static char *hgrm_text(const struct lat_hist *h, double ratio)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	T_EQ_I64(lat_hgrm_write(f, h, 5, ratio, false), 0);
	fclose(f);
	return text;
}

static void compare_text(const char *what, const char *want, const char *got)
{
	size_t i = 0;
	int line = 1;

	while (want[i] && want[i] == got[i]) {
		if (want[i] == '\n')
			line++;
		i++;
	}
	if (want[i] || got[i]) {
		fprintf(stderr, "%s: differs at line %d:\n  want: %.80s\n"
			"  got:  %.80s\n", what, line, want + i, got + i);
		t_failures++;
	}
}

/* Java's summary text @want describes @h too. */
static void expect_summary(const char *what, const char *want,
			   const struct lat_hist *h)
{
	char *got = summary_text(h);

	compare_summaries(what, want, got);
	free(got);
}

/* The .hgrm text Java wrote to @file is latlab's for @h at @ratio. */
static void expect_hgrm(const char *file, const struct lat_hist *h,
			double ratio)
{
	char *want = slurp(file, NULL), *got = hgrm_text(h, ratio);

	if (want)
		compare_text(file, want, got);
	free(got);
	free(want);
}

static struct lat_hist *decode_file(const char *name)
{
	char *text = slurp(name, NULL);
	struct lat_hist *h = NULL;
	int rc;

	if (!text)
		return NULL;
	rc = lat_hist_v2_decode_base64(text, strcspn(text, "\n"), &h);
	if (rc) {
		fprintf(stderr, "%s: decode failed: %s\n", name,
			lat_strerror(rc));
		t_failures++;
	}
	free(text);
	return h;
}

/* Rebuild a case from the values Java recorded (its .conf and .values). */
static struct lat_hist *replay(const char *name)
{
	char fname[128];
	char *conf, *values, *p;
	long long lowest, highest, v, count;
	int d;
	struct lat_hist *h = calloc(1, sizeof(*h));

	snprintf(fname, sizeof(fname), "%s.conf", name);
	conf = slurp(fname, NULL);
	snprintf(fname, sizeof(fname), "%s.values", name);
	values = slurp(fname, NULL);
	if (!conf || !values || sscanf(conf, "%lld %lld %d", &lowest,
				       &highest, &d) != 3 ||
	    lat_hist_init_any(h, lowest, highest, d)) {
		fprintf(stderr, "%s: cannot replay\n", name);
		exit(T_EXIT_FAIL);
	}
	for (p = values; sscanf(p, "%lld %lld", &v, &count) == 2;
	     p = strchr(p, '\n') + 1)
		T_CHECK(lat_hist_record_n(h, v, count));
	free(conf);
	free(values);
	return h;
}

static void write_b64(const char *name, const struct lat_hist *h,
		      bool compressed)
{
	FILE *f = open_out(name);
	char *text;
	size_t n;

	if (compressed) {
		T_EQ_I64(lat_hist_v2_encode_base64(h, -1, &text, &n), 0);
	} else {
		size_t cap = lat_hist_v2_encoded_bound(h), len;
		uint8_t *bin = malloc(cap);

		T_EQ_I64(lat_hist_v2_encode(h, bin, cap, &len), 0);
		text = malloc(lat_base64_encoded_len(len) + 1);
		lat_base64_encode(bin, len, text, lat_base64_encoded_len(len) + 1);
		free(bin);
	}
	fprintf(f, "%s\n", text);
	fclose(f);
	free(text);
}

/* One case: Java -> latlab, and latlab's files for the Java check. */
static void check_case(const char *name, struct lat_hlog_writer *w, int i)
{
	char fname[128], *want, *plain_want, *plain_got;
	struct lat_hist *dec, *dec_plain, *mine;

	snprintf(fname, sizeof(fname), "%s.b64", name);
	dec = decode_file(fname);
	snprintf(fname, sizeof(fname), "%s.plain.b64", name);
	dec_plain = decode_file(fname);
	mine = replay(name);
	if (!dec || !dec_plain) {
		lat_hist_free(dec);
		lat_hist_free(dec_plain);
		lat_hist_free(mine);
		return;
	}
	snprintf(fname, sizeof(fname), "%s.sum", name);
	want = slurp(fname, NULL);
	expect_summary(fname, want, dec);
	expect_summary("plain", want, dec_plain);
	expect_summary("recorded by latlab", want, mine);
	free(want);

	/* same values: same uncompressed bytes as Java */
	write_b64("tmp.b64", mine, false);
	plain_got = slurp("tmp.b64", NULL);
	snprintf(fname, sizeof(fname), "%s.plain.b64", name);
	plain_want = slurp(fname, NULL);
	compare_text("uncompressed encoding", plain_want, plain_got);
	free(plain_want);
	free(plain_got);

	/* .hgrm text, ratio 1 and 1e6, for decoded and recorded data */
	snprintf(fname, sizeof(fname), "%s.hgrm", name);
	expect_hgrm(fname, dec, 1.0);
	expect_hgrm(fname, mine, 1.0);
	snprintf(fname, sizeof(fname), "%s.ms.hgrm", name);
	expect_hgrm(fname, mine, 1e6);

	snprintf(fname, sizeof(fname), "%s.lat.b64", name);
	write_b64(fname, mine, true);
	snprintf(fname, sizeof(fname), "%s.lat.plain.b64", name);
	write_b64(fname, mine, false);
	/* tags with and without; relative stamps 0.25 s apart */
	T_EQ_I64(lat_hlog_writer_write_interval(w, i % 2 ? name : NULL,
						i * 0.25, 0.25, mine), 0);
	lat_hist_free(dec);
	lat_hist_free(dec_plain);
	lat_hist_free(mine);
}

/* What Java's reader should report for lat.hlog (start 1700000000.5). */
static void expect_lat_hlog(FILE *out, const char *name, int i)
{
	struct lat_hist *h = replay(name);
	long long start_ms = 1700000000500LL + 250LL * i;

	fprintf(out, "interval %s %lld %lld\n", i % 2 ? name : "-", start_ms,
		start_ms + 250);
	summary(out, h);
	lat_hist_free(h);
}

/* latlab reads java.hlog: same intervals, tags, absolute times. */
static void read_java_hlog(void)
{
	char path[512];
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	char *text, *want;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	int rc;

	snprintf(path, sizeof(path), "%s/java.hlog", dir);
	T_EQ_I64(lat_hlog_reader_open(path, &r), 0);
	while ((rc = lat_hlog_reader_next(r, &iv)) == 1) {
		fprintf(out, "interval %s %lld %lld\n", *iv.tag ? iv.tag : "-",
			(long long)llround(iv.start_s * 1000),
			(long long)llround((iv.start_s + iv.length_s) * 1000));
		summary(out, iv.hist);
		lat_hist_free(iv.hist);
	}
	T_EQ_I64(rc, 0);
	lat_hlog_reader_close(r);
	fclose(out);
	want = slurp("java.hlog.sum", NULL);
	compare_summaries("java.hlog", want, text);
	free(want);
	free(text);
}

static int run_java(const char *jar, const char *mode)
{
	char cmd[1024];
	const char *src = getenv("LATLAB_SRC");

	snprintf(cmd, sizeof(cmd), "java -cp '%s' '%s/tests/interop/"
		 "Interop.java' %s '%s'", jar, src ? src : ".", mode, dir);
	return system(cmd);
}

int main(void)
{
	const char *jar = getenv("LATLAB_HDR_JAR");
	struct lat_hlog_writer_opts opts = { .start_time_s = 1700000000.5 };
	struct lat_hlog_writer *w;
	char path[512], *cases, *name, *expect_text, *got;
	const char *names[64];
	size_t len;
	FILE *expect;
	int i = 0;

	for (size_t k = 0; !jar && k < sizeof(jar_paths) / sizeof(*jar_paths);
	     k++)
		if (!access(jar_paths[k], R_OK))
			jar = jar_paths[k];
	if (!jar)
		T_SKIP("official HdrHistogram jar not found (apt-get update && "
		       "apt-get install -y libhdrhistogram-java, or set "
		       "LATLAB_HDR_JAR)");
	if (system("java -version >/dev/null 2>&1"))
		T_SKIP("no java to run the official HdrHistogram (apt-get "
		       "install -y default-jdk-headless)");
	snprintf(dir, sizeof(dir), "%s/latlab-interop-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return T_EXIT_FAIL;
	}
	if (run_java(jar, "gen")) {
		fprintf(stderr, "Interop.java gen failed\n");
		return T_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/lat.hlog", dir);
	T_EQ_I64(lat_hlog_writer_open(path, &opts, &w), 0);
	expect = open_memstream(&expect_text, &len);
	cases = slurp("cases.txt", NULL);
	for (name = strtok(cases, "\n"); name && i < 64;
	     name = strtok(NULL, "\n")) {
		check_case(name, w, i);
		expect_lat_hlog(expect, name, i);
		names[i++] = name;
	}
	T_EQ_I64(lat_hlog_writer_close(w), 0);
	fclose(expect);
	T_CHECK(i >= 10);
	read_java_hlog();
	if (run_java(jar, "check")) {
		fprintf(stderr, "Interop.java check failed\n");
		return T_EXIT_FAIL;
	}
	/* Java decodes latlab's encodings to its own summaries */
	for (int k = 0; k < i; k++) {
		char fname[128], *want;

		name = (char *)names[k];
		snprintf(fname, sizeof(fname), "%s.sum", name);
		want = slurp(fname, NULL);
		snprintf(fname, sizeof(fname), "%s.lat.sum", name);
		got = slurp(fname, NULL);
		compare_summaries(fname, want, got);
		free(got);
		snprintf(fname, sizeof(fname), "%s.lat.plain.sum", name);
		got = slurp(fname, NULL);
		compare_summaries(fname, want, got);
		free(got);
		free(want);
	}
	got = slurp("lat.hlog.sum", NULL);
	compare_summaries("lat.hlog read by Java", expect_text, got);
	free(got);
	free(expect_text);
	free(cases);
	if (!t_failures) {
		snprintf(path, sizeof(path), "rm -rf '%s'", dir);
		T_CHECK(system(path) == 0);
	} else {
		fprintf(stderr, "files kept in %s\n", dir);
	}
	T_DONE();
}

/*
 * Description: hist_io unit tests: base64 vectors, Java-compatible number
 * formatting, V2 golden bytes computed by hand from the spec, round trips
 * at 0..5 significant digits, every truncation and many corruptions of
 * valid encodings, .hgrm text for a hand-computed case, .hgrm and .hlog
 * round trips and the hlog reader's base-time rules.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist/hist_v2_int.h"
#include "common/jfmt_int.h"
#include "latlab/hist_io.h"
#include "t_test.h"

static struct lat_hist *new_hist(int64_t lowest, int64_t highest, int d)
{
	struct lat_hist *h = calloc(1, sizeof(*h));

	if (!h || lat_hist_init_any(h, lowest, highest, d)) {
		fprintf(stderr, "cannot create histogram\n");
		exit(T_EXIT_FAIL);
	}
	return h;
}

static bool same_counts(const struct lat_hist *a, const struct lat_hist *b)
{
	return a->counts_len == b->counts_len &&
	       a->sig_figs == b->sig_figs &&
	       a->lowest_discernible == b->lowest_discernible &&
	       a->highest_trackable == b->highest_trackable &&
	       a->total_count == b->total_count &&
	       lat_hist_max(a) == lat_hist_max(b) &&
	       lat_hist_min(a) == lat_hist_min(b) &&
	       !memcmp(a->counts, b->counts,
		       (size_t)a->counts_len * sizeof(int64_t));
}

static void test_base64(void)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob",
					     "fooba", "foobar" };
	static const char *const enc[] = { "", "Zg==", "Zm8=", "Zm9v",
					   "Zm9vYg==", "Zm9vYmE=",
					   "Zm9vYmFy" };
	static const char *const bad[] = { "Zg=", "Z===", "Zg=a", "Zm9v!A==",
					   "=Zm9", "Zm=v" };
	char out[32];
	uint8_t bin[32];
	size_t n;

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		size_t len = strlen(plain[i]);

		T_EQ_I64(lat_base64_encoded_len(len), strlen(enc[i]));
		T_EQ_I64(lat_base64_encode((const uint8_t *)plain[i], len, out,
					   sizeof(out)), 0);
		T_CHECK(!strcmp(out, enc[i]));
		T_EQ_I64(lat_base64_decode(enc[i], strlen(enc[i]), bin,
					   sizeof(bin), &n), 0);
		T_EQ_I64(n, len);
		T_CHECK(!memcmp(bin, plain[i], len));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		T_EQ_I64(lat_base64_decode(bad[i], strlen(bad[i]), bin,
					   sizeof(bin), &n), -LAT_EFORMAT);
	T_EQ_I64(lat_base64_encode((const uint8_t *)"foo", 3, out, 4),
		 -ENOSPC);
	T_EQ_I64(lat_base64_decode("Zm9vYmFy", 8, bin, 5, &n), -ENOSPC);
}

static void expect_jfmt(double x, int prec, const char *want)
{
	char buf[512];

	lat_jfmt_fixed(buf, sizeof(buf), x, prec);
	if (strcmp(buf, want)) {
		fprintf(stderr, "jfmt(%.17g, %d) = '%s', want '%s'\n", x, prec,
			buf, want);
		t_failures++;
	}
}

/* Expected strings are what Java 17's String.format printed. */
static void test_jfmt(void)
{
	expect_jfmt(2.5, 0, "3");           /* half-up; printf gives 2 */
	expect_jfmt(0.125, 2, "0.13");      /* printf gives 0.12 */
	expect_jfmt(1.005, 2, "1.01");      /* Java rounds its digits */
	expect_jfmt(0.25, 1, "0.3");
	expect_jfmt(0x1p62, 3, "4611686018427387900.000");
	expect_jfmt(0x1p62 / 1e6, 3, "4611686018427.388");
	expect_jfmt(9007199254740993.0, 1, "9007199254740992.0");
	expect_jfmt(1e-5, 3, "0.000");
	expect_jfmt(0.0005, 3, "0.001");
	expect_jfmt(999.9996, 3, "1000.000");
	expect_jfmt(0, 3, "0.000");
	expect_jfmt(1.0 / 3, 12, "0.333333333333");
	expect_jfmt(123456789.123456789, 12, "123456789.123456790000");
}

static void test_varint(void)
{
	static const struct {
		int64_t v;
		uint8_t bytes[9];
		size_t n;
	} cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x02 }, 1 },
		{ -1, { 0x01 }, 1 },
		{ 63, { 0x7e }, 1 },
		{ 64, { 0x80, 0x01 }, 2 },
		{ -98, { 0xc3, 0x01 }, 2 },
		{ INT64_MAX, { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			       0xff }, 9 },
		{ INT64_MIN, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			       0xff }, 9 },
	};
	uint8_t buf[9];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = lat_hist_v2_put_varint(buf, cases[i].v);

		T_EQ_I64(n, cases[i].n);
		T_CHECK(!memcmp(buf, cases[i].bytes, n));
	}
}

static size_t hex_to_bytes(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (const char *p = hex; *p;) {
		unsigned v;

		if (*p == ' ') {
			p++;
			continue;
		}
		sscanf(p, "%2x", &v);
		out[n++] = (uint8_t)v;
		p += 2;
	}
	return n;
}

/*
 * Hand-computed from hdr-spec.md 4.2-4.3: L = 1, H = 3.6e9 (0xd693a400),
 * d = 3, values 1 and 3: counts 0,1,0,1 -> 00 02 00 02 (a single zero is
 * zigzag(0) as Java writes it). With 1 and 100: 00 02, a run of 98 zeros
 * zigzag(-98) = 195 = c3 01, then 02. Empty: one zero entry.
 */
static void test_golden(void)
{
	static const char *const hdr =
		"1c849313 %s 00000000 00000003 0000000000000001 "
		"00000000d693a400 3ff0000000000000 %s";
	static const struct {
		int64_t values[2];
		int nvalues;
		const char *len, *payload;
	} cases[] = {
		{ { 1, 3 }, 2, "00000004", "00 02 00 02" },
		{ { 1, 100 }, 2, "00000005", "00 02 c3 01 02" },
		{ { 0, 0 }, 0, "00000001", "00" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lat_hist *h = new_hist(1, 3600000000, 3), *back;
		char hex[256];
		uint8_t want[128], got[128];
		size_t want_len, got_len;

		for (int k = 0; k < cases[i].nvalues; k++)
			lat_hist_record(h, cases[i].values[k]);
		snprintf(hex, sizeof(hex), hdr, cases[i].len,
			 cases[i].payload);
		want_len = hex_to_bytes(hex, want);
		T_EQ_I64(lat_hist_v2_encode(h, got, sizeof(got), &got_len), 0);
		T_EQ_I64(got_len, want_len);
		T_CHECK(!memcmp(got, want, want_len));
		T_EQ_I64(lat_hist_v2_decode(want, want_len, &back), 0);
		T_CHECK(back && same_counts(h, back));
		lat_hist_free(back);
		lat_hist_free(h);
	}
}

/* A histogram with a spread of values, some at the top of the range. */
static struct lat_hist *sample_hist(int d, uint64_t seed, int64_t highest)
{
	struct lat_hist *h = new_hist(1, highest, d);

	for (int i = 0; i < 2000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		int shift = (int)(seed >> 58) % 62;
		int64_t v = (int64_t)((seed >> 1) >> (shift + 1));

		lat_hist_record_n(h, v % highest + 1, (int64_t)(seed >> 60) + 1);
	}
	lat_hist_record(h, highest);
	return h;
}

static void test_round_trips(void)
{
	for (int d = 0; d <= 5; d++) {
		int64_t highest = d == 5 ? 3600000000000 : (int64_t)1 << 62;
		struct lat_hist *h = sample_hist(d, 42 + (uint64_t)d, highest);
		struct lat_hist *back;
		uint8_t *bin, *plain;
		char *text;
		size_t n, plain_len;

		T_EQ_I64(lat_hist_v2_encode_compressed(h, -1, &bin, &n), 0);
		T_EQ_I64(lat_hist_v2_decode(bin, n, &back), 0);
		T_CHECK(back && same_counts(h, back));
		lat_hist_free(back);
		free(bin);
		T_EQ_I64(lat_hist_v2_encode_base64(h, 9, &text, &n), 0);
		T_CHECK(!strncmp(text, "HISTF", 5));
		T_EQ_I64(lat_hist_v2_decode_base64(text, n, &back), 0);
		T_CHECK(back && same_counts(h, back));
		lat_hist_free(back);
		free(text);
		plain = malloc(lat_hist_v2_encoded_bound(h));
		T_EQ_I64(lat_hist_v2_encode(h, plain,
					    lat_hist_v2_encoded_bound(h),
					    &plain_len), 0);
		T_EQ_I64(lat_hist_v2_decode(plain, plain_len, &back), 0);
		T_CHECK(back && same_counts(h, back));
		lat_hist_free(back);
		T_EQ_I64(lat_hist_v2_encode(h, plain, plain_len - 1, &n),
			 -ENOSPC);
		free(plain);
		lat_hist_free(h);
	}
}

/* Every proper prefix of a valid encoding is refused, never accepted. */
static void check_truncations(const uint8_t *buf, size_t len)
{
	for (size_t cut = 0; cut < len; cut++) {
		struct lat_hist *h = NULL;
		int rc = lat_hist_v2_decode(buf, cut, &h);

		if (rc == 0 || h) {
			fprintf(stderr, "prefix of %zu/%zu bytes decoded\n",
				cut, len);
			t_failures++;
		}
		lat_hist_free(h);
	}
}

static void test_truncation(void)
{
	struct lat_hist *h = sample_hist(2, 7, 1000000000);
	uint8_t *bin, plain[4096 * 9];
	size_t n;

	T_EQ_I64(lat_hist_v2_encode(h, plain, sizeof(plain), &n), 0);
	check_truncations(plain, n);
	T_EQ_I64(lat_hist_v2_encode_compressed(h, 9, &bin, &n), 0);
	check_truncations(bin, n);
	free(bin);
	lat_hist_free(h);
}

/* Flip bits everywhere: decoding may fail or succeed, never misbehave. */
static void test_corruption(void)
{
	struct lat_hist *h = sample_hist(1, 9, 1000000);
	uint8_t plain[8192], *bin;
	size_t n, bin_len;
	int decoded = 0;

	T_EQ_I64(lat_hist_v2_encode(h, plain, sizeof(plain), &n), 0);
	T_EQ_I64(lat_hist_v2_encode_compressed(h, 6, &bin, &bin_len), 0);
	for (size_t i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			struct lat_hist *back = NULL;

			plain[i] ^= (uint8_t)(1 << bit);
			if (lat_hist_v2_decode(plain, n, &back) == 0) {
				decoded++;
				T_CHECK(back && back->total_count >= 0);
			} else {
				T_CHECK(!back);
			}
			lat_hist_free(back);
			plain[i] ^= (uint8_t)(1 << bit);
		}
	for (size_t i = 0; i < bin_len; i++) {
		struct lat_hist *back = NULL;

		bin[i] ^= 0x5a;
		if (lat_hist_v2_decode(bin, bin_len, &back) == 0)
			decoded++;
		lat_hist_free(back);
		bin[i] ^= 0x5a;
	}
	/* payload bit flips that keep a valid stream change counts */
	T_CHECK(decoded > 0);
	free(bin);
	lat_hist_free(h);
}

/* Header fields and payloads that must be refused, each with its code. */
static void test_hostile_headers(void)
{
	static const struct {
		const char *hex;
		int rc;
	} cases[] = {
		/* V1, V0 and DoubleHistogram cookies: known, unsupported */
		{ "1c849321 00000001 00000000 00000003 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 00", -LAT_EUNSUPP },
		{ "1c849328 00000001", -LAT_EUNSUPP },
		{ "0c72124e 00000001", -LAT_EUNSUPP },
		{ "12345678 00000001", -LAT_EFORMAT },
		/* d = 6, L = 0, H < 2L, negative payload length */
		{ "1c849313 00000001 00000000 00000006 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 00", -LAT_EFORMAT },
		{ "1c849313 00000001 00000000 00000003 0000000000000000 "
		  "00000000d693a400 3ff0000000000000 00", -LAT_EFORMAT },
		{ "1c849313 00000001 00000000 00000003 0000000000000010 "
		  "0000000000000011 3ff0000000000000 00", -LAT_EFORMAT },
		{ "1c849313 ffffffff 00000000 00000003 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 00", -LAT_EFORMAT },
		/* payload longer than 9 bytes per slot could ever need */
		{ "1c849313 7fffffff 00000000 00000003 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 00", -LAT_EFORMAT },
		/* payload shorter than promised, and bytes after it */
		{ "1c849313 00000002 00000000 00000003 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 00", -LAT_ETRUNC },
		{ "1c849313 00000001 00000000 00000003 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 00 00", -LAT_EFORMAT },
		/* a varint cut by the payload end */
		{ "1c849313 00000001 00000000 00000003 0000000000000001 "
		  "00000000d693a400 3ff0000000000000 80", -LAT_ETRUNC },
		/* d = 0, L = 1, H = 2: 2 buckets, counts_len 3. A run of 4
		 * zeros, then a count in slot 3 (beyond the array) */
		{ "1c849313 00000001 00000000 00000000 0000000000000001 "
		  "0000000000000002 3ff0000000000000 07", -LAT_EFORMAT },
		{ "1c849313 00000004 00000000 00000000 0000000000000001 "
		  "0000000000000002 3ff0000000000000 02 02 02 02",
		  -LAT_EFORMAT },
		/* a run of 2^63 (zigzag INT64_MIN) */
		{ "1c849313 00000009 00000000 00000000 0000000000000001 "
		  "0000000000000002 3ff0000000000000 "
		  "ff ff ff ff ff ff ff ff ff", -LAT_EFORMAT },
		/* two counts of INT64_MAX: the total does not fit */
		{ "1c849313 00000012 00000000 00000000 0000000000000001 "
		  "0000000000000002 3ff0000000000000 "
		  "fe ff ff ff ff ff ff ff ff fe ff ff ff ff ff ff ff ff",
		  -ERANGE },
		{ "1c849314 00000010 0000", -LAT_ETRUNC },
		{ "1c849314 00000002 78 9c 00", -LAT_EFORMAT },
		{ "1c849314 00000002 00 00", -LAT_EFORMAT },
		{ "1c84", -LAT_ETRUNC },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[128];
		size_t n = hex_to_bytes(cases[i].hex, buf);
		struct lat_hist *h = NULL;
		int rc = lat_hist_v2_decode(buf, n, &h);

		if (rc != cases[i].rc) {
			fprintf(stderr, "hostile case %zu: rc %d (%s), want "
				"%d\n", i, rc, lat_strerror(rc), cases[i].rc);
			t_failures++;
		}
		T_CHECK(!h);
		lat_hist_free(h);
	}
}

/*
 * JS writes normalizingIndexOffset = 1 and ratio bits 1: both are ignored,
 * the payload is in logical order.
 */
static void test_js_quirks(void)
{
	uint8_t buf[64];
	size_t n = hex_to_bytes(
		"1c849313 00000004 00000001 00000003 0000000000000001 "
		"00000000d693a400 0000000000000001 00 02 00 02", buf);
	struct lat_hist *h;

	T_EQ_I64(lat_hist_v2_decode(buf, n, &h), 0);
	if (!h)
		return;
	T_EQ_I64(h->total_count, 2);
	T_EQ_I64(lat_hist_min(h), 1);
	T_EQ_I64(lat_hist_max(h), 3);
	T_EQ_I64(lat_hist_count_at_value(h, 1), 1);
	T_EQ_I64(lat_hist_count_at_value(h, 3), 1);
	lat_hist_free(h);
}

/*
 * Values 1, 2, 3 at d = 3, H = 3.6e9 (22 buckets), worked by hand from
 * hdr-spec.md 3.1: levels 0, 10, 20, 30 at value 1 (33.3%), 40, 50, 55,
 * 60, 65 at 2 (66.7%), 70 at 3, then the 100% row. Mean 2, stddev
 * sqrt(2/3).
 */
static const char hgrm_123[] =
"       Value     Percentile TotalCount 1/(1-Percentile)\n"
"\n"
"       1.000 0.000000000000          1           1.00\n"
"       1.000 0.100000000000          1           1.11\n"
"       1.000 0.200000000000          1           1.25\n"
"       1.000 0.300000000000          1           1.43\n"
"       2.000 0.400000000000          2           1.67\n"
"       2.000 0.500000000000          2           2.00\n"
"       2.000 0.550000000000          2           2.22\n"
"       2.000 0.600000000000          2           2.50\n"
"       2.000 0.650000000000          2           2.86\n"
"       3.000 0.700000000000          3           3.33\n"
"       3.000 1.000000000000          3\n"
"#[Mean    =        2.000, StdDeviation   =        0.816]\n"
"#[Max     =        3.000, Total count    =            3]\n"
"#[Buckets =           22, SubBuckets     =         2048]\n";

static char *hgrm_text(const struct lat_hist *h, double ratio, bool csv,
		       size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	T_EQ_I64(lat_hgrm_write(f, h, 5, ratio, csv), 0);
	fclose(f);
	return text;
}

static void test_hgrm(void)
{
	struct lat_hist *h = new_hist(1, 3600000000, 3), *back;
	struct lat_hgrm_info info;
	size_t len;
	char *text;

	lat_hist_record(h, 1);
	lat_hist_record(h, 2);
	lat_hist_record(h, 3);
	text = hgrm_text(h, 1.0, false, &len);
	if (strcmp(text, hgrm_123)) {
		fprintf(stderr, "hgrm text differs:\n%s", text);
		t_failures++;
	}
	T_EQ_I64(lat_hgrm_read(text, len, 1, &info, &back), 0);
	if (back) {
		T_EQ_I64(back->total_count, 3);
		T_EQ_I64(lat_hist_count_at_value(back, 1), 1);
		T_EQ_I64(lat_hist_count_at_value(back, 2), 1);
		T_EQ_I64(lat_hist_count_at_value(back, 3), 1);
		T_EQ_I64(info.sig_figs, 3);
		T_EQ_I64(info.rows, 11);
		T_EQ_I64(info.buckets, 22);
		T_NEAR(info.mean, 2.0, 1e-9);
		T_CHECK(!info.fractional_values);
	}
	lat_hist_free(back);
	/* every prefix parses or fails cleanly; a cut footer is caught */
	for (size_t cut = 0; cut < len; cut++) {
		back = NULL;
		int rc = lat_hgrm_read(text, cut, 1, &info, &back);

		T_CHECK(rc == 0 ? back != NULL : back == NULL);
		lat_hist_free(back);
	}
	/* rows must be cumulative */
	free(text);
	text = strdup(hgrm_123);
	memcpy(strstr(text, "         2           1.67"),
	       "         0           1.67", 25);
	T_EQ_I64(lat_hgrm_read(text, strlen(text), 1, &info, &back),
		 -LAT_EFORMAT);
	free(text);
	T_EQ_I64(lat_hgrm_read("hello\n1 2 3\n", 12, 1, &info, &back),
		 -LAT_EFORMAT);
	/* CSV form: quoted header, Infinity in the last row, no footer */
	text = hgrm_text(h, 1.0, true, &len);
	T_CHECK(!strncmp(text, "\"Value\",\"Percentile\",\"TotalCount\","
			 "\"1/(1-Percentile)\"\n1.000,0.000000000000,1,1.00\n",
			 75));
	T_CHECK(strstr(text, "3.000,1.000000000000,3,Infinity\n") != NULL);
	T_EQ_I64(lat_hgrm_read(text, len, 1, &info, &back), 0);
	T_CHECK(back && back->total_count == 3 && info.csv);
	lat_hist_free(back);
	free(text);
	/* a unit ratio: decimals are values, scale brings them back */
	lat_hist_reset(h);
	lat_hist_record(h, 1500000);
	text = hgrm_text(h, 1e6, false, &len);
	T_EQ_I64(lat_hgrm_read(text, len, 1e6, &info, &back), 0);
	T_CHECK(info.fractional_values);
	T_CHECK(back && lat_hist_max(back) == lat_hist_max(h));
	lat_hist_free(back);
	free(text);
	lat_hist_free(h);
}

/*
 * Regression: the footer's "Total count" was parsed as a double, so a
 * total above 2^53 came back rounded, disagreed with the last row and
 * the whole file was refused as malformed.
 */
static void test_hgrm_big_total(void)
{
	const int64_t big = ((int64_t)1 << 60) + 1;
	struct lat_hist *h = new_hist(1, 1000000, 3), *back = NULL;
	struct lat_hgrm_info info;
	size_t len;
	char *text;

	lat_hist_record_n(h, 5, big);
	lat_hist_record(h, 700);
	text = hgrm_text(h, 1.0, false, &len);
	T_EQ_I64(lat_hgrm_read(text, len, 1, &info, &back), 0);
	T_EQ_I64(info.total_count, big + 1);
	T_CHECK(back && back->total_count == big + 1);
	lat_hist_free(back);
	free(text);
	lat_hist_free(h);
}

/*
 * Regression: the row table could grow to 2^24 rows (512 MiB) from ~100
 * MB of repeated rows. Dense real output (1000 ticks per half distance,
 * 2^62 counts: 1000 rows for each of ~43 halvings a double resolves)
 * parses; past the row bound the text is refused before any more memory
 * is taken.
 */
static void test_hgrm_row_bound(void)
{
	struct lat_hist *h = new_hist(1, 1000, 1), *back = NULL;
	struct lat_hgrm_info info;
	const char row[] = "0.0 0.0 0 1.0\n";
	size_t n = (1u << 20) + 1, len = 0;
	char *text;
	FILE *f;

	lat_hist_record_n(h, 1, (int64_t)1 << 62);
	lat_hist_record(h, 2);
	f = open_memstream(&text, &len);
	T_EQ_I64(lat_hgrm_write(f, h, 1000, 1.0, false), 0);
	fclose(f);
	T_EQ_I64(lat_hgrm_read(text, len, 1, &info, &back), 0);
	T_CHECK(info.rows > 40000);
	lat_hist_free(back);
	free(text);
	lat_hist_free(h);

	text = malloc(16 + n * (sizeof(row) - 1));
	strcpy(text, "Value P Count\n");
	len = strlen(text);
	for (size_t i = 0; i < n; i++, len += sizeof(row) - 1)
		memcpy(text + len, row, sizeof(row) - 1);
	back = NULL;
	T_EQ_I64(lat_hgrm_read(text, len, 1, &info, &back), -LAT_EFORMAT);
	T_CHECK(back == NULL);
	free(text);
}

static void test_hlog_round_trip(void)
{
	struct lat_hlog_writer_opts opts = { .start_time_s = 1700000000.25,
					     .comment = "test" };
	struct lat_hist *a = sample_hist(3, 1, 3600000000000);
	struct lat_hist *b = new_hist(1000, 60000000000, 2);
	struct lat_hlog_writer *w;
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	FILE *f = tmpfile();

	lat_hist_record(b, 123456789);
	T_EQ_I64(lat_hlog_writer_open_stream(f, &opts, &w), 0);
	T_EQ_I64(lat_hlog_writer_write_interval(w, NULL, 0, 1, a), 0);
	T_EQ_I64(lat_hlog_writer_write_interval(w, "e2e", 0.5, 1, b), 0);
	T_EQ_I64(lat_hlog_writer_write_interval(w, "bad,tag", 1, 1, b),
		 -EINVAL);
	T_EQ_I64(lat_hlog_writer_write_interval(w, "bad tag", 1, 1, b),
		 -EINVAL);
	T_EQ_I64(lat_hlog_writer_close(w), 0);
	rewind(f);
	T_EQ_I64(lat_hlog_reader_open_stream(f, &r), 0);
	T_EQ_I64(lat_hlog_reader_next(r, &iv), 1);
	T_CHECK(!strcmp(iv.tag, ""));
	T_NEAR(iv.start_s, 1700000000.25, 1e-6);
	T_NEAR(iv.length_s, 1.0, 1e-9);
	T_NEAR(iv.max_field, (double)lat_hist_max(a) / 1e6, 1e-3);
	T_CHECK(iv.hist && same_counts(a, iv.hist));
	lat_hist_free(iv.hist);
	T_EQ_I64(lat_hlog_reader_next(r, &iv), 1);
	T_CHECK(!strcmp(iv.tag, "e2e"));
	T_NEAR(iv.start_s, 1700000000.75, 1e-6);
	T_CHECK(iv.hist && same_counts(b, iv.hist));
	lat_hist_free(iv.hist);
	T_EQ_I64(lat_hlog_reader_next(r, &iv), 0);
	T_NEAR(lat_hlog_reader_start_time(r), 1700000000.25, 1e-6);
	lat_hlog_reader_close(r);
	fclose(f);
	lat_hist_free(a);
	lat_hist_free(b);
}

/* An interval that goes back in time is refused, and the refusal owns
 * no histogram (the leak the fuzzer found: decoded first, refused after;
 * the ASan suite's leak check is what fails if it comes back). */
static void test_hlog_backwards(void)
{
	struct lat_hist *h = new_hist(1, 1000, 1);
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	char *b64, text[1024];
	size_t n;
	FILE *f;

	lat_hist_record(h, 5);
	T_EQ_I64(lat_hist_v2_encode_base64(h, 9, &b64, &n), 0);
	snprintf(text, sizeof(text), "5.000,1.000,0.000,%s\n"
		 "1.000,1.000,0.000,%s\n", b64, b64);
	f = fmemopen(text, strlen(text), "r");
	T_EQ_I64(lat_hlog_reader_open_stream(f, &r), 0);
	T_EQ_I64(lat_hlog_reader_next(r, &iv), 1);
	lat_hist_free(iv.hist);
	T_EQ_I64(lat_hlog_reader_next(r, &iv), -LAT_EBADTIME);
	T_CHECK(iv.hist == NULL);
	lat_hlog_reader_close(r);
	fclose(f);
	free(b64);
	lat_hist_free(h);
}

/* Read @text, return the first interval's absolute start (or NAN). */
static double first_start(const char *text, int *rc)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct lat_hlog_reader *r;
	struct lat_hlog_interval iv;
	double start = NAN;

	lat_hlog_reader_open_stream(f, &r);
	*rc = lat_hlog_reader_next(r, &iv);
	if (*rc == 1)
		start = iv.start_s;
	lat_hist_free(iv.hist);
	lat_hlog_reader_close(r);
	fclose(f);
	return start;
}

/* The base-time rules of Java's reader, with blank lines and spaces. */
static void test_hlog_base_time(void)
{
	struct lat_hist *h = new_hist(1, 1000, 1);
	char *b64, text[1024];
	size_t n;
	int rc;

	lat_hist_record(h, 5);
	T_EQ_I64(lat_hist_v2_encode_base64(h, 9, &b64, &n), 0);
	/* relative stamps, StartTime, no BaseTime: base = StartTime */
	snprintf(text, sizeof(text), "#[StartTime: 1700000000.000 (s)]\n\n"
		 "\"StartTimestamp\",\"Interval_Length\"\n"
		 "2.000,1.000,0.000,%s\n", b64);
	T_NEAR(first_start(text, &rc), 1700000002.0, 1e-6);
	T_EQ_I64(rc, 1);
	/* absolute stamps: base 0; separators may be spaces */
	snprintf(text, sizeof(text), "#[StartTime: 1700000000.000 (s)]\n"
		 "1700000005.000 1.000 0.000 %s\r\n", b64);
	T_NEAR(first_start(text, &rc), 1700000005.0, 1e-6);
	/* explicit BaseTime wins */
	snprintf(text, sizeof(text), "#[BaseTime: 1000.500 (s)]\n"
		 "  1.000,1.000,0.000,%s\n", b64);
	T_NEAR(first_start(text, &rc), 1001.5, 1e-6);
	/* no StartTime at all: timestamps are taken as they are */
	snprintf(text, sizeof(text), "3.000,1.000,0.000,%s\n", b64);
	T_NEAR(first_start(text, &rc), 3.0, 1e-6);
	/* malformed lines: a whole line with a field missing is malformed
	 * (it used to be reported as truncated, which sent people looking
	 * for a cut file); the same as the file's unterminated last line,
	 * or a last line cut inside its base64, is truncated */
	snprintf(text, sizeof(text), "3.000,1.000,%s\n", b64);
	first_start(text, &rc);
	T_EQ_I64(rc, -LAT_EFORMAT);
	snprintf(text, sizeof(text), "3.000,1.000,%s", b64);
	first_start(text, &rc);
	T_EQ_I64(rc, -LAT_ETRUNC);
	snprintf(text, sizeof(text), "3.000,1.000,0.000,%s", b64);
	text[strlen(text) - 3] = '\0';
	first_start(text, &rc);
	T_EQ_I64(rc, -LAT_ETRUNC);
	first_start("hello\nworld\n", &rc);
	T_EQ_I64(rc, -LAT_EFORMAT);
	first_start("x,1.000,0.000,HISTFAAAA\n", &rc);
	T_EQ_I64(rc, -LAT_EFORMAT);
	first_start("1,1,0,HISTFAAAA\n", &rc);
	T_CHECK(rc < 0);
	free(b64);
	lat_hist_free(h);
}

/* Regression: a directory opened, then failed its first read as EIO. */
static void test_hlog_open_dir(void)
{
	struct lat_hlog_reader *r = (struct lat_hlog_reader *)1;

	T_EQ_I64(lat_hlog_reader_open(".", &r), -EISDIR);
	T_CHECK(r == NULL);
	T_EQ_I64(lat_hlog_reader_open("no/such/file.hlog", &r), -ENOENT);
}

int main(void)
{
	test_base64();
	test_jfmt();
	test_varint();
	test_golden();
	test_round_trips();
	test_truncation();
	test_corruption();
	test_hostile_headers();
	test_js_quirks();
	test_hgrm();
	test_hgrm_big_total();
	test_hgrm_row_bound();
	test_hlog_round_trip();
	test_hlog_base_time();
	test_hlog_backwards();
	test_hlog_open_dir();
	T_DONE();
}

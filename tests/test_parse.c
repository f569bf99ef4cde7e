/* Description: lat_parse_*: the numbers people type, read strictly. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/parse.h"
#include "t_test.h"

static void test_u64(void)
{
	uint64_t v = 7;

	T_EQ_I64(lat_parse_u64("42", 0, 100, &v), 0);
	T_EQ_I64(v, 42);
	T_EQ_I64(lat_parse_u64("200k", 0, UINT64_MAX, &v), 0);
	T_EQ_I64(v, 200000);
	T_EQ_I64(lat_parse_u64("3M", 0, UINT64_MAX, &v), 0);
	T_EQ_I64(v, 3000000);
	T_EQ_I64(lat_parse_u64("2G", 0, UINT64_MAX, &v), 0);
	T_EQ_I64(v, 2000000000);
	T_EQ_I64(lat_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	T_CHECK(v == UINT64_MAX);
	v = 7;
	/* not whole numbers: a sign, a blank, a fraction, a unit, nothing */
	T_EQ_I64(lat_parse_u64("-1", 0, UINT64_MAX, &v), -EINVAL);
	T_EQ_I64(lat_parse_u64("+1", 0, UINT64_MAX, &v), -EINVAL);
	T_EQ_I64(lat_parse_u64(" 1", 0, UINT64_MAX, &v), -EINVAL);
	T_EQ_I64(lat_parse_u64("1.5", 0, UINT64_MAX, &v), -EINVAL);
	T_EQ_I64(lat_parse_u64("1kB", 0, UINT64_MAX, &v), -EINVAL);
	T_EQ_I64(lat_parse_u64("", 0, UINT64_MAX, &v), -EINVAL);
	T_EQ_I64(lat_parse_u64(NULL, 0, UINT64_MAX, &v), -EINVAL);
	/* numbers out of range, 64-bit overflow included */
	T_EQ_I64(lat_parse_u64("101", 0, 100, &v), -ERANGE);
	T_EQ_I64(lat_parse_u64("0", 1, 100, &v), -ERANGE);
	T_EQ_I64(lat_parse_u64("18446744073709551616", 0, UINT64_MAX, &v),
		 -ERANGE);
	T_EQ_I64(lat_parse_u64("18446744073709552k", 0, UINT64_MAX, &v),
		 -ERANGE);
	T_EQ_I64(v, 7); /* untouched by every refusal */
}

static void test_double(void)
{
	double v = 7;

	T_EQ_I64(lat_parse_double("0.5", 0, 1, &v), 0);
	T_NEAR(v, 0.5, 0);
	T_EQ_I64(lat_parse_double("-2.5e3", -INFINITY, INFINITY, &v), 0);
	T_NEAR(v, -2500, 0);
	T_EQ_I64(lat_parse_double("1e-3", 0, 1, &v), 0);
	T_NEAR(v, 1e-3, 0);
	v = 7;
	T_EQ_I64(lat_parse_double("nan", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double("inf", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double("0x10", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double(" 1", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double("1e", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double(".", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double("", -INFINITY, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_double("1.5", 0, 1, &v), -ERANGE);
	T_EQ_I64(lat_parse_double("1e400", -INFINITY, INFINITY, &v),
		 -EOVERFLOW);
	T_EQ_I64(lat_parse_double("1e-400", 0, 1, &v), -EOVERFLOW);
	T_NEAR(v, 7, 0);
}

static void test_duration(void)
{
	double v = 7;

	T_EQ_I64(lat_parse_duration_ns("500us", 0, 0, INFINITY, &v), 0);
	T_NEAR(v, 500e3, 0);
	T_EQ_I64(lat_parse_duration_ns("1.5s", 0, 0, INFINITY, &v), 0);
	T_NEAR(v, 1.5e9, 0);
	T_EQ_I64(lat_parse_duration_ns("2min", 0, 0, INFINITY, &v), 0);
	T_NEAR(v, 120e9, 0);
	T_EQ_I64(lat_parse_duration_ns("3µs", 0, 0, INFINITY, &v), 0);
	T_NEAR(v, 3e3, 0);
	/* a bare number in the default unit, here ms */
	T_EQ_I64(lat_parse_duration_ns("20", 1e6, 0, INFINITY, &v), 0);
	T_NEAR(v, 20e6, 0);
	v = 7;
	T_EQ_I64(lat_parse_duration_ns("20", 0, 0, INFINITY, &v), -EDOM);
	T_EQ_I64(lat_parse_duration_ns("20 ms", 0, 0, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_duration_ns("20lightyears", 0, 0, INFINITY, &v),
		 -EINVAL);
	T_EQ_I64(lat_parse_duration_ns("nanms", 0, 0, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_duration_ns("", 0, 0, INFINITY, &v), -EINVAL);
	T_EQ_I64(lat_parse_duration_ns("-1s", 0, 1, INFINITY, &v), -ERANGE);
	T_EQ_I64(lat_parse_duration_ns("2s", 0, 1, 1e9, &v), -ERANGE);
	T_NEAR(v, 7, 0);
}

/* Sizes as people and sysfs write them, and what is refused. */
static void test_parse_bytes(void)
{
	static const struct {
		const char *s;
		int rc;
		uint64_t v;
	} c[] = {
		{ "4096", 0, 4096 }, { "4096B", 0, 4096 }, { "32K", 0, 32 << 10 },
		{ "32k", 0, 32 << 10 }, { "32KiB", 0, 32 << 10 },
		{ "128M", 0, 128 << 20 }, { "1G", 0, UINT64_C(1) << 30 },
		{ "0", 0, 0 }, { "1048576G", 0, UINT64_C(1) << 50 },
		{ "1048577G", -ERANGE, 0 }, { "99999999999999999999", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "K", -EINVAL, 0 }, { "-1", -EINVAL, 0 },
		{ "4KB", -EINVAL, 0 }, { "2P", -EINVAL, 0 }, { "4 K", -EINVAL, 0 },
		{ "4iB", -EINVAL, 0 }, { " 4", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		uint64_t v = 7;
		int rc = lat_parse_bytes(c[i].s, &v);

		if (rc != c[i].rc || (!rc && v != c[i].v))
			fprintf(stderr, "'%s': %d %llu\n", c[i].s, rc,
				(unsigned long long)v);
		T_EQ_I64(rc, c[i].rc);
		T_EQ_I64(rc ? 0 : v, c[i].v);
	}
	T_EQ_I64(lat_parse_bytes(NULL, &(uint64_t){ 0 }), -EINVAL);
}

int main(void)
{
	test_parse_bytes();
	test_u64();
	test_double();
	test_duration();
	T_DONE();
}

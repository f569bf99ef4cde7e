/*
 * Minimal test helpers: a failed check prints where and what, and the test
 * carries on so one run shows every failure. Exit 0 pass, 1 fail, 77 skip.
 */
#ifndef LATLAB_T_TEST_H
#define LATLAB_T_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

static int t_failures;

#define T_CHECK(cond)                                                        \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			t_failures++;                                        \
		}                                                            \
	} while (0)

#define T_EQ_I64(a, b)                                                       \
	do {                                                                 \
		int64_t t_a_ = (int64_t)(a), t_b_ = (int64_t)(b);            \
		if (t_a_ != t_b_) {                                          \
			fprintf(stderr, "%s:%d: %s == %s failed: %" PRId64   \
				" != %" PRId64 "\n", __FILE__, __LINE__, #a, \
				#b, t_a_, t_b_);                             \
			t_failures++;                                        \
		}                                                            \
	} while (0)

#define T_NEAR(a, b, tol)                                                    \
	do {                                                                 \
		double t_a_ = (double)(a), t_b_ = (double)(b);               \
		if (!(t_a_ - t_b_ <= (tol) && t_b_ - t_a_ <= (tol))) {       \
			fprintf(stderr, "%s:%d: |%s - %s| <= %s failed: "    \
				"%.17g vs %.17g\n", __FILE__, __LINE__, #a,  \
				#b, #tol, t_a_, t_b_);                       \
			t_failures++;                                        \
		}                                                            \
	} while (0)

/* Skip the whole test with a reason that ctest's output shows. */
#define T_SKIP(...)                                                          \
	do {                                                                 \
		printf("SKIP: ");                                            \
		printf(__VA_ARGS__);                                         \
		printf("\n");                                                \
		exit(T_EXIT_SKIP);                                           \
	} while (0)

#define T_DONE()                                                             \
	do {                                                                 \
		if (t_failures)                                              \
			fprintf(stderr, "%d check(s) failed\n", t_failures); \
		return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;               \
	} while (0)

#endif

/*
 * Description: a program that links liblatlab.a, and not the opt-in
 * counting allocator, gets glibc's malloc: the malloc it calls lives in
 * libc's shared object (dladdr), not in the program, and lat_alloc says
 * counting is unavailable because the counter is not linked. (This test
 * is built without latlab_alloccount: the "_plain" in its name.)
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/alloccount.h"
#include "latlab/hist.h"
#include "t_test.h"

int main(void)
{
	void *(*volatile do_malloc)(size_t) = malloc;
	void *(*fn)(size_t);
	struct lat_alloc_counts c;
	const char *why = NULL;
	struct lat_hist *h = NULL;
	Dl_info info;
	void *p, *addr;

#ifdef LATLAB_SANITIZED
	T_SKIP("sanitizer build: the sanitizer runtime owns malloc");
#endif
	/* use the library, so it is really linked in */
	T_EQ_I64(lat_hist_create(1, 1000, 3, &h), 0);
	lat_hist_free(h);
	/* a function's address as data, without a cast ISO C forbids */
	fn = do_malloc;
	memcpy(&addr, &fn, sizeof(addr));
	T_CHECK(dladdr(addr, &info) != 0);
	T_CHECK(info.dli_fname && strstr(info.dli_fname, "libc.so"));
	p = do_malloc(32);
	T_CHECK(p != NULL);
	free(p);
	T_CHECK(!lat_alloc_available(&why));
	T_CHECK(why && strstr(why, "not linked"));
	T_EQ_I64(lat_alloc_snapshot(&c), -LAT_EUNSUPP);
	T_DONE();
}

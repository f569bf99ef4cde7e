/*
 * Description: lat_outfile_check and lat_outfile_dir refuse, before any
 * run, an output that cannot be written or would overwrite an input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/outfile.h"
#include "t_test.h"

static char dir[] = "/tmp/t_outfile_check.XXXXXX";

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

int main(void)
{
	char in[256], out[256], same[256], sub[256], deep[256], longp[8192];
	const char *inputs[2] = { NULL, in };
	FILE *f;

	if (!mkdtemp(dir))
		T_SKIP("no temporary directory");
	path(in, sizeof(in), "in.hlog");
	path(out, sizeof(out), "out.svg");
	path(sub, sizeof(sub), "sub");
	path(deep, sizeof(deep), "nodir/x.svg");
	f = fopen(in, "w");
	T_CHECK(f && fputs("x\n", f) >= 0 && !fclose(f));
	/* the input by another name: same directory, same last component */
	snprintf(same, sizeof(same), "%s/./in.hlog", dir);

	T_EQ_I64(lat_outfile_check(out, inputs, 2), 0); /* a new file */
	T_EQ_I64(lat_outfile_check(in, NULL, 0), 0);    /* one to replace */
	T_EQ_I64(lat_outfile_check(in, inputs, 2), -EEXIST);
	T_EQ_I64(lat_outfile_check(same, inputs, 2), -EEXIST);
	/* not created yet, still the same name as another output */
	T_EQ_I64(lat_outfile_check(out, (const char *[]){ out }, 1), -EEXIST);
	T_EQ_I64(lat_outfile_check("", NULL, 0), -ENOENT);
	T_EQ_I64(lat_outfile_check(deep, NULL, 0), -ENOENT);
	T_EQ_I64(lat_outfile_check(dir, NULL, 0), -EISDIR);
	T_EQ_I64(lat_outfile_check("/dev/null", NULL, 0), -EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	T_EQ_I64(lat_outfile_check(longp, NULL, 0), -ENAMETOOLONG);
	/* nothing was created by any check */
	T_CHECK(access(out, F_OK) != 0);
	/* a bare name is a new file in the working directory */
	T_CHECK(!chdir(dir));
	T_EQ_I64(lat_outfile_check("out.svg", NULL, 0), 0);
	T_EQ_I64(lat_outfile_check("in.hlog", inputs, 2), -EEXIST);

	T_EQ_I64(lat_outfile_dir(sub), 0); /* made */
	T_EQ_I64(lat_outfile_dir(sub), 0); /* there already */
	T_EQ_I64(lat_outfile_dir(in), -ENOTDIR);
	T_EQ_I64(lat_outfile_dir(deep), -ENOENT);
	if (geteuid() != 0) { /* root writes anywhere */
		T_CHECK(!chmod(sub, 0500));
		T_EQ_I64(lat_outfile_dir(sub), -EACCES);
		path(out, sizeof(out), "sub/x.svg");
		T_EQ_I64(lat_outfile_check(out, NULL, 0), -EACCES);
	}
	chmod(sub, 0700);
	rmdir(sub);
	unlink(in);
	rmdir(dir);
	T_DONE();
}

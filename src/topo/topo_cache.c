/*
 * lat_topo caches: what sysfs says about one CPU's data caches (sizes,
 * line, sharing), for whoever names a measurement after them. Tolerant of
 * missing files (a VM may expose no cache directory at all); strict about
 * a size that does not parse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/sysfile.h"
#include "latlab/parse.h"
#include "latlab/topo.h"

#define SYSFS_CPU "/sys/devices/system/cpu"

/* First line of <dir>/<name> into @buf without the newline; 0 or -errno. */
static int read_line(const char *dir, const char *name, char *buf,
		     size_t len)
{
	int rc = lat_sysfile_read(buf, len, 1, "%s/%s", dir, name);

	return rc < 0 ? rc : 0;
}

static int cmp_cache(const void *a, const void *b)
{
	const struct lat_topo_cache *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->level - y->level;
}

int lat_topo_caches_load(struct lat_topo_caches *c, const char *sysfs_root,
			 int cpu)
{
	bool set[LAT_TOPO_MAX_CPUS]; /* 1 KiB */
	const char *root = sysfs_root ? sysfs_root : SYSFS_CPU;
	char dir[400], buf[256];

	if (!c || cpu < 0 || cpu >= LAT_TOPO_MAX_CPUS)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 32 && c->n < LAT_TOPO_MAX_CACHES; i++) {
		struct lat_topo_cache *k = &c->c[c->n];
		int rc;

		snprintf(dir, sizeof(dir), "%s/cpu%d/cache/index%d", root, cpu,
			 i);
		if (read_line(dir, "level", buf, sizeof(buf)))
			continue; /* indices may have holes */
		k->level = atoi(buf);
		if (read_line(dir, "type", k->type, sizeof(k->type)) ||
		    !strcmp(k->type, "Instruction"))
			continue;
		if (read_line(dir, "size", buf, sizeof(buf)))
			continue;
		/* "32K", "1024K", "32M", "512" (bytes) */
		if (lat_parse_bytes(buf, &k->size) || !k->size)
			return -LAT_EFORMAT;
		if (!read_line(dir, "coherency_line_size", buf, sizeof(buf)))
			k->line = atoi(buf);
		if (!read_line(dir, "shared_cpu_list", buf, sizeof(buf))) {
			rc = lat_topo_list_parse(buf, set);
			k->shared_cpus = rc > 0 ? rc : 0;
		}
		c->n++;
	}
	qsort(c->c, (size_t)c->n, sizeof(c->c[0]), cmp_cache);
	return 0;
}

uint64_t lat_topo_caches_llc(const struct lat_topo_caches *c)
{
	return c->n ? c->c[c->n - 1].size : 0;
}

const char *lat_topo_cache_name(const struct lat_topo_caches *c, int i)
{
	static const char *const names[] = { "L?", "L1d", "L2", "L3", "L4",
					     "L5" };
	int level;

	if (!c || i < 0 || i >= c->n)
		return "L?";
	level = c->c[i].level;
	if (level == 1 && strcmp(c->c[i].type, "Data"))
		return "L1";
	return level >= 1 && level <= 5 ? names[level] : "L?";
}

/*
 * CPU topology from sysfs and the affinity mask; hot-thread placement.
 * Reading is tolerant of files that do not exist (a VM may lack cache or
 * topology files) but not of files that could not be read: an fopen that
 * fails with ENOMEM or EMFILE is not a missing file, and guessing then
 * would place threads on the wrong cores without a word. Placement is
 * deterministic so tests on fake sysfs trees can assert exact CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/topo.h"

#define DEFAULT_ROOT "/sys/devices/system/cpu"

/*
 * Read a small sysfs file into @buf; 0, or -errno. A read error is an
 * error too (sysfs reports a failed attribute read that way).
 */
static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	int rc = 0;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	if (ferror(f))
		rc = errno ? -errno : -EIO;
	buf[n] = '\0';
	fclose(f);
	return rc;
}

/*
 * The file is absent: the kernel or VM does not provide it, which the
 * reader tolerates. Anything else (ENOMEM, EMFILE, EACCES, EIO) is a
 * failure to read what exists and goes back to the caller.
 */
static bool absent(int rc)
{
	return rc == -ENOENT || rc == -ENOTDIR;
}

/* Tolerated: absent or unparsable (a value this reader cannot use). */
static bool tolerable(int rc)
{
	return !rc || absent(rc) || rc == -LAT_EFORMAT;
}

static int read_int(const char *path, int *out)
{
	char buf[64], *end;
	long v;
	int rc = read_file(path, buf, sizeof(buf));

	if (rc)
		return rc;
	v = strtol(buf, &end, 10);
	if (end == buf || v < -1 || v > 1000000)
		return -LAT_EFORMAT;
	*out = (int)v;
	return 0;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static int parse_cpu(const char **s, long *out)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -LAT_EFORMAT;
	*out = strtol(*s, &end, 10);
	*s = end;
	return *out >= LAT_TOPO_MAX_CPUS ? -ERANGE : 0;
}

/*
 * Walk a CPU list, calling @add for every CPU in order. Returns 0 or the
 * first error (syntax, range, or what @add returned).
 */
static int list_walk(const char *s, int (*add)(void *ctx, int cpu),
		     void *ctx)
{
	int rc;

	s = skip_space(s);
	while (*s) {
		long lo, hi;

		if ((rc = parse_cpu(&s, &lo)))
			return rc;
		hi = lo;
		if (*s == '-') {
			s++;
			if ((rc = parse_cpu(&s, &hi)))
				return rc;
			if (hi < lo)
				return -LAT_EFORMAT;
		}
		for (long c = lo; c <= hi; c++)
			if ((rc = add(ctx, (int)c)))
				return rc;
		s = skip_space(s);
		if (*s == ',')
			s = skip_space(s + 1);
		else if (*s)
			return -LAT_EFORMAT;
	}
	return 0;
}

struct set_ctx {
	bool *set;
	int count;
};

static int add_to_set(void *ctx, int cpu)
{
	struct set_ctx *c = ctx;

	if (!c->set[cpu]) {
		c->set[cpu] = true;
		c->count++;
	}
	return 0;
}

int lat_topo_list_parse(const char *s, bool *set)
{
	struct set_ctx c = { set, 0 };
	int rc;

	memset(set, 0, LAT_TOPO_MAX_CPUS * sizeof(*set));
	rc = list_walk(s, add_to_set, &c);
	return rc ? rc : c.count;
}

struct seq_ctx {
	int *out;
	int max, count;
};

static int add_to_seq(void *ctx, int cpu)
{
	struct seq_ctx *c = ctx;

	if (c->count == c->max)
		return -E2BIG;
	c->out[c->count++] = cpu;
	return 0;
}

int lat_topo_list_parse_seq(const char *s, int *out, int max)
{
	struct seq_ctx c = { out, max, 0 };
	int rc = list_walk(s, add_to_seq, &c);

	return rc ? rc : c.count;
}

char *lat_topo_list_format(const bool *set, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++) {
		int hi = c;
		int n;

		if (!set[c])
			continue;
		while (hi + 1 < LAT_TOPO_MAX_CPUS && set[hi + 1])
			hi++;
		if (hi == c)
			n = snprintf(buf + used, len - used, "%s%d",
				     used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%d-%d",
				     used ? "," : "", c, hi);
		if (n < 0 || (size_t)n >= len - used)
			break; /* truncated but terminated */
		used += (size_t)n;
		c = hi;
	}
	if (!used)
		snprintf(buf, len, "-");
	return buf;
}

static int lowest(const bool *set)
{
	for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++)
		if (set[c])
			return c;
	return -1;
}

/*
 * Lowest CPU of the highest-level data or unified cache holding @cpu.
 * Returns 0 (absent files tolerated) or the -errno of an unreadable one.
 */
static int read_llc(const char *root, int cpu, int *llc, int *level)
{
	char path[512], type[32], list[4096];
	bool set[LAT_TOPO_MAX_CPUS];
	int best = 0, rc = 0;

	*llc = -1;
	for (int i = 0; i < 16; i++) {
		int lv;

		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/level",
			 root, cpu, i);
		rc = read_int(path, &lv);
		if (rc)
			break; /* the kernel numbers them 0, 1, 2, ... */
		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/type",
			 root, cpu, i);
		rc = read_file(path, type, sizeof(type));
		if (!tolerable(rc))
			break;
		if (!rc && !strncmp(type, "Instruction", 11))
			continue;
		snprintf(path, sizeof(path),
			 "%s/cpu%d/cache/index%d/shared_cpu_list", root, cpu,
			 i);
		rc = read_file(path, list, sizeof(list));
		if (!tolerable(rc))
			break;
		if (rc || lat_topo_list_parse(list, set) <= 0)
			continue;
		if (lv > best) {
			best = lv;
			*llc = lowest(set);
		}
	}
	*level = best;
	return tolerable(rc) ? 0 : rc;
}

/* One online CPU's core, package and cache; 0 or -errno (see read_llc). */
static int read_cpu(const char *root, struct lat_topo *t, int c)
{
	struct lat_topo_cpu *cpu = &t->cpu[c];
	char path[512], list[4096];
	bool set[LAT_TOPO_MAX_CPUS];
	int level, rc;

	cpu->core = c;
	snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list",
		 root, c);
	rc = read_file(path, list, sizeof(list));
	if (!tolerable(rc))
		return rc;
	if (!rc && lat_topo_list_parse(list, set) > 0 && set[c])
		cpu->core = lowest(set);
	snprintf(path, sizeof(path), "%s/cpu%d/topology/physical_package_id",
		 root, c);
	rc = read_int(path, &cpu->package);
	if (!tolerable(rc))
		return rc;
	if (rc || cpu->package < 0)
		cpu->package = 0;
	rc = read_llc(root, c, &cpu->llc, &level);
	if (rc)
		return rc;
	if (level > t->llc_level)
		t->llc_level = level;
	return 0;
}

static int affinity_mask(bool *allowed)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++)
		allowed[c] = CPU_ISSET(c, &set);
	return 0;
}

static void count(struct lat_topo *t)
{
	int on_core[LAT_TOPO_MAX_CPUS] = { 0 }; /* usable CPUs per core */

	t->n_online = t->n_usable = t->n_usable_cores = 0;
	t->n_isolated = t->n_isolated_usable = t->max_smt = 0;
	for (int c = 0; c < t->n_cpus; c++) {
		const struct lat_topo_cpu *cpu = &t->cpu[c];

		t->n_online += cpu->online;
		t->n_isolated += cpu->isolated;
		if (!cpu->online || !cpu->allowed)
			continue;
		t->n_usable++;
		t->n_isolated_usable += cpu->isolated;
		if (on_core[cpu->core]++ == 0)
			t->n_usable_cores++;
		if (on_core[cpu->core] > t->max_smt)
			t->max_smt = on_core[cpu->core];
	}
}

int lat_topo_restrict(struct lat_topo *t, const bool *set)
{
	for (int c = 0; c < t->n_cpus; c++)
		t->cpu[c].allowed &= set[c];
	count(t);
	return t->n_usable;
}

int lat_topo_load(struct lat_topo *t, const char *root, const bool *allowed)
{
	static const size_t list_len = 8192;
	bool online[LAT_TOPO_MAX_CPUS], isolated[LAT_TOPO_MAX_CPUS];
	bool mask[LAT_TOPO_MAX_CPUS];
	char path[512], *list;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!root)
		root = DEFAULT_ROOT;
	list = malloc(list_len);
	if (!list)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/online", root);
	rc = read_file(path, list, list_len);
	if (!rc && lat_topo_list_parse(list, online) <= 0)
		rc = -LAT_EFORMAT;
	if (!rc) {
		snprintf(path, sizeof(path), "%s/isolated", root);
		rc = read_file(path, list, list_len);
		if (rc || lat_topo_list_parse(list, isolated) < 0)
			memset(isolated, 0, sizeof(isolated));
		if (absent(rc))
			rc = 0;
	}
	free(list);
	if (rc)
		return rc;
	if (!allowed) {
		if ((rc = affinity_mask(mask)))
			return rc;
		allowed = mask;
	}
	for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++) {
		struct lat_topo_cpu *cpu = &t->cpu[c];

		cpu->core = c;
		cpu->llc = -1;
		cpu->online = online[c];
		cpu->allowed = allowed[c];
		cpu->isolated = isolated[c];
		if (online[c] || isolated[c])
			t->n_cpus = c + 1;
		if (online[c] && (rc = read_cpu(root, t, c)))
			return rc;
	}
	count(t);
	return 0;
}

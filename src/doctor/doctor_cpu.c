/*
 * The CPU group's readers: online and isolated CPUs, SMT, the default
 * placement of the hot threads, cpufreq, cpuidle, NUMA, and the device
 * interrupts that can land on the CPUs the hot threads would use.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_int.h"
#include "latlab/sysfile.h"

#define CPU_DIR "%s/sys/devices/system/cpu"

/* The value of "<key>=" on the kernel command line, or "". */
static void cmdline_value(const char *root, const char *key, char *out,
			  size_t len)
{
	char line[4096];
	size_t k = strlen(key);

	out[0] = '\0';
	if (lat_sysfile_read(line, sizeof(line), 1, "%s/proc/cmdline",
			     root) < 0)
		return;
	for (char *s = line, *tok; (tok = strtok_r(s, " ", &s));)
		if (!strncmp(tok, key, k) && tok[k] == '=')
			snprintf(out, len, "%s", tok + k + 1);
}

static void read_isolation(struct lat_doctor_facts *f, const char *root)
{
	int rc;

	rc = lat_sysfile_read(f->online, sizeof(f->online), 1,
			      CPU_DIR "/online", root);
	if (rc < 0)
		f->online[0] = '\0';
	if (lat_sysfile_read(f->isolated, sizeof(f->isolated), 1,
			     CPU_DIR "/isolated", root) < 0)
		f->isolated[0] = '\0';
	/* the file exists only with CONFIG_NO_HZ_FULL; fall back to what
	 * was asked for at boot */
	if (lat_sysfile_read(f->nohz_full, sizeof(f->nohz_full), 1,
			     CPU_DIR "/nohz_full", root) < 0)
		cmdline_value(root, "nohz_full", f->nohz_full,
			      sizeof(f->nohz_full));
	if (!strcmp(f->nohz_full, "(null)"))
		f->nohz_full[0] = '\0';
	cmdline_value(root, "rcu_nocbs", f->rcu_nocbs, sizeof(f->rcu_nocbs));
}

static void read_place(struct lat_doctor_facts *f)
{
	bool set[LAT_TOPO_MAX_CPUS] = { false };

	f->place_err = f->topo_err ? f->topo_err
				   : lat_topo_place(&f->topo, f->hot_threads,
						    &f->place);
	if (f->place_err)
		return;
	for (int i = 0; i < f->place.n; i++)
		set[f->place.cpu[i]] = true;
	lat_topo_list_format(set, f->hot_cpus, sizeof(f->hot_cpus));
}

static void read_freq(struct lat_doctor_facts *f, const char *root, int cpu)
{
	int64_t v;

	if (lat_sysfile_read(f->governor, sizeof(f->governor), 1,
			     CPU_DIR "/cpu%d/cpufreq/scaling_governor", root,
			     cpu) < 0)
		f->governor[0] = '\0';
	f->boost = -1;
	if (!lat_sysfile_i64(&v, CPU_DIR "/cpufreq/boost", root))
		f->boost = v != 0;
	else if (!lat_sysfile_i64(&v, CPU_DIR "/intel_pstate/no_turbo", root))
		f->boost = v == 0;
}

/* The idle states of @cpu into @f; the slowest enabled exit latency. */
static unsigned read_idle_cpu(struct lat_doctor_facts *f, const char *root,
			      int cpu)
{
	unsigned worst = 0;

	f->n_idle = 0;
	for (int k = 0; k < LAT_DOCTOR_MAX_IDLE; k++) {
		int64_t lat, dis;
		char *name = f->idle[k].name;

		if (lat_sysfile_read(name, sizeof(f->idle[k].name), 1,
				     CPU_DIR "/cpu%d/cpuidle/state%d/name",
				     root, cpu, k) < 0)
			break;
		f->cpuidle_present = true;
		if (lat_sysfile_i64(&lat, CPU_DIR "/cpu%d/cpuidle/state%d/"
				    "latency", root, cpu, k) || lat < 0)
			lat = 0;
		if (lat_sysfile_i64(&dis, CPU_DIR "/cpu%d/cpuidle/state%d/"
				    "disable", root, cpu, k))
			dis = 0;
		f->idle[k].latency_us = (unsigned)(lat > 1000000000 ? 1000000000
								   : lat);
		f->idle[k].disabled = dis != 0;
		if (!f->idle[k].disabled && f->idle[k].latency_us > worst)
			worst = f->idle[k].latency_us;
		f->n_idle = k + 1;
	}
	return worst;
}

/* Of the hot CPUs (CPU 0 without a placement), keep the slowest to wake. */
static void read_idle(struct lat_doctor_facts *f, const char *root)
{
	int n = f->place_err ? 1 : f->place.n, worst_cpu = -1;
	unsigned worst = 0;

	for (int i = 0; i < n; i++) {
		int cpu = f->place_err ? 0 : f->place.cpu[i];
		unsigned w = read_idle_cpu(f, root, cpu);

		if (worst_cpu < 0 || w > worst) {
			worst = w;
			worst_cpu = cpu;
		}
	}
	f->idle_cpu = worst_cpu;
	read_idle_cpu(f, root, worst_cpu);
}

static int count_list(const char *list, bool *set)
{
	return lat_topo_list_parse(list, set);
}

static void read_numa(struct lat_doctor_facts *f, const char *root)
{
	bool nodes[LAT_TOPO_MAX_CPUS], cpus[LAT_TOPO_MAX_CPUS];
	char list[512];
	int rc;

	f->numa_nodes = f->numa_nodes_hot = -1;
	rc = lat_sysfile_read(list, sizeof(list), 1,
			      "%s/sys/devices/system/node/online", root);
	if (rc < 0) {
		doctor_why(f->why_numa, "/sys/devices/system/node/online", rc);
		return;
	}
	f->numa_nodes = count_list(list, nodes);
	if (f->numa_nodes < 0) {
		doctor_why(f->why_numa, "/sys/devices/system/node/online",
			   f->numa_nodes);
		return;
	}
	if (f->place_err)
		return;
	f->numa_nodes_hot = 0;
	for (int n = 0; n < LAT_TOPO_MAX_CPUS; n++) {
		bool hit = false;

		if (!nodes[n] ||
		    lat_sysfile_read(list, sizeof(list), 1,
				     "%s/sys/devices/system/node/node%d/cpulist",
				     root, n) < 0 ||
		    count_list(list, cpus) < 0)
			continue;
		for (int i = 0; i < f->place.n; i++)
			hit |= cpus[f->place.cpu[i]];
		f->numa_nodes_hot += hit;
	}
}

void doctor_read_cpus(struct lat_doctor_facts *f, const char *root,
		      const bool *allowed)
{
	char dir[1024];

	snprintf(dir, sizeof(dir), CPU_DIR, root);
	f->topo_err = lat_topo_load(&f->topo, dir, allowed);
	if (f->topo_err)
		doctor_why(f->why_topo, "/sys/devices/system/cpu/online",
			   f->topo_err);
	read_isolation(f, root);
	{
		int64_t v;

		f->smt_active = lat_sysfile_i64(&v, CPU_DIR "/smt/active",
						root) ? -1 : (int)(v != 0);
	}
	read_place(f);
	read_freq(f, root, f->place_err ? 0 : f->place.cpu[0]);
	read_idle(f, root);
	read_numa(f, root);
}

/* Keep @irq among the busiest LAT_DOCTOR_MAX_IRQS, busiest first. */
static void keep_irq(struct lat_doctor_facts *f,
		     const struct lat_doctor_irq *irq)
{
	int i = f->n_irqs < LAT_DOCTOR_MAX_IRQS ? f->n_irqs
						: LAT_DOCTOR_MAX_IRQS - 1;

	f->irq_total_on_hot += irq->count_on_hot;
	if (f->n_irqs >= LAT_DOCTOR_MAX_IRQS &&
	    irq->count_on_hot <= f->irq[i].count_on_hot) {
		f->n_irqs++;
		return;
	}
	for (; i > 0 && f->irq[i - 1].count_on_hot < irq->count_on_hot; i--)
		f->irq[i] = f->irq[i - 1];
	f->irq[i] = *irq;
	f->n_irqs++;
}

/* Can IRQ @n be sent to a hot CPU now? Unreadable affinity: assume so. */
static bool affine_to_hot(const struct lat_doctor_facts *f, const char *root,
			  int n, const bool *hot)
{
	bool set[LAT_TOPO_MAX_CPUS];
	char list[512];

	if (lat_sysfile_read(list, sizeof(list), 1,
			     "%s/proc/irq/%d/smp_affinity_list", root, n) < 0 ||
	    count_list(list, set) < 0)
		return true;
	(void)f;
	for (int c = 0; c < LAT_TOPO_MAX_CPUS; c++)
		if (set[c] && hot[c])
			return true;
	return false;
}

/* One numbered line of /proc/interrupts. */
static void parse_irq_line(struct lat_doctor_facts *f, const char *root,
			   char *line, const int *col_cpu, int ncols,
			   const bool *hot)
{
	struct lat_doctor_irq irq = { 0 };
	char *s = line, *end, *name;
	long n = strtol(s, &end, 10);

	if (end == s || *end != ':' || n < 0)
		return; /* NMI:, LOC:, ... are not devices */
	s = end + 1;
	for (int c = 0; c < ncols; c++) {
		unsigned long long v = strtoull(s, &end, 10);

		if (end == s)
			break;
		if (col_cpu[c] >= 0 && col_cpu[c] < LAT_TOPO_MAX_CPUS &&
		    hot[col_cpu[c]])
			irq.count_on_hot += v;
		s = end;
	}
	if (!irq.count_on_hot || !affine_to_hot(f, root, (int)n, hot))
		return;
	irq.irq = (int)n;
	end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	name = strrchr(s, ' ');
	snprintf(irq.name, sizeof(irq.name), "%s", name ? name + 1 : s);
	keep_irq(f, &irq);
}

void doctor_read_irqs(struct lat_doctor_facts *f, const char *root)
{
	bool hot[LAT_TOPO_MAX_CPUS] = { false };
	int col_cpu[LAT_TOPO_MAX_CPUS], ncols = 0;
	char line[16384], path[1024];
	FILE *in;

	if (f->place_err) {
		doctor_why(f->why_irq, "the placement", f->place_err);
		return;
	}
	for (int i = 0; i < f->place.n; i++)
		hot[f->place.cpu[i]] = true;
	snprintf(path, sizeof(path), "%s/proc/interrupts", root);
	in = fopen(path, "r");
	if (!in) {
		doctor_why(f->why_irq, "/proc/interrupts", -errno);
		return;
	}
	/* the header names the columns: "CPU0 CPU1 ..." (online ones) */
	if (fgets(line, sizeof(line), in))
		for (char *s = line; (s = strstr(s, "CPU")) &&
				     ncols < LAT_TOPO_MAX_CPUS; s += 3)
			col_cpu[ncols++] = atoi(s + 3);
	if (!ncols)
		doctor_why(f->why_irq, "/proc/interrupts", -LAT_EFORMAT);
	/* a line longer than the buffer is read in pieces; a piece that
	 * does not start with "<n>:" is skipped by the parser */
	while (ncols && fgets(line, sizeof(line), in))
		parse_irq_line(f, root, line, col_cpu, ncols, hot);
	fclose(in);
}

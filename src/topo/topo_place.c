/*
 * Placement of hot threads and pinning. The policy (see topo.h) is a sort
 * of the usable CPUs into one preference order, then a deterministic
 * packing of the threads onto that order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "latlab/topo.h"

struct core_rank {
	int core;      /* lowest sibling */
	int isolated;  /* core has a usable isolated CPU */
	int cpu0;      /* the core holds CPU 0 (housekeeping, interrupts) */
	int llc_rank;  /* rank of its last-level cache */
};

static bool usable(const struct lat_topo *t, int c)
{
	return c >= 0 && c < t->n_cpus && t->cpu[c].online &&
	       t->cpu[c].allowed;
}

static int cmp_core(const struct core_rank *a, const struct core_rank *b)
{
	if (a->isolated != b->isolated)
		return b->isolated - a->isolated;
	if (a->cpu0 != b->cpu0)
		return a->cpu0 - b->cpu0;
	if (a->llc_rank != b->llc_rank)
		return a->llc_rank - b->llc_rank;
	return a->core - b->core;
}

/*
 * Rank last-level caches: most usable isolated cores first, then most
 * usable cores off CPU 0, so that a pipeline fits in one cache domain
 * when any domain can hold it. @rank is indexed by llc id + 1 (-1 =
 * unknown shares slot 0).
 */
static void rank_llcs(const struct lat_topo *t, int *rank)
{
	int iso[LAT_TOPO_MAX_CPUS + 1] = { 0 }, good[LAT_TOPO_MAX_CPUS + 1];
	bool seen[LAT_TOPO_MAX_CPUS + 1] = { false };
	int ids[LAT_TOPO_MAX_CPUS + 1], n = 0;

	memset(good, 0, sizeof(good));
	for (int c = 0; c < t->n_cpus; c++) {
		const struct lat_topo_cpu *cpu = &t->cpu[c];
		int k = cpu->llc + 1;

		if (!usable(t, c) || cpu->core != c)
			continue; /* count each core once, by its first CPU */
		if (!seen[k]) {
			seen[k] = true;
			ids[n++] = k;
		}
		for (int s = c; s < t->n_cpus; s++)
			if (usable(t, s) && t->cpu[s].core == c &&
			    t->cpu[s].isolated) {
				iso[k]++;
				break;
			}
		good[k] += c != 0;
	}
	/* insertion sort of the few cache domains */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			int a = ids[j - 1], b = ids[j];
			bool swap = iso[b] > iso[a] ||
				    (iso[b] == iso[a] && good[b] > good[a]);

			if (!swap)
				break;
			ids[j - 1] = b;
			ids[j] = a;
		}
	for (int i = 0; i < n; i++)
		rank[ids[i]] = i;
}

/* Sibling preference inside a core: isolated, then not CPU 0, then low. */
static bool sibling_before(const struct lat_topo *t, int a, int b)
{
	if (t->cpu[a].isolated != t->cpu[b].isolated)
		return t->cpu[a].isolated;
	if ((a == 0) != (b == 0))
		return b == 0;
	return a < b;
}

/*
 * Fill @order with every usable CPU, best first: one CPU of each ranked
 * core, then the second sibling of each core, and so on. Returns the count.
 */
static int preference_order(const struct lat_topo *t, int *order)
{
	struct core_rank cores[LAT_TOPO_MAX_CPUS];
	int llc_rank[LAT_TOPO_MAX_CPUS + 1];
	int n_cores = 0, n = 0;
	bool taken[LAT_TOPO_MAX_CPUS] = { false };

	rank_llcs(t, llc_rank);
	for (int c = 0; c < t->n_cpus; c++) {
		struct core_rank r = { .core = c, .isolated = 0 };
		int i;

		if (!usable(t, c))
			continue;
		/* a core's first usable CPU registers it */
		for (i = 0; i < n_cores; i++)
			if (cores[i].core == t->cpu[c].core)
				break;
		if (i < n_cores) {
			cores[i].isolated |= t->cpu[c].isolated;
			continue;
		}
		r.core = t->cpu[c].core;
		r.isolated = t->cpu[c].isolated;
		r.cpu0 = r.core == 0 || c == 0;
		r.llc_rank = llc_rank[t->cpu[c].llc + 1];
		cores[n_cores++] = r;
	}
	for (int i = 1; i < n_cores; i++)
		for (int j = i; j > 0 && cmp_core(&cores[j], &cores[j - 1]) < 0;
		     j--) {
			struct core_rank tmp = cores[j];

			cores[j] = cores[j - 1];
			cores[j - 1] = tmp;
		}
	for (int before = -1; n < t->n_usable && n > before;) {
		before = n;
		for (int i = 0; i < n_cores; i++) {
			int best = -1;

			for (int c = 0; c < t->n_cpus; c++)
				if (usable(t, c) && !taken[c] &&
				    t->cpu[c].core == cores[i].core &&
				    (best < 0 || sibling_before(t, c, best)))
					best = c;
			if (best >= 0) {
				taken[best] = true;
				order[n++] = best;
			}
		}
	}
	return n;
}

/*
 * @n threads onto @m CPUs in preference order. Short of CPUs, thread 0
 * (the producer, which busy-waits for its send times) keeps the first CPU
 * alone, and the others are packed in contiguous runs so that pipeline
 * neighbours share a CPU (a handoff on one CPU moves no cache line).
 */
static void pack(const int *order, int m, int n, int *out)
{
	if (m >= n) {
		memcpy(out, order, (size_t)n * sizeof(*out));
		return;
	}
	out[0] = order[0];
	for (int j = 1; j < n; j++)
		out[j] = m == 1 ? order[0]
				: order[1 + (j - 1) * (m - 1) / (n - 1)];
}

static void describe(const struct lat_topo *t, struct lat_topo_place *p)
{
	bool cpu_used[LAT_TOPO_MAX_CPUS] = { false };
	bool core_used[LAT_TOPO_MAX_CPUS] = { false };
	int first_llc = t->cpu[p->cpu[0]].llc;

	p->n_cpus_used = p->n_cores_used = 0;
	for (int i = 0; i < p->n; i++) {
		const struct lat_topo_cpu *cpu = &t->cpu[p->cpu[i]];

		if (cpu_used[p->cpu[i]])
			p->flags |= LAT_TOPO_SHARED_CPU;
		else if (core_used[cpu->core])
			p->flags |= LAT_TOPO_SMT;
		if (!cpu_used[p->cpu[i]])
			p->n_cpus_used++;
		if (!core_used[cpu->core])
			p->n_cores_used++;
		cpu_used[p->cpu[i]] = core_used[cpu->core] = true;
		if (p->cpu[i] == 0)
			p->flags |= LAT_TOPO_CPU0;
		if (cpu->llc != first_llc)
			p->flags |= LAT_TOPO_CROSS_LLC;
		if (t->n_isolated_usable && !cpu->isolated)
			p->flags |= LAT_TOPO_NOT_ISOLATED;
	}
	if (t->n_isolated && !t->n_isolated_usable)
		p->flags |= LAT_TOPO_ISOLATED_OUTSIDE;
}

int lat_topo_place(const struct lat_topo *t, int n, struct lat_topo_place *p)
{
	int order[LAT_TOPO_MAX_CPUS];
	int m;

	memset(p, 0, sizeof(*p));
	if (n < 1 || n > LAT_TOPO_MAX_HOT)
		return -EINVAL;
	m = preference_order(t, order);
	if (!m)
		return -ENODEV;
	p->n = n;
	pack(order, m, n, p->cpu);
	describe(t, p);
	return 0;
}

int lat_topo_place_cpus(const struct lat_topo *t, const int *cpus,
			int n_cpus, int n, struct lat_topo_place *p,
			int *bad_cpu)
{
	memset(p, 0, sizeof(*p));
	if (n < 1 || n > LAT_TOPO_MAX_HOT || n_cpus < 1)
		return -EINVAL;
	for (int i = 0; i < n_cpus; i++)
		if (!usable(t, cpus[i])) {
			if (bad_cpu)
				*bad_cpu = cpus[i];
			return -ESRCH;
		}
	p->n = n;
	pack(cpus, n_cpus, n, p->cpu);
	p->flags = LAT_TOPO_CHOSEN;
	describe(t, p);
	return 0;
}

const char *lat_topo_flag_text(unsigned flag)
{
	switch (flag) {
	case LAT_TOPO_SHARED_CPU:
		return "hot threads share logical CPUs: numbers include "
		       "scheduler hand-offs";
	case LAT_TOPO_SMT:
		return "hot threads on SMT siblings share one physical core";
	case LAT_TOPO_CPU0:
		return "a hot thread is on CPU 0, which also serves "
		       "housekeeping interrupts";
	case LAT_TOPO_CROSS_LLC:
		return "hot threads span last-level caches: hand-offs cross "
		       "cache domains";
	case LAT_TOPO_NOT_ISOLATED:
		return "a hot thread runs on a non-isolated CPU although "
		       "isolated CPUs are usable";
	case LAT_TOPO_ISOLATED_OUTSIDE:
		return "isolated CPUs exist but are outside the affinity mask "
		       "(run under taskset -c to use them)";
	case LAT_TOPO_CHOSEN:
		return "CPUs chosen by the user";
	default:
		return NULL;
	}
}

int lat_topo_usable_cpus(const struct lat_topo *t, int *cpus, int cap)
{
	int n = 0;

	for (int c = 0; c < t->n_cpus; c++)
		if (usable(t, c) && n++ < cap)
			cpus[n - 1] = c;
	return n;
}

int lat_topo_unused_cpu(const struct lat_topo *t,
			const struct lat_topo_place *p)
{
	for (int c = 0; c < t->n_cpus; c++) {
		bool used = false;

		if (!t->cpu[c].online || !t->cpu[c].allowed)
			continue;
		for (int i = 0; i < p->n; i++)
			used |= p->cpu[i] == c;
		if (!used)
			return c;
	}
	return -1;
}

int lat_topo_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= LAT_TOPO_MAX_CPUS)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int lat_topo_current_cpu(void)
{
	return sched_getcpu();
}

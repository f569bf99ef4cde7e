/*
 * A fake sysfs CPU tree of a whole machine, for placement tests
 * (test_topo, test_pipe_place): cores, SMT, cache domains, isolated CPUs.
 */
#ifndef LATLAB_T_MACHINE_H
#define LATLAB_T_MACHINE_H

#include "t_tree.h"

/*
 * A fresh machine in @root of @cores physical cores, @smt threads each (Linux
 * numbering: sibling of core c is c + cores), @per_llc cores per
 * last-level cache (0: no cache files, as some VMs), @isolated list.
 */
static inline void t_machine(char *root, size_t root_len, int cores, int smt,
			     int per_llc, const char *isolated)
{
	char rel[128], text[128];
	int n = cores * smt;

	t_tree_new(root, root_len, "topo");
	snprintf(text, sizeof(text), "0-%d\n", n - 1);
	t_tree_put(root, "online", text);
	t_tree_put(root, "isolated", isolated);
	for (int c = 0; c < n; c++) {
		int core = c % cores;

		snprintf(rel, sizeof(rel),
			 "cpu%d/topology/thread_siblings_list", c);
		if (smt == 2)
			snprintf(text, sizeof(text), "%d,%d\n", core,
				 core + cores);
		else
			snprintf(text, sizeof(text), "%d\n", c);
		t_tree_put(root, rel, text);
		snprintf(rel, sizeof(rel), "cpu%d/topology/physical_package_id",
			 c);
		t_tree_put(root, rel, "0\n");
		if (!per_llc)
			continue;
		snprintf(rel, sizeof(rel), "cpu%d/cache/index0/level", c);
		t_tree_put(root, rel, "1\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index0/type", c);
		t_tree_put(root, rel, "Data\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index0/shared_cpu_list",
			 c);
		t_tree_put(root, rel, text);
		snprintf(rel, sizeof(rel), "cpu%d/cache/index1/level", c);
		t_tree_put(root, rel, "3\n");
		snprintf(rel, sizeof(rel), "cpu%d/cache/index1/type", c);
		t_tree_put(root, rel, "Unified\n");
		{
			int lo = core / per_llc * per_llc;
			int hi = lo + per_llc - 1;

			if (smt == 2)
				snprintf(text, sizeof(text), "%d-%d,%d-%d\n",
					 lo, hi, lo + cores, hi + cores);
			else
				snprintf(text, sizeof(text), "%d-%d\n", lo, hi);
		}
		snprintf(rel, sizeof(rel),
			 "cpu%d/cache/index1/shared_cpu_list", c);
		t_tree_put(root, rel, text);
	}
}

#endif

/*
 * Description: the pipeline's placement policy (lat_pipe_place_on) on
 * fake sysfs trees: a 2-CPU VM (consumer beside the producer, stage
 * alone, yields, aggregator slicing), the same with CPUs the user chose
 * (kept as given), machines short of CPUs for four and five hot threads,
 * and 8-core SMT and 64-core machines with a core per hot thread (own
 * cores, spinning, the aggregator on a CPU no hot thread uses).
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "latlab/pipe.h"
#include "t_machine.h"
#include "t_test.h"

static char root[256];
static struct lat_topo topo;

static void load(const char *list)
{
	static bool allowed[LAT_TOPO_MAX_CPUS];

	T_CHECK(lat_topo_list_parse(list, allowed) > 0);
	T_EQ_I64(lat_topo_load(&topo, root, allowed), 0);
}

/* Place @stages stages on the loaded topology into @c. */
static bool place(struct lat_pipe_config *c, int stages)
{
	struct lat_topo_place p;

	lat_pipe_config_init(c);
	c->stages = stages;
	T_EQ_I64(lat_topo_place(&topo, lat_pipe_n_hot(stages), &p), 0);
	return lat_pipe_place_on(c, &topo, &p, false);
}

static bool hot_uses(const struct lat_pipe_config *c, int cpu)
{
	for (int i = 0; i < lat_pipe_n_hot(c->stages); i++)
		if (c->cpu[i] == cpu)
			return true;
	return false;
}

static void test_two_cpus(void)
{
	struct lat_pipe_config c;
	struct lat_topo_place p;
	static const int chosen[] = { 1, 0, 0 };

	t_machine(root, sizeof(root), 2, 1, 0, "\n");
	load("0-1");
	T_CHECK(place(&c, 1));
	/* producer alone would leave stage and consumer taking turns; the
	 * consumer goes beside the producer instead */
	T_EQ_I64(c.cpu[0], 1);
	T_EQ_I64(c.cpu[1], 0);
	T_EQ_I64(c.cpu[2], 1);
	T_CHECK(c.pace_yield); /* the producer's CPU is shared now */
	T_EQ_I64(c.wait, LAT_WAIT_YIELD);
	T_EQ_I64(c.wait_spins, LAT_PIPE_SHARED_SPINS);
	T_EQ_I64(c.agg_cpu, -1); /* no CPU left for it */
	T_EQ_I64(c.agg_slice, LAT_PIPE_AGG_SLICE);
	T_EQ_I64(c.pace_yield_above_ns, LAT_PIPE_PACE_YIELD_NS);
	/* sharing with each other is sharing with the machine: weight and
	 * a guard per hot CPU, so another task's turn there stays short */
	T_EQ_I64(c.hot_nice, LAT_PIPE_SHARED_NICE);
	T_CHECK(c.guard_ns == LAT_PIPE_GUARD_NS);
	T_EQ_I64(lat_pipe_config_check(&c, NULL), 0);

	/* CPUs the user listed are kept as listed */
	lat_pipe_config_init(&c);
	T_EQ_I64(lat_topo_place_cpus(&topo, chosen, 3, 3, &p, NULL), 0);
	p.flags |= LAT_TOPO_CHOSEN;
	T_CHECK(lat_pipe_place_on(&c, &topo, &p, false));
	T_EQ_I64(c.cpu[0], 1);
	T_EQ_I64(c.cpu[1], 0);
	T_EQ_I64(c.cpu[2], 0);
	T_CHECK(!c.pace_yield);

	/* unpinned: nothing pinned, the aggregator neither */
	lat_pipe_config_init(&c);
	c.pin = false;
	T_EQ_I64(lat_topo_place(&topo, 3, &p), 0);
	T_CHECK(lat_pipe_place_on(&c, &topo, &p, false));
	T_EQ_I64(c.agg_cpu, -1);
	t_tree_remove(root);
}

/*
 * Five hot threads (three stages) on four CPUs: two stages share, the
 * consumer has a CPU to itself and stays there; two stages on two CPUs:
 * the consumer leaves the stages' CPU for the producer's.
 */
static void test_short_of_cpus(void)
{
	struct lat_pipe_config c;
	int last = lat_pipe_n_hot(3) - 1;

	t_machine(root, sizeof(root), 4, 1, 4, "\n");
	load("0-3");
	T_CHECK(place(&c, 3));
	for (int i = 1; i < last; i++) {
		T_CHECK(c.cpu[i] != c.cpu[0]);
		T_CHECK(c.cpu[i] != c.cpu[last]);
	}
	T_CHECK(c.cpu[last] != c.cpu[0]);
	T_CHECK(!c.pace_yield);
	T_EQ_I64(c.agg_cpu, -1);
	T_EQ_I64(c.agg_slice, LAT_PIPE_AGG_SLICE);
	t_tree_remove(root);

	t_machine(root, sizeof(root), 2, 1, 0, "\n");
	load("0-1");
	T_CHECK(place(&c, 2));
	T_EQ_I64(c.cpu[3], c.cpu[0]);
	T_CHECK(c.cpu[1] != c.cpu[0]);
	T_CHECK(c.cpu[2] != c.cpu[0]);
	T_CHECK(c.pace_yield);
	T_EQ_I64(c.hot_nice, LAT_PIPE_SHARED_NICE);
	T_CHECK(c.guard_ns == LAT_PIPE_GUARD_NS);
	t_tree_remove(root);
}

/* A core per hot thread: nothing shared, nothing moved. */
static void test_core_per_thread(int cores, int smt, int per_llc,
				 const char *list, int stages)
{
	struct lat_pipe_config c;
	int n = lat_pipe_n_hot(stages);

	t_machine(root, sizeof(root), cores, smt, per_llc, "\n");
	load(list);
	T_CHECK(!place(&c, stages));
	for (int i = 0; i < n; i++)
		for (int k = i + 1; k < n; k++)
			T_CHECK(c.cpu[i] != c.cpu[k]);
	T_EQ_I64(c.wait, LAT_WAIT_SPIN);
	T_CHECK(!c.pace_yield);
	T_EQ_I64(c.agg_slice, 0);
	/* a core each: the machine's other tasks go to the other cores,
	 * so no weight is taken from them and no guard wakes anything */
	T_EQ_I64(c.hot_nice, 0);
	T_CHECK(c.guard_ns == 0);
	/* the aggregator on a CPU of its own, away from every hot thread */
	T_CHECK(c.agg_cpu >= 0);
	T_CHECK(!hot_uses(&c, c.agg_cpu));
	T_EQ_I64(lat_pipe_config_check(&c, NULL), 0);
	printf("%d cores x %d, %d stages: hot", cores, smt, stages);
	for (int i = 0; i < n; i++)
		printf(" %d", c.cpu[i]);
	printf(", aggregator %d\n", c.agg_cpu);
	t_tree_remove(root);
}

/* The oversubscription warning: the count, the CPUs, what the wait does. */
static void test_warn(void)
{
	struct lat_pipe_config c;
	struct lat_pipe_placement pl = { .oversubscribed = false,
					 .n_usable = 2 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lat_pipe_config_init(&c);
	c.stages = 1;
	c.wait = LAT_WAIT_YIELD;
	T_CHECK(!lat_pipe_placement_warn(f, &c, &pl));
	fflush(f);
	T_EQ_I64(len, 0);
	pl.oversubscribed = true;
	T_CHECK(lat_pipe_placement_warn(f, &c, &pl));
	fclose(f);
	T_CHECK(!strcmp(buf, "3 hot threads on 2 usable CPUs: numbers "
			"include scheduler effects; wait 'yield' (a spinning "
			"wait could hold the CPU its peer needs)\n"));
	free(buf);
}

int main(void)
{
	test_warn();
	test_two_cpus();
	test_short_of_cpus();
	test_core_per_thread(8, 2, 8, "0-15", 1);
	test_core_per_thread(8, 2, 8, "0-15", 4);
	test_core_per_thread(64, 2, 8, "0-127", 1);
	test_core_per_thread(64, 2, 8, "0-127", 8);
	T_DONE();
}

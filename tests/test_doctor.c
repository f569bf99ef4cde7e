/*
 * Description: lat_doctor on fake /proc and /sys trees: a tuned-looking
 * but flawed 4-CPU machine (cgroup v2 with a half-CPU quota, THP always,
 * swap, a deep idle state, powersave, an IRQ on a hot CPU, two NUMA
 * nodes, no BTF, an unprivileged user) and an empty tree, where every
 * fact is n/a with its reason and nothing crashes. Also the judgement of
 * made-up steal figures, and that every warn and bad carries a fix.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latlab/doctor.h"
#include "t_test.h"
#include "t_tree.h"

static char root[256];
static struct lat_doctor_facts facts;
static struct lat_doctor_report rep;

static void put(const char *rel, const char *text)
{
	t_tree_put(root, rel, text);
}

static void fresh_root(void)
{
	t_tree_new(root, sizeof(root), "doctor");
}

static void rm_root(void)
{
	T_CHECK(t_tree_remove(root));
}

static enum lat_doctor_level level(const char *id)
{
	const struct lat_doctor_finding *f = lat_doctor_find(&rep, id);

	if (!f) {
		fprintf(stderr, "no finding %s\n", id);
		t_failures++;
		return (enum lat_doctor_level)-1;
	}
	return f->level;
}

static bool found_has(const char *id, const char *text)
{
	const struct lat_doctor_finding *f = lat_doctor_find(&rep, id);
	bool ok = f && strstr(f->found, text);

	if (!ok)
		fprintf(stderr, "%s: '%s' not in '%s'\n", id, text,
			f ? f->found : "(none)");
	return ok;
}

/*
 * The library does not know the CLI: a fix names latlab's flags only once
 * cmd_doctor.c adds them. Another tool's flag ("docker --cpus") is fine.
 */
static bool names_a_flag(const char *s)
{
	for (const char *p = strstr(s, "--"); p; p = strstr(p + 2, "--"))
		if (p[2] >= 'a' && p[2] <= 'z' &&
		    !(p - s >= 7 && !strncmp(p - 7, "docker ", 7)))
			return true;
	return false;
}

/* The invariants every report keeps, whatever the machine. */
static void check_report_rules(void)
{
	for (int i = 0; i < rep.n; i++) {
		const struct lat_doctor_finding *f = &rep.f[i];

		if ((f->level == LAT_DOCTOR_WARN ||
		     f->level == LAT_DOCTOR_BAD) && !*f->fix) {
			fprintf(stderr, "%s is %s without a fix\n", f->id,
				lat_doctor_level_name(f->level));
			t_failures++;
		}
		if (!*f->found) {
			fprintf(stderr, "%s found nothing\n", f->id);
			t_failures++;
		}
		if (names_a_flag(f->found) || names_a_flag(f->fix)) {
			fprintf(stderr, "%s names a CLI flag: '%s' / '%s'\n",
				f->id, f->found, f->fix);
			t_failures++;
		}
		for (int k = 0; k < i; k++)
			T_CHECK(strcmp(rep.f[k].id, f->id) != 0);
	}
	T_CHECK(rep.n >= 25);
}

static void flawed_machine(void)
{
	struct lat_doctor_opts o;
	bool allowed[LAT_TOPO_MAX_CPUS] = { true, true, true, true };

	fresh_root();
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc constant_tsc "
			    "nonstop_tsc hypervisor\n\n");
	put("sys/devices/system/clocksource/clocksource0/current_clocksource",
	    "kvm-clock\n");
	put("sys/devices/system/clocksource/clocksource0/"
	    "available_clocksource", "kvm-clock tsc hpet \n");
	put("sys/devices/system/cpu/online", "0-3\n");
	put("sys/devices/system/cpu/isolated", "2-3\n");
	put("sys/devices/system/cpu/nohz_full", "2-3\n");
	put("sys/devices/system/cpu/smt/active", "0\n");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz isolcpus=2-3 nohz_full=2-3 "
			    "rcu_nocbs=2-3 quiet\n");
	for (int c = 0; c < 4; c++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/"
			 "cpufreq/scaling_governor", c);
		put(rel, "powersave\n");
	}
	put("sys/devices/system/cpu/cpu2/cpuidle/state0/name", "POLL\n");
	put("sys/devices/system/cpu/cpu2/cpuidle/state0/latency", "0\n");
	put("sys/devices/system/cpu/cpu2/cpuidle/state0/disable", "0\n");
	put("sys/devices/system/cpu/cpu2/cpuidle/state1/name", "C6\n");
	put("sys/devices/system/cpu/cpu2/cpuidle/state1/latency", "133\n");
	put("sys/devices/system/cpu/cpu2/cpuidle/state1/disable", "0\n");
	put("proc/interrupts",
	    "           CPU0       CPU1       CPU2       CPU3\n"
	    "  0:         40          0          0          0   IO-APIC   "
	    "2-edge      timer\n"
	    " 30:          0          0       5000          0   PCI-MSI   "
	    "nvme0q1\n"
	    " 31:        900         10          0          0   PCI-MSI   "
	    "eth0\n"
	    "NMI:          0          0          0          0   Non-maskable "
	    "interrupts\n"
	    "LOC:       1000       1000       1000       1000   Local timer "
	    "interrupts\n");
	put("proc/irq/30/smp_affinity_list", "2\n");
	put("proc/irq/31/smp_affinity_list", "0-1\n");
	put("sys/devices/system/node/online", "0-1\n");
	put("sys/devices/system/node/node0/cpulist", "0-1\n");
	put("sys/devices/system/node/node1/cpulist", "2-3\n");
	put("proc/self/cgroup", "0::/app\n");
	put("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 "
				   "cgroup2 rw\n");
	put("sys/fs/cgroup/app/cgroup.controllers", "cpuset cpu memory\n");
	put("sys/fs/cgroup/app/cpu.max", "50000 100000\n");
	put("sys/fs/cgroup/app/cpu.stat", "nr_periods 10\nnr_throttled 4\n"
					  "throttled_usec 1000\n");
	put("sys/fs/cgroup/app/cpuset.cpus.effective", "2-3\n");
	put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory\n");
	put("sys/fs/cgroup/cpu.max", "max 100000\n");
	put("sys/kernel/mm/transparent_hugepage/enabled",
	    "[always] madvise never\n");
	put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n"
			  "/swapfile file 1048572 0 -2\n");
	put("proc/meminfo", "MemTotal: 8000000 kB\nSwapTotal: 1048572 kB\n");
	put("proc/sys/kernel/perf_event_paranoid", "2\n");
	put("proc/self/status", "Name:\tlatlab\nUid:\t1000\t1000\t1000\t1000\n"
				"CapEff:\t0000000000000000\n");

	lat_doctor_opts_init(&o);
	o.root = root;
	o.allowed = allowed;
	o.steal_ms = 0;
	o.clock_ms = 0;
	o.probe = false;
	o.hot_threads = 2;
	T_EQ_I64(lat_doctor_gather(&facts, &o), 0);
	lat_doctor_judge(&facts, &rep);
	check_report_rules();

	/* facts */
	T_CHECK(facts.clock.constant_tsc && facts.clock.nonstop_tsc);
	T_CHECK(facts.clock.invariant);
	T_CHECK(!strcmp(facts.clock.clocksource, "kvm-clock"));
	T_EQ_I64(facts.topo.n_online, 4);
	T_CHECK(!strcmp(facts.isolated, "2-3"));
	T_CHECK(!strcmp(facts.rcu_nocbs, "2-3"));
	T_CHECK(!strcmp(facts.hot_cpus, "2-3"));
	T_EQ_I64(facts.n_irqs, 1);
	T_EQ_I64(facts.irq[0].irq, 30);
	T_EQ_I64(facts.irq[0].count_on_hot, 5000);
	T_EQ_I64(facts.numa_nodes, 2);
	T_EQ_I64(facts.numa_nodes_hot, 1);
	T_CHECK(facts.hypervisor);
	T_EQ_I64(facts.cg.version, LAT_CGROUP_V2);
	T_NEAR(facts.quota_cpus, 0.5, 1e-12);
	T_EQ_I64(facts.cg_stat.nr_throttled, 4);
	T_CHECK(!strcmp(facts.cpuset, "2-3"));
	T_CHECK(!strcmp(facts.thp, "always"));
	T_EQ_I64(facts.swap_devices, 1);
	T_EQ_I64(facts.paranoid, 2);
	T_EQ_I64(facts.uid, 1000);
	T_CHECK(facts.caps_known && facts.cap_eff == 0);
	T_CHECK(!facts.btf);
	T_EQ_I64(facts.unpriv_bpf, -1);

	/* findings */
	T_EQ_I64(level("clock.clocksource"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("clock.tsc_vs_raw"), LAT_DOCTOR_UNKNOWN);
	T_EQ_I64(level("cpu.online"), LAT_DOCTOR_OK);
	T_EQ_I64(level("cpu.isolation"), LAT_DOCTOR_OK);
	T_EQ_I64(level("cpu.frequency"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("cpu.idle"), LAT_DOCTOR_WARN);
	T_CHECK(strstr(lat_doctor_find(&rep, "cpu.idle")->fix,
		       "cpu2/cpuidle/state1/disable") != NULL);
	T_EQ_I64(level("cpu.irq"), LAT_DOCTOR_WARN);
	T_CHECK(found_has("cpu.irq", "30 nvme0q1 (5000)"));
	T_CHECK(strstr(lat_doctor_find(&rep, "cpu.irq")->fix, "0-1") != NULL);
	T_EQ_I64(level("cpu.numa"), LAT_DOCTOR_OK);
	T_EQ_I64(level("virt.hypervisor"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("virt.steal"), LAT_DOCTOR_UNKNOWN);
	T_EQ_I64(level("cgroup.quota"), LAT_DOCTOR_BAD);
	T_CHECK(found_has("cgroup.quota", "0.50 CPUs"));
	T_EQ_I64(level("cgroup.throttled"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("cgroup.cpuset"), LAT_DOCTOR_INFO);
	T_EQ_I64(level("memory.thp"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("memory.swap"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("priv.paranoid"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("priv.caps"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("priv.btf"), LAT_DOCTOR_WARN);
	T_EQ_I64(level("priv.unprivileged_bpf"), LAT_DOCTOR_UNKNOWN);
	T_CHECK(found_has("priv.unprivileged_bpf", "could not read"));
	T_EQ_I64(level("latlab.counters"), LAT_DOCTOR_UNKNOWN);
	T_CHECK(found_has("latlab.ebpf", "no:"));
	T_CHECK(found_has("latlab.placement", "cpu2"));
	/* a caller's hint goes after the fix; not onto an empty text, not
	 * onto a found text that does not say "yes", never past the end */
	{
		const struct lat_doctor_finding *f =
			lat_doctor_find(&rep, "cpu.idle");
		size_t n = strlen(f->fix);
		char big[2 * LAT_DOCTOR_TEXT_LEN];

		lat_doctor_add_hint(&rep, "cpu.idle", false, "try --spin");
		T_CHECK(strlen(f->fix) == n + strlen(" (try --spin)"));
		T_CHECK(!strcmp(f->fix + n, " (try --spin)"));
		n = strlen(lat_doctor_find(&rep, "cpu.online")->fix);
		lat_doctor_add_hint(&rep, "cpu.online", false, "x");
		T_EQ_I64(strlen(lat_doctor_find(&rep, "cpu.online")->fix), n);
		n = strlen(lat_doctor_find(&rep, "latlab.ebpf")->found);
		lat_doctor_add_hint(&rep, "latlab.ebpf", true, "x"); /* "no:" */
		T_EQ_I64(strlen(lat_doctor_find(&rep, "latlab.ebpf")->found), n);
		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		lat_doctor_add_hint(&rep, "cpu.idle", false, big);
		T_EQ_I64(strlen(f->fix), LAT_DOCTOR_TEXT_LEN - 1);
		lat_doctor_add_hint(&rep, "no.such", false, "x");
	}
	T_EQ_I64(lat_doctor_count(&rep, LAT_DOCTOR_BAD), 1);

	/* made-up steal: the thresholds */
	facts.steal_pct = 0.5;
	facts.steal_max_cpu_pct = 5;
	facts.steal_worst_cpu = 1;
	facts.steal_seconds = 1;
	lat_doctor_judge(&facts, &rep);
	T_EQ_I64(level("virt.steal"), LAT_DOCTOR_WARN);
	facts.steal_max_cpu_pct = 25;
	lat_doctor_judge(&facts, &rep);
	T_EQ_I64(level("virt.steal"), LAT_DOCTOR_BAD);
	facts.steal_pct = facts.steal_max_cpu_pct = 0.2;
	lat_doctor_judge(&facts, &rep);
	T_EQ_I64(level("virt.steal"), LAT_DOCTOR_OK);
	rm_root();
}

/* Nothing readable at all: everything n/a with a reason, no crash. */
static void empty_tree(void)
{
	struct lat_doctor_opts o;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	fresh_root();
	lat_doctor_opts_init(&o);
	o.root = root;
	o.steal_ms = 10;
	o.clock_ms = 0;
	o.probe = false;
	T_EQ_I64(lat_doctor_gather(&facts, &o), 0);
	lat_doctor_judge(&facts, &rep);
	check_report_rules();
	T_EQ_I64(level("cpu.online"), LAT_DOCTOR_UNKNOWN);
	T_CHECK(found_has("cpu.online", "could not read"));
	T_EQ_I64(level("virt.steal"), LAT_DOCTOR_UNKNOWN);
	T_CHECK(found_has("virt.steal", "/proc/stat"));
	T_EQ_I64(level("cgroup.group"), LAT_DOCTOR_UNKNOWN);
	T_EQ_I64(level("memory.thp"), LAT_DOCTOR_UNKNOWN);
	T_EQ_I64(level("priv.paranoid"), LAT_DOCTOR_UNKNOWN);
	T_EQ_I64(level("priv.caps"), LAT_DOCTOR_UNKNOWN);
	T_CHECK(lat_doctor_count(&rep, LAT_DOCTOR_UNKNOWN) >= 10);
	/* the printer shows them all */
	mem = open_memstream(&text, &len);
	T_EQ_I64(lat_doctor_print(mem, &rep), 0);
	fclose(mem);
	T_CHECK(text && strstr(text, "n/a ") && strstr(text, "summary:"));
	free(text);
	rm_root();
}

static void bad_opts(void)
{
	struct lat_doctor_opts o;

	lat_doctor_opts_init(&o);
	o.hot_threads = 0;
	T_EQ_I64(lat_doctor_gather(&facts, &o), -EINVAL);
}

int main(void)
{
	flawed_machine();
	empty_tree();
	bad_opts();
	T_DONE();
}

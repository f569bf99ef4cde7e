/*
 * lat_doctor_judge: facts to findings. Every threshold and every fix
 * lives here, so the readers stay plain and the judgement is testable on
 * made-up facts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"
#include "latlab/fmt.h"

/* TSC vs MONOTONIC_RAW: ratio changes up to this are ok, or noise. */
#define CLOCK_OK_PPM 10.0
#define CLOCK_BAD_PPM 100.0
/* Steal: share of CPU time. */
#define STEAL_WARN_PCT 1.0
#define STEAL_BAD_PCT 10.0
/* Deepest idle state's exit latency a sleeping waiter may pay. */
#define IDLE_WARN_US 10

static struct lat_doctor_finding *add(struct lat_doctor_report *r,
				      const char *group, const char *id,
				      const char *check)
{
	struct lat_doctor_finding *f;

	if (r->n >= LAT_DOCTOR_MAX_FINDINGS) /* a bug: keep the last slot */
		r->n = LAT_DOCTOR_MAX_FINDINGS - 1;
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->group = group;
	f->check = check;
	return f;
}

__attribute__((format(printf, 3, 4)))
static void say(struct lat_doctor_finding *f, enum lat_doctor_level l,
		const char *fmt, ...)
{
	va_list ap;

	f->level = l;
	va_start(ap, fmt);
	vsnprintf(f->found, sizeof(f->found), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
static void fix(struct lat_doctor_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->fix, sizeof(f->fix), fmt, ap);
	va_end(ap);
}

static void unknown(struct lat_doctor_finding *f, const char *why)
{
	say(f, LAT_DOCTOR_UNKNOWN, "%s", *why ? why : "not checked");
}

/* ---- clock ------------------------------------------------------------ */

static void judge_clock(const struct lat_doctor_facts *x,
			struct lat_doctor_report *r)
{
	const struct lat_clock_info *c = &x->clock;
	struct lat_doctor_finding *f;
	const char *cs = c->clocksource;

	f = add(r, "clock", "clock.invariant_tsc", "invariant TSC");
	if (!strcmp(c->source, "cntvct_el0"))
		say(f, LAT_DOCTOR_OK, "the generic timer runs at a fixed rate "
		    "by architecture");
	else if (c->invariant)
		say(f, LAT_DOCTOR_OK, "yes: CPUID 0x80000007 EDX[8]=%d, "
		    "constant_tsc=%d nonstop_tsc=%d tsc_reliable=%d",
		    c->invariant_cpuid, c->constant_tsc, c->nonstop_tsc,
		    c->tsc_reliable);
	else {
		say(f, LAT_DOCTOR_BAD, "no: the TSC may change speed with the "
		    "clock or stop in deep idle, and latlab converts cycles "
		    "with one ratio");
		fix(f, "measure on a CPU whose TSC is invariant (flags "
		    "constant_tsc and nonstop_tsc in /proc/cpuinfo)");
	}

	f = add(r, "clock", "clock.clocksource", "kernel clocksource");
	if (!strcmp(cs, "unknown") || !*cs)
		unknown(f, "could not read /sys/devices/system/clocksource/"
			   "clocksource0/current_clocksource");
	else if (c->kernel_uses_counter)
		say(f, LAT_DOCTOR_OK, "%s (available: %s)", cs,
		    *x->clocksources ? x->clocksources : "?");
	else {
		bool slow = !strcmp(cs, "hpet") || !strcmp(cs, "acpi_pm") ||
			    !strcmp(cs, "jiffies");

		say(f, slow ? LAT_DOCTOR_BAD : LAT_DOCTOR_WARN,
		    "%s (available: %s): clock_gettime reads %s, not the "
		    "counter latlab stamps with", cs,
		    *x->clocksources ? x->clocksources : "?",
		    slow ? "a device, at microseconds a call"
			 : "a paravirtual clock");
		fix(f, "echo tsc > /sys/devices/system/clocksource/"
		    "clocksource0/current_clocksource if tsc is available, "
		    "or boot with clocksource=tsc");
	}

	f = add(r, "clock", "clock.tsc_vs_raw", "TSC vs CLOCK_MONOTONIC_RAW");
	if (!x->tsc_raw_measured)
		unknown(f, "not measured");
	else {
		double ok = x->tsc_raw_noise_ppm * 3 > CLOCK_OK_PPM
				    ? x->tsc_raw_noise_ppm * 3 : CLOCK_OK_PPM;
		enum lat_doctor_level l = x->tsc_raw_ppm <= ok ? LAT_DOCTOR_OK
			: x->tsc_raw_ppm <= CLOCK_BAD_PPM ? LAT_DOCTOR_WARN
							  : LAT_DOCTOR_BAD;

		say(f, l, "%.4f cycles/ns fitted, then %.2f ppm of drift "
		    "against it; %.2f s in all (reading noise allows %.2f)",
		    x->cycles_per_ns, x->tsc_raw_ppm, x->tsc_raw_seconds,
		    x->tsc_raw_noise_ppm);
		if (l != LAT_DOCTOR_OK)
			fix(f, "the counter is not steady against the kernel's "
			    "clock: look for 'clocksource ... unstable' in "
			    "dmesg and recalibrate per run (latlab does)");
	}
}

/* ---- CPUs ------------------------------------------------------------- */

static void usable_list(const struct lat_topo *t, bool hot_too,
			const struct lat_topo_place *p, char *buf,
			size_t len)
{
	bool set[LAT_TOPO_MAX_CPUS] = { false };
	int cpus[LAT_TOPO_MAX_CPUS];
	int n = lat_topo_usable_cpus(t, cpus, LAT_TOPO_MAX_CPUS);

	for (int i = 0; i < n && i < LAT_TOPO_MAX_CPUS; i++)
		set[cpus[i]] = true;
	if (!hot_too)
		for (int i = 0; i < p->n; i++)
			set[p->cpu[i]] = false;
	lat_topo_list_format(set, buf, len);
}

static void judge_isolation(const struct lat_doctor_facts *x,
			    struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "cpu", "cpu.isolation",
					   "isolated CPUs");
	bool none = !*x->isolated && !*x->nohz_full && !*x->rcu_nocbs;

	if (none) {
		say(f, LAT_DOCTOR_WARN, "none (no isolcpus, nohz_full or "
		    "rcu_nocbs): the hot threads share their CPUs with every "
		    "other task, the scheduler tick and RCU callbacks");
		if (x->topo.n_online > 1) {
			char l[24];

			snprintf(l, sizeof(l), x->topo.n_cpus > 2 ? "1-%d"
								  : "%d",
				 x->topo.n_cpus - 1);
			fix(f, "boot with isolcpus=%s nohz_full=%s "
			    "rcu_nocbs=%s (CPU 0 left for the rest); latlab "
			    "places hot threads on isolated CPUs first", l, l,
			    l);
		} else
			fix(f, "use a machine with a CPU to spare for "
			    "isolation (isolcpus= nohz_full= rcu_nocbs=)");
		return;
	}
	if (!x->place_err && (x->place.flags & LAT_TOPO_NOT_ISOLATED)) {
		say(f, LAT_DOCTOR_WARN, "isolcpus %s, nohz_full %s, rcu_nocbs "
		    "%s; but a hot thread lands on a non-isolated CPU",
		    *x->isolated ? x->isolated : "-",
		    *x->nohz_full ? x->nohz_full : "-",
		    *x->rcu_nocbs ? x->rcu_nocbs : "-");
		fix(f, "isolate as many CPUs as there are hot threads (%d)",
		    x->hot_threads);
		return;
	}
	say(f, LAT_DOCTOR_OK, "isolcpus %s, nohz_full %s, rcu_nocbs %s",
	    *x->isolated ? x->isolated : "-",
	    *x->nohz_full ? x->nohz_full : "-",
	    *x->rcu_nocbs ? x->rcu_nocbs : "-");
}

static void judge_smt_freq(const struct lat_doctor_facts *x,
			   struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "cpu", "cpu.smt",
					   "SMT siblings");
	bool smt = x->smt_active == 1 ||
		   (x->smt_active < 0 && !x->topo_err && x->topo.max_smt > 1);

	if (!smt)
		say(f, LAT_DOCTOR_OK, "off: one thread per core");
	else if (!x->place_err && (x->place.flags & LAT_TOPO_SMT)) {
		say(f, LAT_DOCTOR_WARN, "on, and the hot threads land on "
		    "siblings of one core: they share its execution units "
		    "and caches");
		fix(f, "echo off > /sys/devices/system/cpu/smt/control while "
		    "measuring, or give each hot thread a core of its own");
	} else
		say(f, LAT_DOCTOR_OK, "on (up to %d per core); each hot "
		    "thread gets a core of its own", x->topo.max_smt);

	f = add(r, "cpu", "cpu.frequency", "frequency governor and boost");
	if (!*x->governor && x->boost < 0)
		say(f, LAT_DOCTOR_OK, "no cpufreq: the frequency is not this "
		    "kernel's to set (a VM, or fixed by firmware)");
	else if (*x->governor && strcmp(x->governor, "performance")) {
		say(f, LAT_DOCTOR_WARN, "governor %s%s: the clock follows the "
		    "load, so events after an idle gap run slower",
		    x->governor, x->boost == 1 ? ", boost on" : "");
		fix(f, "cpupower frequency-set -g performance (or echo "
		    "performance > /sys/devices/system/cpu/cpu*/cpufreq/"
		    "scaling_governor)%s", x->boost == 1
			? ", and echo 0 > /sys/devices/system/cpu/cpufreq/boost"
			: "");
	} else if (x->boost == 1) {
		say(f, LAT_DOCTOR_WARN, "governor %s, boost on: the clock "
		    "rises and falls with temperature and the load on other "
		    "cores", *x->governor ? x->governor : "-");
		fix(f, "echo 0 > /sys/devices/system/cpu/cpufreq/boost (or 1 "
		    "> /sys/devices/system/cpu/intel_pstate/no_turbo)");
	} else
		say(f, LAT_DOCTOR_OK, "governor %s, boost %s",
		    *x->governor ? x->governor : "-",
		    x->boost < 0 ? "n/a" : "off");
}

static void judge_idle(const struct lat_doctor_facts *x,
		       struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "cpu", "cpu.idle",
					   "idle states, exit latency");
	char list[LAT_DOCTOR_TEXT_LEN] = "";
	unsigned worst = 0;
	int worst_k = -1, cpu = x->idle_cpu;
	size_t n = 0;

	if (!x->cpuidle_present) {
		say(f, LAT_DOCTOR_OK, "no cpuidle driver: an idle CPU halts "
		    "and the hypervisor or firmware wakes it");
		return;
	}
	for (int k = 0; k < x->n_idle && n < sizeof(list) - 1; k++) {
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s %u us%s",
				      k ? ", " : "", x->idle[k].name,
				      x->idle[k].latency_us,
				      x->idle[k].disabled ? " (disabled)" : "");
		if (!x->idle[k].disabled && x->idle[k].latency_us >= worst) {
			worst = x->idle[k].latency_us;
			worst_k = k;
		}
	}
	if (worst <= IDLE_WARN_US) {
		say(f, LAT_DOCTOR_OK, "cpu%d: %s", cpu, list);
		return;
	}
	say(f, LAT_DOCTOR_WARN, "cpu%d: %s; a waiter that sleeps can pay "
	    "%u us to wake", cpu, list, worst);
	fix(f, "keep hot threads spinning rather than sleeping, hold 0 in "
	    "/dev/cpu_dma_latency while measuring, or echo 1 > "
	    "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", cpu,
	    worst_k);
}

static void judge_irq(const struct lat_doctor_facts *x,
		      struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "cpu", "cpu.irq",
					   "device IRQs on the hot CPUs");
	char list[LAT_DOCTOR_TEXT_LEN] = "", others[128];
	size_t n = 0;

	if (*x->why_irq) {
		unknown(f, x->why_irq);
		return;
	}
	if (!x->n_irqs) {
		say(f, LAT_DOCTOR_OK, "none has fired on cpus %s", x->hot_cpus);
		return;
	}
	for (int i = 0; i < x->n_irqs && i < LAT_DOCTOR_MAX_IRQS &&
			n < sizeof(list) - 1; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n,
				      "%s%d %s (%" PRIu64 ")", i ? ", " : "",
				      x->irq[i].irq, x->irq[i].name,
				      x->irq[i].count_on_hot);
	say(f, LAT_DOCTOR_WARN, "cpus %s: %d device IRQs may land there, "
	    "%" PRIu64 " so far: %s%s", x->hot_cpus, x->n_irqs,
	    x->irq_total_on_hot, list,
	    x->n_irqs > LAT_DOCTOR_MAX_IRQS ? ", ..." : "");
	usable_list(&x->topo, false, &x->place, others, sizeof(others));
	if (strcmp(others, "-"))
		fix(f, "steer them to cpus %s: echo %s > /proc/irq/<n>/"
		    "smp_affinity_list for each (and keep irqbalance off "
		    "the hot CPUs)", others, others);
	else
		fix(f, "every usable CPU takes a hot thread, so there is no "
		    "CPU to steer them to: use a machine with a CPU to spare "
		    "for interrupts");
}

static void judge_cpus(const struct lat_doctor_facts *x,
		       struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "cpu", "cpu.online",
					   "online CPUs");
	char usable[128];

	if (x->topo_err)
		unknown(f, x->why_topo);
	else {
		usable_list(&x->topo, true, &x->place, usable, sizeof(usable));
		say(f, x->topo.n_usable >= x->hot_threads ? LAT_DOCTOR_OK
							   : LAT_DOCTOR_WARN,
		    "%d online (%s), %d usable by this process (%s), %d "
		    "physical cores", x->topo.n_online, x->online,
		    x->topo.n_usable, usable, x->topo.n_usable_cores);
		if (x->topo.n_usable < x->hot_threads)
			fix(f, "%d hot threads will share %d CPUs: use at "
			    "least %d CPUs (or widen the affinity mask: "
			    "taskset, cpuset)", x->hot_threads,
			    x->topo.n_usable, x->hot_threads);
	}
	judge_isolation(x, r);
	judge_smt_freq(x, r);
	judge_idle(x, r);
	judge_irq(x, r);

	f = add(r, "cpu", "cpu.numa", "NUMA nodes");
	if (x->numa_nodes < 0)
		unknown(f, x->why_numa);
	else if (x->numa_nodes <= 1)
		say(f, LAT_DOCTOR_OK, "%d node", x->numa_nodes);
	else if (x->numa_nodes_hot > 1) {
		say(f, LAT_DOCTOR_WARN, "%d nodes; the hot CPUs span %d, so "
		    "messages cross the interconnect", x->numa_nodes,
		    x->numa_nodes_hot);
		fix(f, "keep the pipeline on one node: its CPUs from one "
		    "node's cpulist (numactl -H)");
	} else
		say(f, LAT_DOCTOR_OK, "%d nodes; the hot CPUs are on one",
		    x->numa_nodes);
}

/* ---- virtualisation --------------------------------------------------- */

static void judge_virt(const struct lat_doctor_facts *x,
		       struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "virtualisation",
					   "virt.hypervisor", "hypervisor");

	if (!x->hypervisor)
		say(f, LAT_DOCTOR_OK, "none: bare metal");
	else {
		say(f, LAT_DOCTOR_WARN, "%s%s%s: the vCPUs are host threads; "
		    "the host's scheduler pauses them unseen, and cross-vCPU "
		    "costs move when it moves them", *x->hv_vendor
			? "yes, CPUID signature '" : "yes (the kernel's "
						    "hypervisor flag)",
		    x->hv_vendor, *x->hv_vendor ? "'" : "");
		fix(f, "for tails below ~100 us use bare metal or dedicated, "
		    "pinned vCPUs; compare runs only within one session");
	}

	f = add(r, "virtualisation", "virt.steal", "steal time");
	if (x->steal_pct < 0)
		unknown(f, *x->why_steal ? x->why_steal : "not measured");
	else {
		double worst = x->steal_max_cpu_pct > x->steal_pct
				       ? x->steal_max_cpu_pct : x->steal_pct;
		enum lat_doctor_level l = worst < STEAL_WARN_PCT ? LAT_DOCTOR_OK
			: worst < STEAL_BAD_PCT ? LAT_DOCTOR_WARN
						: LAT_DOCTOR_BAD;

		say(f, l, "%.1f%% of all CPUs' time over %.1f s (worst cpu%d: "
		    "%.1f%%)", x->steal_pct, x->steal_seconds,
		    x->steal_worst_cpu, x->steal_max_cpu_pct);
		if (l != LAT_DOCTOR_OK)
			fix(f, "the host runs other work on these CPUs: ask "
			    "for dedicated vCPUs, and read tails as including "
			    "its pauses (latlab pipeline reports the steal "
			    "of each run)");
	}
}

/* ---- cgroup ----------------------------------------------------------- */

static void judge_cgroup(const struct lat_doctor_facts *x,
			 struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "cgroup", "cgroup.group",
					   "cpu cgroup");
	char t[LAT_FMT_LEN];

	if (x->cg_err == -ENOENT)
		say(f, LAT_DOCTOR_OK, "no cpu controller mounted: no CPU "
		    "quota can apply");
	else if (x->cg_err)
		unknown(f, x->why_cg);
	else
		say(f, LAT_DOCTOR_OK, "%s, group %s (%s)",
		    lat_cgroup_version_name(x->cg.version), x->cg.path,
		    x->cg.dir);

	f = add(r, "cgroup", "cgroup.quota", "CPU quota");
	if (x->cg_err == -ENOENT || (!x->cg_err && x->quota_cpus < 0 &&
				     !*x->why_cg))
		say(f, LAT_DOCTOR_OK, "none (this group and its ancestors)");
	else if (x->cg_err || *x->why_cg)
		unknown(f, x->why_cg);
	else {
		lat_fmt_ns(t, sizeof(t), (double)(x->period_us * 1000 -
						  (uint64_t)x->quota_us * 1000));
		say(f, x->quota_cpus < 1 ? LAT_DOCTOR_BAD : LAT_DOCTOR_WARN,
		    "%.2f CPUs (%" PRId64 " us per %" PRIu64 " us period, set "
		    "at %s): a burst past it freezes every thread of the "
		    "group until the period ends%s%s",
		    x->quota_cpus, x->quota_us, x->period_us, x->quota_where,
		    x->quota_cpus < 1 ? ", up to " : "",
		    x->quota_cpus < 1 ? t : "");
		fix(f, "raise or remove the quota (cpu.max, "
		    "cpu.cfs_quota_us, docker --cpus, limits.cpu), or keep "
		    "busy threads below it; latlab's CPU-quota experiment "
		    "shows the effect");
	}

	f = add(r, "cgroup", "cgroup.throttled", "throttled so far");
	if (x->cg_err == -ENOENT)
		say(f, LAT_DOCTOR_OK, "no cpu controller");
	else if (!x->cg_stat_known)
		unknown(f, *x->why_cg_stat ? x->why_cg_stat : x->why_cg);
	else if (!x->cg_stat.nr_throttled)
		say(f, LAT_DOCTOR_OK, "0 of %" PRIu64 " periods",
		    x->cg_stat.nr_periods);
	else {
		say(f, LAT_DOCTOR_WARN, "%" PRIu64 " of %" PRIu64 " periods, "
		    "%s held back in all", x->cg_stat.nr_throttled,
		    x->cg_stat.nr_periods,
		    lat_fmt_ns(t, sizeof(t), (double)x->cg_stat.throttled_ns));
		fix(f, "this group has run out of quota before: raise it, or "
		    "expect stalls of up to one period in the tails");
	}

	f = add(r, "cgroup", "cgroup.cpuset", "cpuset");
	if (!*x->cpuset)
		unknown(f, x->why_cpuset);
	else
		say(f, strcmp(x->cpuset, x->online) ? LAT_DOCTOR_INFO
						    : LAT_DOCTOR_OK,
		    "%s%s", x->cpuset, strcmp(x->cpuset, x->online)
			? " (not every online CPU)" : " (every online CPU)");
}

/* ---- memory ----------------------------------------------------------- */

static bool privileged(const struct lat_doctor_facts *x)
{
	return x->uid == 0;
}

static void judge_memory(const struct lat_doctor_facts *x,
			 struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "memory", "memory.thp",
					   "transparent huge pages");

	if (!*x->thp)
		unknown(f, x->why_thp);
	else if (!strcmp(x->thp, "always")) {
		say(f, LAT_DOCTOR_WARN, "always: khugepaged collapses pages "
		    "in the background and a fault may compact memory first "
		    "(millisecond stalls)");
		fix(f, "echo madvise > /sys/kernel/mm/transparent_hugepage/"
		    "enabled, and madvise(MADV_HUGEPAGE) only the buffers "
		    "that want huge pages");
	} else
		say(f, LAT_DOCTOR_OK, "%s", x->thp);

	f = add(r, "memory", "memory.swap", "swap");
	if (x->swap_devices < 0)
		unknown(f, x->why_swap);
	else if (x->swap_devices == 0 && x->swap_total_kb == 0)
		say(f, LAT_DOCTOR_OK, "none");
	else {
		say(f, LAT_DOCTOR_WARN, "%d device(s), %" PRIu64 " MiB: a "
		    "page of the measured process can be swapped out and "
		    "fault back in (milliseconds)", x->swap_devices,
		    x->swap_total_kb / 1024);
		fix(f, "swapoff -a while measuring, or mlockall(MCL_CURRENT "
		    "| MCL_FUTURE) in the measured process");
	}

	f = add(r, "memory", "memory.memlock", "locked-memory limit");
	if (x->memlock_bytes == UINT64_MAX)
		say(f, LAT_DOCTOR_OK, "unlimited");
	else if (doctor_has_cap(x, LAT_DOCTOR_CAP_IPC_LOCK))
		say(f, LAT_DOCTOR_OK, "%" PRIu64 " KiB, not binding: "
		    "CAP_IPC_LOCK", x->memlock_bytes / 1024);
	else {
		say(f, LAT_DOCTOR_WARN, "%" PRIu64 " KiB: a latency-critical "
		    "process cannot mlockall more than this",
		    x->memlock_bytes / 1024);
		fix(f, "ulimit -l unlimited (LimitMEMLOCK=infinity in a "
		    "systemd unit) for processes that lock their memory");
	}
}

/* ---- privileges ------------------------------------------------------- */

static void judge_privileges(const struct lat_doctor_facts *x,
			     struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "privileges", "priv.paranoid",
					   "perf_event_paranoid");
	bool perfmon = privileged(x) ||
		       doctor_has_cap(x, LAT_DOCTOR_CAP_PERFMON) ||
		       doctor_has_cap(x, LAT_DOCTOR_CAP_SYS_ADMIN);
	bool bpf = privileged(x) || (doctor_has_cap(x, LAT_DOCTOR_CAP_BPF) &&
				     perfmon);

	if (x->paranoid == INT32_MIN)
		unknown(f, x->why_paranoid);
	else if (perfmon)
		say(f, LAT_DOCTOR_OK, "%d, not binding: %s", x->paranoid,
		    privileged(x) ? "root" : "CAP_PERFMON");
	else if (x->paranoid >= 2) {
		say(f, LAT_DOCTOR_WARN, "%d: this user counts only its own "
		    "user-space events; context switches and migrations read "
		    "0 that way, so latlab takes them from /proc",
		    x->paranoid);
		fix(f, "sysctl kernel.perf_event_paranoid=1, or grant "
		    "CAP_PERFMON");
	} else
		say(f, LAT_DOCTOR_OK, "%d", x->paranoid);

	f = add(r, "privileges", "priv.caps", "user and capabilities");
	if (!x->caps_known)
		unknown(f, x->why_caps);
	else if (privileged(x) || perfmon || bpf)
		say(f, LAT_DOCTOR_OK, "uid %d; CapEff has%s%s%s%s", x->uid,
		    doctor_has_cap(x, LAT_DOCTOR_CAP_SYS_ADMIN)
			? " CAP_SYS_ADMIN" : "",
		    doctor_has_cap(x, LAT_DOCTOR_CAP_PERFMON)
			? " CAP_PERFMON" : "",
		    doctor_has_cap(x, LAT_DOCTOR_CAP_BPF) ? " CAP_BPF" : "",
		    !x->cap_eff ? " none (root by uid)" : "");
	else {
		say(f, LAT_DOCTOR_WARN, "uid %d; none of CAP_SYS_ADMIN, "
		    "CAP_PERFMON, CAP_BPF: no per-CPU counters, eBPF probes "
		    "or cgroup experiments", x->uid);
		fix(f, "run as root, or sudo setcap cap_perfmon,cap_bpf+ep "
		    "on the latlab binary");
	}

	f = add(r, "privileges", "priv.btf", "kernel BTF");
	if (x->btf)
		say(f, LAT_DOCTOR_OK, "/sys/kernel/btf/vmlinux present");
	else {
		say(f, LAT_DOCTOR_WARN, "no /sys/kernel/btf/vmlinux: eBPF "
		    "probes cannot relocate against this kernel");
		fix(f, "a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	}

	f = add(r, "privileges", "priv.unprivileged_bpf",
		"unprivileged BPF");
	if (x->unpriv_bpf < 0)
		unknown(f, x->why_bpf);
	else if (x->unpriv_bpf == 0)
		say(f, LAT_DOCTOR_INFO, "0: any user may load BPF programs");
	else if (bpf)
		say(f, LAT_DOCTOR_OK, "%d: refused to unprivileged users; "
		    "this process is privileged", x->unpriv_bpf);
	else {
		say(f, LAT_DOCTOR_WARN, "%d: bpf() refuses this user",
		    x->unpriv_bpf);
		fix(f, "run as root, or grant CAP_BPF and CAP_PERFMON");
	}
}

/* ---- what latlab can do ----------------------------------------------- */

static void judge_counters(const struct lat_doctor_facts *x,
			   struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f = add(r, "latlab", "latlab.counters",
					   "per-thread counters");
	char have[LAT_DOCTOR_TEXT_LEN] = "", miss[LAT_DOCTOR_TEXT_LEN] = "";
	const char *why = "";
	size_t h = 0, m = 0;

	if (!x->probed) {
		unknown(f, "not probed");
		return;
	}
	for (int c = 0; c < LAT_PERF_NCOUNTERS; c++) {
		const char *name = lat_perf_name((enum lat_perf_counter)c);

		if (x->counter_src[c] != LAT_PERF_SRC_NONE) {
			if (h < sizeof(have))
				h += (size_t)snprintf(
					have + h, sizeof(have) - h, "%s%s (%s)",
					h ? ", " : "", name,
					lat_perf_source_name(x->counter_src[c]));
		} else {
			if (m < sizeof(miss))
				m += (size_t)snprintf(miss + m,
						      sizeof(miss) - m, "%s%s",
						      m ? ", " : "", name);
			if (!*why)
				why = x->counter_why[c];
		}
	}
	say(f, LAT_DOCTOR_INFO, "%s%s%s%s%s%s", have, m ? "; n/a: " : "",
	    miss, m ? " (" : "", why, m ? ")" : "");
}

static void judge_latlab(const struct lat_doctor_facts *x,
			 struct lat_doctor_report *r)
{
	struct lat_doctor_finding *f;
	bool root = privileged(x);
	bool bpf_caps = root || (doctor_has_cap(x, LAT_DOCTOR_CAP_BPF) &&
				 doctor_has_cap(x, LAT_DOCTOR_CAP_PERFMON));
	char where[LAT_DOCTOR_TEXT_LEN];
	size_t n = 0;

	judge_counters(x, r);

	f = add(r, "latlab", "latlab.ebpf", "eBPF scheduler probes");
	if (!x->have_bpf_build)
		say(f, LAT_DOCTOR_INFO, "no: this latlab was built without "
		    "libbpf (apt-get install -y libbpf-dev bpftool clang, then "
		    "rebuild)");
	else if (!x->btf)
		say(f, LAT_DOCTOR_INFO, "no: the kernel has no BTF");
	else if (x->bpf_probe < 0)
		say(f, LAT_DOCTOR_INFO, "no: bpf() refused a one-entry map "
		    "(%s): needs root or CAP_BPF and CAP_PERFMON",
		    lat_strerror(x->bpf_probe));
	else if (!bpf_caps)
		say(f, LAT_DOCTOR_INFO, "no: needs root or CAP_BPF and "
		    "CAP_PERFMON");
	else
		say(f, LAT_DOCTOR_INFO, "yes: bpf() works here (%s), BTF "
		    "present, built with libbpf%s", root ? "root"
						       : "CAP_BPF+CAP_PERFMON",
		    x->bpf_probe == 1 ? " (bpf() not probed)" : "");

	f = add(r, "latlab", "latlab.placement", "pipeline placement");
	if (x->place_err) {
		unknown(f, *x->why_topo ? x->why_topo
					: "no usable CPU to place on");
	} else {
		for (int i = 0; i < x->place.n && n < sizeof(where); i++)
			n += (size_t)snprintf(where + n, sizeof(where) - n,
					      "%s%s%.0d cpu%d", i ? ", " : "",
					      i == 0 ? "producer"
					      : i == x->place.n - 1 ? "consumer"
								: "stage",
					      i == 0 || i == x->place.n - 1 ? 0
									    : i,
					      x->place.cpu[i]);
		for (unsigned b = 1; b && n < sizeof(where); b <<= 1)
			if ((x->place.flags & b) && lat_topo_flag_text(b))
				n += (size_t)snprintf(where + n,
						      sizeof(where) - n, "; %s",
						      lat_topo_flag_text(b));
		say(f, x->place.flags & LAT_TOPO_SHARED_CPU ? LAT_DOCTOR_WARN
							    : LAT_DOCTOR_INFO,
		    "%d hot threads: %s", x->place.n, where);
		if (x->place.flags & LAT_TOPO_SHARED_CPU)
			fix(f, "hot threads sharing a CPU wait by yielding and "
			    "the scheduler sets the tail: give the pipeline "
			    "at least %d CPUs", x->place.n);
	}

	f = add(r, "latlab", "latlab.cpu_quota", "CPU-quota experiment");
	if (x->cg_err)
		say(f, LAT_DOCTOR_INFO, "no: %s", x->cg_err == -ENOENT
			? "no cpu cgroup controller is mounted" : x->why_cg);
	else if (!x->cg_writable)
		say(f, LAT_DOCTOR_INFO, "no: %s is not writable by this user "
		    "(needs root)", x->cg_child_parent.dir);
	else
		say(f, LAT_DOCTOR_INFO, "yes: the pipeline can run under a "
		    "quota in a child of %s (%s)",
		    x->cg_child_parent.path,
		    lat_cgroup_version_name(x->cg.version));
}

void lat_doctor_judge(const struct lat_doctor_facts *x,
		      struct lat_doctor_report *r)
{
	r->n = 0;
	judge_clock(x, r);
	judge_cpus(x, r);
	judge_virt(x, r);
	judge_cgroup(x, r);
	judge_memory(x, r);
	judge_privileges(x, r);
	judge_latlab(x, r);
}

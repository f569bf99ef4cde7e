/*
 * The doctor's findings for people (grouped lines, fixes indented under
 * them) and for scripts (JSON with the facts behind the findings).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"

const char *lat_doctor_level_name(enum lat_doctor_level l)
{
	static const char *const names[] = { "ok", "info", "warn", "bad",
					     "n/a" };

	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "?";
}

int lat_doctor_count(const struct lat_doctor_report *r,
		     enum lat_doctor_level l)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->f[i].level == l;
	return n;
}

const struct lat_doctor_finding *
lat_doctor_find(const struct lat_doctor_report *r, const char *id)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].id, id))
			return &r->f[i];
	return NULL;
}

void lat_doctor_add_hint(struct lat_doctor_report *r, const char *id,
			 bool to_found, const char *how)
{
	for (int i = 0; i < r->n; i++) {
		struct lat_doctor_finding *f = &r->f[i];
		char *t = to_found ? f->found : f->fix;
		size_t n = strlen(t);

		/* an info line says what is possible with a "yes ..." */
		if (strcmp(f->id, id) || !n || (to_found && strncmp(t, "yes", 3)))
			continue;
		snprintf(t + n, LAT_DOCTOR_TEXT_LEN - n, " (%s)", how);
	}
}

int lat_doctor_print(FILE *out, const struct lat_doctor_report *r)
{
	const char *group = NULL;

	for (int i = 0; i < r->n; i++) {
		const struct lat_doctor_finding *f = &r->f[i];

		if (!group || strcmp(group, f->group)) {
			group = f->group;
			fprintf(out, "%s%s\n", i ? "\n" : "", group);
		}
		fprintf(out, "  %-4s  %-28s %s\n",
			lat_doctor_level_name(f->level), f->check, f->found);
		if (*f->fix)
			fprintf(out, "        %-28s fix: %s\n", "", f->fix);
	}
	fprintf(out, "\nsummary: %d ok, %d info, %d warn, %d bad, %d not "
		"checked\n", lat_doctor_count(r, LAT_DOCTOR_OK),
		lat_doctor_count(r, LAT_DOCTOR_INFO),
		lat_doctor_count(r, LAT_DOCTOR_WARN),
		lat_doctor_count(r, LAT_DOCTOR_BAD),
		lat_doctor_count(r, LAT_DOCTOR_UNKNOWN));
	return ferror(out) ? -EIO : 0;
}

static void str_or_null(struct lat_json *j, const char *key, const char *s)
{
	if (s && *s)
		lat_json_str(j, key, s);
	else
		lat_json_null(j, key);
}

static void write_facts(struct lat_json *j, const struct lat_doctor_facts *f)
{
	lat_json_obj_begin(j, "facts");
	lat_json_bool(j, "invariant_tsc", f->clock.invariant);
	str_or_null(j, "clocksource", f->clock.clocksource);
	if (f->tsc_raw_measured) {
		lat_json_double(j, "cycles_per_ns", f->cycles_per_ns);
		lat_json_double(j, "tsc_raw_ppm", f->tsc_raw_ppm);
	} else {
		lat_json_null(j, "cycles_per_ns");
		lat_json_null(j, "tsc_raw_ppm");
	}
	lat_json_int(j, "cpus_online", f->topo_err ? -1 : f->topo.n_online);
	lat_json_int(j, "cpus_usable", f->topo_err ? -1 : f->topo.n_usable);
	str_or_null(j, "online", f->online);
	str_or_null(j, "isolated", f->isolated);
	str_or_null(j, "nohz_full", f->nohz_full);
	str_or_null(j, "rcu_nocbs", f->rcu_nocbs);
	lat_json_int(j, "smt_active", f->smt_active);
	str_or_null(j, "hot_cpus", f->hot_cpus);
	str_or_null(j, "governor", f->governor);
	lat_json_int(j, "boost", f->boost);
	lat_json_int(j, "idle_states", f->n_idle);
	lat_json_int(j, "irqs_on_hot_cpus", f->n_irqs);
	lat_json_int(j, "numa_nodes", f->numa_nodes);
	lat_json_bool(j, "hypervisor", f->hypervisor);
	str_or_null(j, "hypervisor_vendor", f->hv_vendor);
	lat_json_double_if(j, "steal_pct", f->steal_pct >= 0, f->steal_pct);
	lat_json_str(j, "cgroup_version",
		     lat_cgroup_version_name(f->cg_err ? LAT_CGROUP_NONE
						       : f->cg.version));
	str_or_null(j, "cgroup_path", f->cg_err ? NULL : f->cg.path);
	lat_json_double_if(j, "quota_cpus", f->quota_cpus >= 0,
			   f->quota_cpus);
	lat_json_uint_if(j, "nr_throttled", f->cg_stat_known,
			 f->cg_stat.nr_throttled);
	str_or_null(j, "cpuset", f->cpuset);
	str_or_null(j, "thp", f->thp);
	lat_json_int(j, "swap_devices", f->swap_devices);
	lat_json_uint_if(j, "memlock_bytes", f->memlock_bytes != UINT64_MAX,
			 f->memlock_bytes);
	if (f->paranoid == INT32_MIN)
		lat_json_null(j, "perf_event_paranoid");
	else
		lat_json_int(j, "perf_event_paranoid", f->paranoid);
	lat_json_int(j, "uid", f->uid);
	if (f->caps_known) {
		char hex[20];

		snprintf(hex, sizeof(hex), "%016llx",
			 (unsigned long long)f->cap_eff);
		lat_json_str(j, "cap_eff", hex);
	} else {
		lat_json_null(j, "cap_eff");
	}
	lat_json_bool(j, "btf", f->btf);
	if (f->bpf_probe == 1)
		lat_json_null(j, "bpf_works");
	else
		lat_json_bool(j, "bpf_works", f->bpf_probe == 0);
	lat_json_int(j, "unprivileged_bpf_disabled", f->unpriv_bpf);
	lat_json_obj_end(j);
}

void lat_doctor_write_json(struct lat_json *j,
			   const struct lat_doctor_facts *f,
			   const struct lat_doctor_report *r)
{
	lat_json_arr_begin(j, "findings");
	for (int i = 0; i < r->n; i++) {
		const struct lat_doctor_finding *x = &r->f[i];

		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "id", x->id);
		lat_json_str(j, "group", x->group);
		lat_json_str(j, "check", x->check);
		lat_json_str(j, "level", lat_doctor_level_name(x->level));
		lat_json_str(j, "found", x->found);
		str_or_null(j, "fix", x->fix);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	/* keys are snake_case like every latlab document ("n/a" is not:
	 * jq would need .summary["n/a"]); the words match the text summary */
	lat_json_obj_begin(j, "summary");
	for (int l = LAT_DOCTOR_OK; l <= LAT_DOCTOR_UNKNOWN; l++)
		lat_json_int(j, l == LAT_DOCTOR_UNKNOWN ? "not_checked"
			     : lat_doctor_level_name((enum lat_doctor_level)l),
			     lat_doctor_count(r, (enum lat_doctor_level)l));
	lat_json_obj_end(j);
	write_facts(j, f);
}

/*
 * The machine a memory run describes: measured once at the start, printed
 * as the header of `latlab mem` and as its "machine" JSON member.
 */
#include <stdbool.h>
#include <stdio.h>

#include "latlab/fmt.h"
#include "latlab/json.h"
#include "latlab/mem.h"
#include "latlab/stats.h"

int lat_mem_machine_measure(struct lat_mem_machine *m, unsigned cal_ms)
{
	int rc = lat_clock_calibrate(&m->cal, cal_ms);

	if (rc)
		return rc;
	m->core_ghz = lat_mem_core_ghz(50);
	m->loadavg = lat_loadavg();
	return 0;
}

void lat_mem_machine_print(FILE *f, const struct lat_mem_machine *m,
			   const int *cpus, int n_cpus)
{
	char list[256], b[32];
	bool set[LAT_TOPO_MAX_CPUS] = { false };

	for (int i = 0; i < n_cpus; i++)
		set[cpus[i]] = true;
	fprintf(f, "latlab mem: %d CPU%s in use (%s), caches:", n_cpus,
		n_cpus == 1 ? "" : "s",
		lat_topo_list_format(set, list, sizeof(list)));
	if (!m->caches.n)
		fprintf(f, " none listed in sysfs");
	for (int i = 0; i < m->caches.n; i++)
		fprintf(f, "%s %s %s", i ? "," : "",
			lat_topo_cache_name(&m->caches, i),
			lat_fmt_bytes(b, sizeof(b), m->caches.c[i].size));
	fprintf(f, "\n");
	fprintf(f, "clock: %.4f counter cycles/ns (calibrated now, as 'latlab "
		"clock' does); core clock ~%.2f GHz (estimated from a "
		"multiply chain)\n", m->cal.cycles_per_ns, m->core_ghz);
}

void lat_mem_machine_json(struct lat_json *j,
			  const struct lat_mem_machine *m, const int *cpus,
			  int n_cpus)
{
	lat_json_obj_begin(j, "machine");
	lat_json_int(j, "usable_cpus", m->usable);
	lat_json_arr_begin(j, "cpus");
	for (int i = 0; i < n_cpus; i++)
		lat_json_int(j, NULL, cpus[i]);
	lat_json_arr_end(j);
	lat_json_arr_begin(j, "caches");
	for (int i = 0; i < m->caches.n; i++) {
		lat_json_obj_begin(j, NULL);
		lat_json_str(j, "name", lat_topo_cache_name(&m->caches, i));
		lat_json_int(j, "level", m->caches.c[i].level);
		lat_json_uint(j, "size_bytes", m->caches.c[i].size);
		lat_json_int(j, "shared_cpus", m->caches.c[i].shared_cpus);
		lat_json_obj_end(j);
	}
	lat_json_arr_end(j);
	lat_json_double(j, "loadavg", m->loadavg);
	lat_json_double(j, "cycles_per_ns", m->cal.cycles_per_ns);
	lat_json_double(j, "core_ghz_estimate", m->core_ghz);
	lat_json_obj_end(j);
}

void lat_mem_verdict_print(FILE *out, const char *text)
{
	fprintf(out, "  -> ");
	lat_fmt_paragraph(out, text, 5);
}

/*
 * lat_mem meminfo: how much memory is available, so a working set that
 * would swap or be killed is refused before it is mapped.
 */
#include <stdio.h>

#include "latlab/mem.h"

uint64_t lat_mem_available(const char *proc_root)
{
	char path[256], line[256];
	unsigned long long kb;
	uint64_t out = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meminfo",
		 proc_root ? proc_root : "/proc");
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			out = (uint64_t)kb * 1024;
			break;
		}
	fclose(f);
	return out;
}

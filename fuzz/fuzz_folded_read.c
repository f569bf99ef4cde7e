/*
 * libFuzzer target: the folded-stack reader (`latlab profile --diff` and
 * `--render` read files from anywhere). What it accepts must write back
 * as folded text that reads again to the same total, and draw as a flame
 * graph, alone and against itself as a diff.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlab/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lat_prof_svg_opts o = { .title = "fuzz" };
	struct lat_prof_folded f, again;
	char *text = NULL, *svg = NULL;
	size_t len = 0, svg_len = 0;
	FILE *in, *out;

	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	lat_prof_folded_init(&f);
	if (lat_prof_folded_read(&f, in, NULL)) {
		fclose(in);
		lat_prof_folded_release(&f);
		return 0;
	}
	fclose(in);
	out = open_memstream(&text, &len);
	if (out) {
		if (lat_prof_folded_write(&f, out))
			abort();
		fclose(out);
		in = fmemopen(text, len ? len : 1, "r");
		lat_prof_folded_init(&again);
		if (len && (!in || lat_prof_folded_read(&again, in, NULL) ||
			    again.total != f.total || again.n != f.n))
			abort();
		if (in)
			fclose(in);
		lat_prof_folded_release(&again);
	}
	out = open_memstream(&svg, &svg_len);
	if (out && f.total) {
		struct lat_prof_change *c;
		size_t n;

		if (lat_prof_svg_write(&f, &o, out) ||
		    lat_prof_svg_write_diff(&f, &f, &o, out))
			abort();
		/* a profile against itself changed nowhere */
		if (lat_prof_diff_changes(&f, &f, &c, &n) || n)
			abort();
		lat_prof_changes_free(c, n);
	}
	if (out)
		fclose(out);
	free(text);
	free(svg);
	lat_prof_folded_release(&f);
	return 0;
}

/*
 * Paragraphs for people: the explanatory sentences printed under tables,
 * wrapped at 78 display columns with a number and its unit kept on one
 * line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "latlab/fmt.h"

/* Display columns of @n bytes of UTF-8 (continuation bytes take none). */
static int columns(const char *s, int n)
{
	return lat_fmt_width_n(s, (size_t)n);
}

/* Is the word at @s (up to a space or the end) a unit like "ms" or "µs,"? */
static bool is_unit(const char *s)
{
	static const char *const units[] = { "ns", "µs", "ms", "s", "k/s",
					     "M/s" };
	size_t n = strcspn(s, " ");

	while (n && strchr("),.:;", s[n - 1]))
		n--;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i]) == n && !strncmp(s, units[i], n))
			return true;
	return false;
}

/* Length of the next word, a number and its unit counted as one. */
static int word_len(const char *s)
{
	int n = (int)strcspn(s, " ");

	if (s[n] == ' ' && is_unit(s + n + 1))
		n += 1 + (int)strcspn(s + n + 1, " ");
	return n;
}

void lat_fmt_paragraph(FILE *out, const char *text, int indent)
{
	int col;

	if (indent < 0 || indent > 20)
		indent = 0;
	col = indent;
	while (*text == ' ')
		text++;
	while (*text) {
		int n = word_len(text);
		int w = columns(text, n);

		if (col > indent && col + 1 + w > 78) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", n, text);
		col += w;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

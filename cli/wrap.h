/*
 * Paragraphs for people: the explanatory sentences the lab commands print
 * under their tables, wrapped at 78 columns (UTF-8 aware).
 */
#ifndef LATLAB_CLI_WRAP_H
#define LATLAB_CLI_WRAP_H

/*
 * Print @text to stdout as one paragraph wrapped at 78 display columns,
 * ending with a newline. The caller has already printed @indent (0..20)
 * columns of the first line (a "  -> " marker, say); later lines are
 * indented by as many spaces. Words longer than a line are printed whole.
 */
void cli_print_wrapped(const char *text, int indent);

#endif

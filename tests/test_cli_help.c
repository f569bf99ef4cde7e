/*
 * The --help pages (docs/cli/<cmd>.txt, embedded) and the option tables
 * (cli/cmd_<cmd>.c) cannot drift: every option a command parses is on an
 * options line of its page, with its short name, and every option a page
 * lists is one the command parses. Every page has its title, usage line
 * and EXAMPLES:, and latlab's own page lists exactly the commands built.
 * The tables' rules (.needs, .excludes) name options of the same table,
 * and cli_parse enforces them.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_table.h"
#include "t_test.h"

/* The line after @l, or NULL at the end of the page. */
static const char *next_line(const char *l)
{
	l = strchr(l, '\n');
	return l && l[1] ? l + 1 : NULL;
}

/* The line of @page that starts with @prefix, or NULL. */
static const char *line_starting(const char *page, const char *prefix)
{
	for (const char *l = page; l; l = next_line(l))
		if (!strncmp(l, prefix, strlen(prefix)))
			return l;
	return NULL;
}

/* Is @o the option --@name (@len bytes, not 0-terminated)? */
static bool named(const struct cli_opt *o, const char *name, size_t len)
{
	return strlen(o->name) == len && !strncmp(o->name, name, len);
}

/* The entry of @t named @name, or NULL. */
static const struct cli_opt *find(const struct cli_opt *t, const char *name,
				  size_t len)
{
	for (int i = 0; t && t[i].kind != CLI_OPT_END; i++)
		if (named(&t[i], name, len))
			return &t[i];
	return NULL;
}

/* An options line: two blanks, then "-c, --name" or "--name". */
static bool options_line(const char *l, char *short_name, const char **name,
			 size_t *len)
{
	if (strncmp(l, "  -", 3))
		return false;
	l += 2;
	*short_name = 0;
	if (l[1] != '-' && l[2] == ',' && l[3] == ' ') {
		*short_name = l[1];
		l += 4;
	}
	if (strncmp(l, "--", 2))
		return false;
	*name = l + 2;
	*len = strspn(*name, "abcdefghijklmnopqrstuvwxyz0123456789-");
	return true;
}

/*
 * The mismatches between @t and @page (each printed, naming @cmd): an
 * option of the table not on an options line (or without its short
 * name there), an options line naming no option of the table.
 */
static int drift(const char *cmd, const struct cli_opt *t, const char *page)
{
	const char *name;
	char s;
	size_t len;
	int bad = 0;

	for (int i = 0; t && t[i].kind != CLI_OPT_END; i++) {
		const char *l = page;

		while (l && !(options_line(l, &s, &name, &len) &&
			      named(&t[i], name, len)))
			l = next_line(l);
		if (!l || s != t[i].short_name) {
			fprintf(stderr, "%s: --%s (short '%c') is not on an "
				"options line of its page\n", cmd, t[i].name,
				t[i].short_name ? t[i].short_name : ' ');
			bad++;
		}
	}
	for (const char *l = page; l; l = next_line(l))
		if (options_line(l, &s, &name, &len) && !find(t, name, len)) {
			fprintf(stderr, "%s: the page lists --%.*s, which the "
				"command does not parse\n", cmd, (int)len,
				name);
			bad++;
		}
	return bad;
}

/* The checker itself finds what it must (a check that cannot fail
 * proves nothing). */
static void test_drift_is_found(void)
{
	fprintf(stderr, "the checker on pages that drift (5 lines):\n");
	struct args { bool a, b; };
#define CLI_ARGS struct args
	static const struct cli_opt t[] = {
		{ CLI_FLAG("alpha", a), .short_name = 'a' },
		{ CLI_FLAG("beta", b) },
		{ 0 },
	};
#undef CLI_ARGS

	T_EQ_I64(drift("t", t, "options:\n  -a, --alpha  x\n  --beta  y\n"),
		 0);
	/* --beta missing, --gamma unknown, -a not shown */
	T_EQ_I64(drift("t", t, "options:\n  --alpha  x\n  --gamma  y\n"), 3);
	/* --alphabet is not --alpha; prose mentioning --beta is no line */
	T_EQ_I64(drift("t", t, "  -a, --alphabet\nsee --beta\n  --beta\n"),
		 2);
}

/* Every name in @rules (space-separated) is an option of @t. */
static int unknown_names(const char *cmd, const struct cli_opt *t,
			 const char *rules)
{
	int bad = 0;

	for (const char *w = rules; w && *(w += strspn(w, " "));
	     w += strcspn(w, " "))
		if (!find(t, w, strcspn(w, " "))) {
			fprintf(stderr, "%s: a rule names --%.*s, not in its "
				"table\n", cmd, (int)strcspn(w, " "), w);
			bad++;
		}
	return bad;
}

static void test_rules_name_options(void)
{
	for (const struct cli_cmd *const *c = cli_cmd_table; *c; c++)
		for (const struct cli_opt *o = (*c)->opts;
		     o && o->kind != CLI_OPT_END; o++) {
			T_EQ_I64(unknown_names((*c)->name, (*c)->opts,
					       o->needs), 0);
			T_EQ_I64(unknown_names((*c)->name, (*c)->opts,
					       o->excludes), 0);
		}
}

static jmp_buf exited;

static int argc_of(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

static void on_exit_hook(int code)
{
	longjmp(exited, code + 1000); /* 0 would read as "not exited" */
}

/* cli_parse of @argv (NULL-terminated) with a small table: the exit
 * code it would have exited with, or -1 when it returned. */
static int parse_exit(char **argv)
{
	struct args { bool a, b, c; } args;
#define CLI_ARGS struct args
	static const struct cli_opt t[] = {
		{ CLI_FLAG("a", a), .needs = "b" },
		{ CLI_FLAG("b", b), .excludes = "c" },
		{ CLI_FLAG("c", c) },
		{ 0 },
	};
#undef CLI_ARGS
	static const struct cli_cmd cmd = { .name = "t", .opts = t };
	int code;

	optind = 1;
	opterr = 0;
	code = setjmp(exited);
	if (code)
		return code - 1000;
	cli_parse(&cmd, &args, argc_of(argv), argv);
	return -1;
}

static void test_rules_enforced(void)
{
	fprintf(stderr, "the rules refusing (3 lines):\n");
	cli_exit_hook = on_exit_hook;
	T_EQ_I64(parse_exit((char *[]){ "t", "--a", "--b", NULL }), -1);
	T_EQ_I64(parse_exit((char *[]){ "t", "--a", NULL }), CLI_EXIT_USAGE);
	T_EQ_I64(parse_exit((char *[]){ "t", "--b", "--c", NULL }),
		 CLI_EXIT_USAGE);
	T_EQ_I64(parse_exit((char *[]){ "t", "--c", "--b", NULL }),
		 CLI_EXIT_USAGE);
	T_EQ_I64(parse_exit((char *[]){ "t", "--c", NULL }), -1);
	cli_exit_hook = NULL;
}

static void test_command_pages(void)
{
	const char *main_page = cli_help("latlab");
	int commands = 0;

	T_CHECK(main_page);
	for (const struct cli_cmd *const *c = cli_cmd_table; *c; c++) {
		const char *page = cli_help((*c)->name);
		char want[64];

		commands++;
		if (!page) {
			fprintf(stderr, "%s: no docs/cli/%s.txt\n",
				(*c)->name, (*c)->name);
			t_failures++;
			continue;
		}
		snprintf(want, sizeof(want), "latlab %s: ", (*c)->name);
		T_CHECK(!strncmp(page, want, strlen(want)));
		snprintf(want, sizeof(want), "usage: latlab %s", (*c)->name);
		T_CHECK(line_starting(page, want));
		T_CHECK(line_starting(page, "EXAMPLES:\n"));
		T_EQ_I64(drift((*c)->name, (*c)->opts, page), 0);
		/* listed on latlab's own page */
		snprintf(want, sizeof(want), "  %s ", (*c)->name);
		if (main_page && !line_starting(main_page, want)) {
			fprintf(stderr, "latlab --help does not list %s\n",
				(*c)->name);
			t_failures++;
		}
	}
	/* ... and nothing else: one line per command under commands: */
	if (main_page) {
		const char *l = line_starting(main_page, "commands:\n");
		int listed = 0;

		T_CHECK(l);
		for (l = l ? next_line(l) : NULL; l && !strncmp(l, "  ", 2);
		     l = next_line(l))
			listed++;
		T_EQ_I64(listed, commands);
		T_CHECK(line_starting(main_page, "usage: latlab <command>"));
	}
	/* a page no command prints is a stale one */
	for (const struct cli_help_page *p = cli_help_pages; p->name; p++) {
		bool used = !strcmp(p->name, "latlab");

		for (const struct cli_cmd *const *c = cli_cmd_table; *c; c++)
			used |= !strcmp((*c)->name, p->name);
		if (!used) {
			fprintf(stderr, "docs/cli/%s.txt: no such command\n",
				p->name);
			t_failures++;
		}
	}
}

int main(void)
{
	test_drift_is_found();
	test_command_pages();
	test_rules_name_options();
	test_rules_enforced();
	T_DONE();
}

/*
 * The shared option parser (see opt.h): a command's table is turned into
 * getopt_long's, and every value is checked and stored by its kind.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latlab/parse.h"
#include "opt.h"

#define MAX_OPTS 64
/* getopt_long's value for a long-only option: above every short one */
#define LONG_ONLY 256

/* The table of the last cli_parse, and which of its options were given. */
static const struct cli_opt *parsed;
static bool given[MAX_OPTS];

static int n_opts(const struct cli_opt *t)
{
	int n = 0;

	while (t[n].kind != CLI_OPT_END)
		n++;
	return n;
}

static int has_arg(const struct cli_opt *o)
{
	if (o->optional)
		return optional_argument;
	if (o->kind == CLI_OPT_SET)
		return no_argument;
	return required_argument;
}

static void put_int(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v; break;
	}
}

static void put(void *args, const struct cli_opt *o, double real,
		uint64_t whole)
{
	void *p = (char *)args + o->off;

	if (o->real)
		*(double *)p = o->kind == CLI_OPT_U64 || o->kind == CLI_OPT_SET
				       ? (double)whole : real;
	else
		put_int(p, o->size, o->kind == CLI_OPT_DOUBLE ||
					    o->kind == CLI_OPT_DURATION
				    ? (uint64_t)real : whole);
}

/*
 * What getopt_long() returned (@c: '?' for an unknown option, ':' for a
 * missing value, which needs the leading ':' in the optstring): one line,
 * exit 2. A short option is named alone, not with the cluster it was in.
 */
static _Noreturn void bad_option(const char *cmd, char **argv, int c)
{
	const char *opt = argv[optind - 1];
	char one[3] = { '-', (char)optopt, 0 };
	bool long_opt = opt[0] == '-' && opt[1] == '-';

	/* getopt returns ':' only for a known option whose value is missing */
	cli_usage_error(cmd, c == ':' ? "'%s' needs a value (see 'latlab %s "
			"--help')" : "unknown option '%s' (see 'latlab %s "
			"--help')", long_opt || !optopt ? opt : one, cmd);
}

/* CLI_OPT_WORDS: the index of @value among the space-separated words. */
static uint64_t word_index(const char *cmd, const char *flag,
			   const struct cli_opt *o, const char *value)
{
	char list[256] = "";
	const char *w = o->words;
	size_t len, n_words = 0, i = 0;

	for (; *w; w += len + (w[len] == ' '), n_words++) {
		len = strcspn(w, " ");
		if (strlen(value) == len && !strncmp(w, value, len))
			return n_words;
	}
	/* "a, b or c" from "a b c" */
	for (w = o->words; *w; w += len + (w[len] == ' '), i++) {
		len = strcspn(w, " ");
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%.*s", i == 0 ? "" : i + 1 == n_words ? " or " : ", ",
			 (int)len, w);
	}
	cli_usage_error(cmd, "%s must be %s, not '%s'", flag, list, value);
}

static void cpus(const char *cmd, const char *flag, const struct cli_opt *o,
		 const char *value, struct cli_cpus *c)
{
	c->n = lat_topo_list_parse_seq(value, c->cpu, (int)o->max);
	if (c->n == -E2BIG)
		cli_usage_error(cmd, "%s lists more than %d CPUs", flag,
				(int)o->max);
	if (c->n <= 0)
		cli_usage_error(cmd, "%s needs a CPU list such as 2,4,6 or "
				"2-4, not '%s'", flag, value);
}

static void store(const char *cmd, void *args, const struct cli_opt *o,
		  const char *v)
{
	double div = o->div ? o->div : 1;
	uint64_t size = 0;
	char flag[64];

	snprintf(flag, sizeof(flag), "--%s", o->name);
	switch (o->kind) {
	case CLI_OPT_SET:
		put(args, o, 0, (uint64_t)o->set);
		break;
	case CLI_OPT_U64:
		put(args, o, 0, v ? cli_u64(cmd, flag, v, o->min, o->max)
				  : o->absent);
		break;
	case CLI_OPT_BYTES:
		if (lat_parse_bytes(v, &size))
			cli_usage_error(cmd, "%s needs a size such as 4096, 32K "
					"or 128M, not '%s'", flag, v);
		put(args, o, 0, size);
		break;
	case CLI_OPT_DOUBLE:
		put(args, o, cli_double(cmd, flag, v, o->lo, o->hi) / div, 0);
		break;
	case CLI_OPT_DURATION:
		put(args, o, cli_duration_ns(cmd, flag, v, o->unit_ns, o->lo,
					     o->hi) / div, 0);
		break;
	case CLI_OPT_STRING:
		*(const char **)((char *)args + o->off) = v;
		break;
	case CLI_OPT_WORDS:
		put(args, o, 0, word_index(cmd, flag, o, v));
		break;
	case CLI_OPT_CPUS:
		cpus(cmd, flag, o, v, (struct cli_cpus *)((char *)args +
							  o->off));
		break;
	case CLI_OPT_CALL:
		o->fn(args, v);
		break;
	case CLI_OPT_END:
		break;
	}
}

/* @o was given: its .needs and .excludes hold, or exit 2 naming both. */
static void check_rules(const char *cmd, const struct cli_opt *o)
{
	const char *rules[2] = { o->needs, o->excludes };
	char name[64];
	size_t len;

	for (int r = 0; r < 2; r++)
		for (const char *w = rules[r]; w && *(w += strspn(w, " "));
		     w += len) {
			len = strcspn(w, " ");
			snprintf(name, sizeof(name), "%.*s", (int)len, w);
			if (r == 0 && !cli_given(name))
				cli_usage_error(cmd, "--%s needs --%s", o->name,
						name);
			if (r == 1 && cli_given(name))
				cli_usage_error(cmd, "--%s and --%s exclude each "
						"other", o->name, name);
		}
}

int cli_parse(const struct cli_cmd *cmd, void *args, int argc, char **argv)
{
	const struct cli_opt *t = cmd->opts;
	struct option longopts[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 3];
	int n = n_opts(t), c, idx = -1;

	if (n > MAX_OPTS)
		cli_fail(cmd->name, "internal error: more than %d options",
			 MAX_OPTS);
	/* '+': stop at the first operand (a command to run keeps its own
	 * flags); ':': a missing value is reported as such */
	snprintf(shorts, sizeof(shorts), "%s",
		 cmd->options_first ? "+:" : ":");
	memset(longopts, 0, sizeof(longopts));
	memset(given, 0, sizeof(given));
	parsed = t;
	for (int i = 0; i < n; i++) {
		longopts[i] = (struct option){ t[i].name, has_arg(&t[i]),
					       NULL, t[i].short_name
					       ? t[i].short_name
					       : LONG_ONLY + i };
		if (t[i].short_name)
			snprintf(shorts + strlen(shorts), 4, "%c%s",
				 t[i].short_name, has_arg(&t[i]) ==
				 no_argument ? "" : has_arg(&t[i]) ==
				 required_argument ? ":" : "::");
	}
	while ((c = getopt_long(argc, argv, shorts, longopts, &idx)) != -1) {
		int i = c >= LONG_ONLY ? c - LONG_ONLY : 0;
		bool long_form = idx >= 0;

		if (c == '?' || c == ':')
			bad_option(cmd->name, argv, c);
		if (c < LONG_ONLY)
			while (t[i].short_name != c)
				i++;
		/* which of two values the user meant cannot be guessed, and
		 * the last one winning silently is how a script's default
		 * overrides its caller's; an optional value (--alloc,
		 * --alloc=1M) is a value too */
		if (given[i] && has_arg(&t[i]) != no_argument) {
			char opt[64];

			if (long_form)
				snprintf(opt, sizeof(opt), "--%s", t[i].name);
			else
				snprintf(opt, sizeof(opt), "-%c", c);
			if (!optarg)
				cli_usage_error(cmd->name, "%s given twice: "
						"give it once", opt);
			cli_usage_error(cmd->name, "%s given twice (the "
					"second is '%s'): give it once", opt,
					optarg);
		}
		given[i] = true;
		store(cmd->name, args, &t[i], optarg);
		idx = -1;
	}
	for (int i = 0; i < n; i++)
		if (given[i])
			check_rules(cmd->name, &t[i]);
	if (!cmd->operands)
		cli_no_operands(cmd->name, argc, argv);
	return optind;
}

bool cli_given(const char *name)
{
	for (int i = 0; parsed && parsed[i].kind != CLI_OPT_END; i++)
		if (!strcmp(parsed[i].name, name))
			return given[i];
	fprintf(stderr, "latlab: internal error: no option --%s\n", name);
	abort();
}

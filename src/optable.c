/* Usage text, getopt_long array and parsing, all generated from a command's option table
 * (see optable.h). */
#include "optable.h"
#include "args.h"

#include <getopt.h>
#include <stdlib.h>

#define OPTABLE_MAX 32   /* rows a table may have */
#define OPT_VAL0 256     /* getopt_long vals: row i is OPT_VAL0 + i, above every character */

/* "--name ARG": the left column of the option's usage line */
static int opt_left(const struct optdef *d, char *buf, size_t len)
{
	return snprintf(buf, len, "--%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
}

void optable_usage(const struct optcmd *cmd, FILE *f)
{
	char left[64];
	int width = 0;

	for (const struct optdef *d = cmd->opts; d->name; d++) {
		int n = d->kind == OPT_RENAMED ? 0 : opt_left(d, left, sizeof(left));

		if (n > width)
			width = n;
	}
	fputs(cmd->synopsis, f);
	for (const struct optdef *d = cmd->opts; d->name; d++) {
		const char *line = d->help;

		if (d->kind == OPT_RENAMED)
			continue;
		opt_left(d, left, sizeof(left));
		fprintf(f, "  %-*s  ", width, left);
		for (;;) {
			const char *nl = strchr(line, '\n');

			if (!nl) {
				fprintf(f, "%s\n", line);
				break;
			}
			fprintf(f, "%.*s\n  %-*s  ", (int)(nl - line), line, width, "");
			line = nl + 1;
		}
	}
}

/* Stores one option's value where its row says. */
static void opt_store(const struct optdef *d, const char *val, const struct optcmd *cmd, char *base)
{
	char flag[64];
	void *at = base + d->at;

	snprintf(flag, sizeof(flag), "--%s", d->name); /* the name every usage error gives */
	switch (d->kind) {
	case OPT_HELP: optable_usage(cmd, stdout); exit(0);
	case OPT_FLAG: *(bool *)at = true; break;
	case OPT_STRING: /* an empty host, directory or path names nothing: a usage error
			  * (sink --bind checks its own, naming the addresses allowed) */
		if (!*val && strcmp(d->name, "bind") != 0)
			die_usage("%s: an empty value; expected %s (copybench %s --help)", flag,
				  d->arg ? d->arg : "a value", cmd->name);
		*(const char **)at = val;
		break;
	case OPT_INT: *(int *)at = (int)parse_long(flag, val, (long)d->min, (long)d->max); break;
	case OPT_SECONDS: *(double *)at = parse_seconds(flag, val, d->min, d->max); break;
	case OPT_SIZE: *(uint64_t *)at = parse_size(flag, val, (uint64_t)d->min, (uint64_t)d->max); break;
	case OPT_U64: *(uint64_t *)at = parse_u64(flag, val); break;
	case OPT_CHOICE: *(int *)at = parse_choice(flag, val, d->choices); break;
	case OPT_CPULIST: parse_cpulist(flag, val, at); break;
	case OPT_RENAMED:
		die_usage("%s: renamed --%s (see copybench %s --help)", flag, d->renamed, cmd->name);
	}
	if (d->given)
		*(bool *)(base + d->given - 1) = true;
}

void optable_parse(int argc, char **argv, const struct optcmd *cmd, void *opts)
{
	struct option all[OPTABLE_MAX + 1];
	int n = 0, c;

	for (const struct optdef *d = cmd->opts; d->name; d++, n++) {
		if (n == OPTABLE_MAX)
			abort(); /* a table longer than OPTABLE_MAX: a programming error */
		/* a renamed option takes any value or none, so each form reaches its usage error */
		all[n] = (struct option){ d->name, d->kind == OPT_RENAMED ? optional_argument
						   : d->arg ? required_argument : no_argument,
					  NULL, OPT_VAL0 + n };
	}
	all[n] = (struct option){ 0 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", all, NULL)) != -1) {
		if (c < OPT_VAL0 || c >= OPT_VAL0 + n) /* '?': unknown, or a value missing or extra */
			die_usage("%s: unknown or incomplete option '%s' (see copybench %s --help)", cmd->name,
				  argv[optind - 1], cmd->name);
		opt_store(&cmd->opts[c - OPT_VAL0], optarg, cmd, opts);
	}
	if (optind < argc)
		die_usage("%s: unexpected argument '%s' (see copybench %s --help)", cmd->name, argv[optind],
			  cmd->name);
}

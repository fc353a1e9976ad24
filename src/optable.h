/* A command's options, each defined once, as one row of a table (after neper's
 * define_all_flags.c): the row gives the --help line, the getopt_long entry and how the value
 * is parsed and stored, so the three cannot drift apart. */
#ifndef COPYBENCH_OPTABLE_H
#define COPYBENCH_OPTABLE_H
#include "common.h"

#include <stddef.h>

enum opt_kind {
	OPT_HELP,     /* prints the usage text on stdout and exits 0 */
	OPT_FLAG,     /* bool, set to true; takes no value */
	OPT_STRING,   /* const char *, the value itself */
	OPT_INT,      /* int within [min, max] (parse_long) */
	OPT_SECONDS,  /* double within [min, max] (parse_seconds) */
	OPT_SIZE,     /* uint64_t bytes within [min, max] (parse_size: 4K, 1M, 1G) */
	OPT_U64,      /* uint64_t (parse_u64) */
	OPT_CHOICE,   /* int or enum: the index of the value in choices (parse_choice) */
	OPT_CPULIST,  /* struct cpulist (parse_cpulist) */
	OPT_RENAMED,  /* a name no longer taken: a usage error naming the row's `renamed`, the
		       * option's name now; left out of the usage text (OPT_RENAMED_ROW) */
};

struct optdef {
	const char *name;            /* --name */
	const char *arg;             /* the value's name in the usage text ("N"); NULL: none */
	enum opt_kind kind;
	size_t at;                   /* OPT_AT: where the value goes in the command's options */
	size_t given;                /* OPT_GIVEN: a bool set when the option appears; 0: none */
	double min, max;             /* OPT_INT, OPT_SECONDS, OPT_SIZE (exact below 2^53) */
	const char *const *choices;  /* OPT_CHOICE, NULL-terminated */
	const char *help;            /* the usage text; each '\n' starts a line under the first */
	const char *renamed;         /* OPT_RENAMED: the option's name now ("protocol") */
};

/* The offset of `field` in `type`, refused at compile time (a negative array size) unless the
 * field has the size of the C type its kind stores (an enum of OPT_CHOICE has an int's). */
#define OPT_AT(type, field, ctype) \
	(offsetof(type, field) + 0 * sizeof(char[sizeof(((type *)0)->field) == sizeof(ctype) ? 1 : -1]))
/* `given` is stored one above the offset, so that 0 can mean "none" */
#define OPT_GIVEN(type, field) (OPT_AT(type, field, bool) + 1)
/* --old, renamed --now: refused with one usage error that names --now (with or without a
 * value), so an old command line fails saying what to write instead */
#define OPT_RENAMED_ROW(old, now) { .name = old, .kind = OPT_RENAMED, .renamed = now }
/* --help, the same row in every table */
#define OPT_HELP_ROW { .name = "help", .kind = OPT_HELP, .help = "print this text and exit" }

struct optcmd {
	const char *name;            /* "send": named in its usage errors */
	const char *synopsis;        /* the usage text above the options ("usage: ...\n  ...\n") */
	const struct optdef *opts;   /* { 0 }-terminated */
};

/* The usage text: the synopsis, then one line per option (and one per '\n' of its help). */
void optable_usage(const struct optcmd *cmd, FILE *f);
/* One getopt_long pass over argv (options in their order of appearance, so the first bad one
 * is the error), each value stored into `opts` by its row; an unknown or incomplete option or
 * a stray argument is a usage error (exit 2). */
void optable_parse(int argc, char **argv, const struct optcmd *cmd, void *opts);
#endif

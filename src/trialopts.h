/* The options every trial command shares (`send`, `copy`), parsed in one place: a command
 * names its own options and a handler for them, and trialopts_parse runs one getopt_long pass
 * over both, so the options keep their order of appearance (the first bad one is the error). */
#ifndef COPYBENCH_TRIALOPTS_H
#define COPYBENCH_TRIALOPTS_H
#include "common.h"
#include "counters.h"
#include "pattern.h"

#include <getopt.h>

#define CACHE_UNSET (-2)           /* --cache not given */

extern const char *const cache_names[];  /* "warm", "cold" */

struct trial_opts {
	const char *method;        /* as given; each command decides what it allows */
	const char *dir;           /* --dir: where generated and scratch files go */
	uint64_t size, seed;
	bool size_set, verify_set;
	int cache;                 /* CACHE_UNSET, 0 warm, 1 cold */
	enum verify_mode verify;
	enum counter_set counters;
	struct cpulist cpus;
	double duration, warmup;
};

/* A command's layer over the shared options. */
struct trial_cmd {
	const char *name;                        /* "send": named in its usage errors */
	const struct option *own;                /* its own options, { 0 }-terminated; vals < 256 */
	void (*own_opt)(int val, const char *arg, void *opts); /* one of them, in order */
	void (*usage)(FILE *f);                  /* --help */
	void *opts;                              /* passed to own_opt */
};

/* The shared defaults; `size` is the command's own default size. */
void trialopts_init(struct trial_opts *t, uint64_t size);
/* One pass over argv: shared options into t, the command's own to cmd->own_opt; --help
 * prints cmd->usage and exits 0; an unknown option or a stray argument is a usage error. */
void trialopts_parse(int argc, char **argv, struct trial_opts *t, const struct trial_cmd *cmd);
#endif

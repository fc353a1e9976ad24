/* Shared options of `send` and `copy` (see trialopts.h). */
#include "trialopts.h"
#include "args.h"

#include <stdlib.h>

const char *const cache_names[] = { "warm", "cold", NULL };

/* getopt_long vals of the shared options: above any character a command uses for its own */
enum {
	OPT_METHOD = 256, OPT_SIZE, OPT_CPUS, OPT_DURATION, OPT_WARMUP, OPT_VERIFY, OPT_SEED,
	OPT_COUNTERS, OPT_DIR, OPT_CACHE, OPT_HELP,
};

static const struct option shared[] = {
	{ "method", 1, 0, OPT_METHOD }, { "size", 1, 0, OPT_SIZE }, { "cpus", 1, 0, OPT_CPUS },
	{ "duration", 1, 0, OPT_DURATION }, { "warmup", 1, 0, OPT_WARMUP },
	{ "verify", 1, 0, OPT_VERIFY }, { "seed", 1, 0, OPT_SEED }, { "counters", 1, 0, OPT_COUNTERS },
	{ "dir", 1, 0, OPT_DIR }, { "cache", 1, 0, OPT_CACHE }, { "help", 0, 0, OPT_HELP },
};
#define NSHARED (sizeof(shared) / sizeof(shared[0]))
#define MAX_OWN 16

void trialopts_init(struct trial_opts *t, uint64_t size)
{
	*t = (struct trial_opts){ .dir = "/var/tmp", .size = size, .seed = 1, .cache = CACHE_UNSET,
				  .verify = VERIFY_SAMPLE, .duration = 2, .warmup = 0.5 };
}

/* One shared option; false when val is not one. */
static bool shared_opt(int val, const char *arg, struct trial_opts *t, const struct trial_cmd *cmd)
{
	switch (val) {
	case OPT_METHOD: t->method = arg; break;
	case OPT_SIZE: t->size = parse_size("--size", arg, 1, MAX_SIZE); t->size_set = true; break;
	case OPT_CPUS: parse_cpulist("--cpus", arg, &t->cpus); break;
	case OPT_DURATION: t->duration = parse_seconds("--duration", arg, 0.01, 3600); break;
	case OPT_WARMUP: t->warmup = parse_seconds("--warmup", arg, 0, 600); break;
	case OPT_VERIFY: t->verify = parse_choice("--verify", arg, verify_names); t->verify_set = true; break;
	case OPT_SEED: t->seed = parse_u64("--seed", arg); break;
	case OPT_COUNTERS: t->counters = parse_choice("--counters", arg, counter_set_names); break;
	case OPT_DIR: t->dir = arg; break;
	case OPT_CACHE: t->cache = parse_choice("--cache", arg, cache_names); break;
	case OPT_HELP: cmd->usage(stdout); exit(0);
	default: return false;
	}
	return true;
}

void trialopts_parse(int argc, char **argv, struct trial_opts *t, const struct trial_cmd *cmd)
{
	struct option all[NSHARED + MAX_OWN + 1];
	size_t n = 0;
	int c;

	for (size_t i = 0; i < NSHARED; i++)
		all[n++] = shared[i];
	for (const struct option *o = cmd->own; o->name && n < NSHARED + MAX_OWN; o++)
		all[n++] = *o;
	all[n] = (struct option){ 0 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", all, NULL)) != -1) {
		if (c == '?' || c == ':')
			die_usage("%s: unknown or incomplete option '%s' (see copybench %s --help)", cmd->name,
				  argv[optind - 1], cmd->name);
		if (!shared_opt(c, optarg, t, cmd))
			cmd->own_opt(c, optarg, cmd->opts);
	}
	if (optind < argc)
		die_usage("%s: unexpected argument '%s' (see copybench %s --help)", cmd->name, argv[optind],
			  cmd->name);
}

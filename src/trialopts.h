/* The options every trial command shares (`send`, `copy`): their defaults, and one row-maker
 * per option for a command's table (optable.h). A row-maker fixes the option's name, value,
 * bounds and field; the command gives the help text, which says what the option means there.
 * `type` is the command's options struct, whose `t` member holds these. */
#ifndef COPYBENCH_TRIALOPTS_H
#define COPYBENCH_TRIALOPTS_H
#include "common.h"
#include "counters.h"
#include "optable.h"
#include "pattern.h"

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

/* The shared defaults; `size` is the command's own default size. */
void trialopts_init(struct trial_opts *t, uint64_t size);

#define TRIALOPT_METHOD(type, text) \
	{ .name = "method", .arg = "M", .kind = OPT_STRING, \
	  .at = OPT_AT(type, t.method, const char *), .help = text }
#define TRIALOPT_SIZE(type, text) \
	{ .name = "size", .arg = "BYTES", .kind = OPT_SIZE, .at = OPT_AT(type, t.size, uint64_t), \
	  .given = OPT_GIVEN(type, t.size_set), .min = 1, .max = MAX_SIZE, .help = text }
#define TRIALOPT_CPUS(type, text) \
	{ .name = "cpus", .arg = "LIST", .kind = OPT_CPULIST, \
	  .at = OPT_AT(type, t.cpus, struct cpulist), .help = text }
#define TRIALOPT_DURATION(type, text) \
	{ .name = "duration", .arg = "S", .kind = OPT_SECONDS, .at = OPT_AT(type, t.duration, double), \
	  .min = 0.01, .max = 3600, .help = text }
#define TRIALOPT_WARMUP(type, text) \
	{ .name = "warmup", .arg = "S", .kind = OPT_SECONDS, .at = OPT_AT(type, t.warmup, double), \
	  .min = 0, .max = 600, .help = text }
#define TRIALOPT_VERIFY(type, text) \
	{ .name = "verify", .arg = "V", .kind = OPT_CHOICE, .at = OPT_AT(type, t.verify, int), \
	  .given = OPT_GIVEN(type, t.verify_set), .choices = verify_names, .help = text }
#define TRIALOPT_SEED(type, text) \
	{ .name = "seed", .arg = "N", .kind = OPT_U64, .at = OPT_AT(type, t.seed, uint64_t), .help = text }
#define TRIALOPT_COUNTERS(type, text) \
	{ .name = "counters", .arg = "C", .kind = OPT_CHOICE, .at = OPT_AT(type, t.counters, int), \
	  .choices = counter_set_names, .help = text }
#define TRIALOPT_DIR(type, text) \
	{ .name = "dir", .arg = "DIR", .kind = OPT_STRING, .at = OPT_AT(type, t.dir, const char *), \
	  .help = text }
#define TRIALOPT_CACHE(type, text) \
	{ .name = "cache", .arg = "C", .kind = OPT_CHOICE, .at = OPT_AT(type, t.cache, int), \
	  .choices = cache_names, .help = text }
#endif

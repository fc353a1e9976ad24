/* Command-line value parsing: every failure is a usage error naming the argument. */
#ifndef COPYBENCH_ARGS_H
#define COPYBENCH_ARGS_H
#include "common.h"

uint64_t parse_size(const char *arg, const char *val, uint64_t min, uint64_t max);
double parse_seconds(const char *arg, const char *val, double min, double max);
long parse_long(const char *arg, const char *val, long min, long max);
uint64_t parse_u64(const char *arg, const char *val);
void parse_cpulist(const char *arg, const char *val, struct cpulist *out);
/* Returns the index of val in choices (NULL-terminated) or dies naming them. */
int parse_choice(const char *arg, const char *val, const char *const *choices);
#endif

/* Shared types and small helpers for copybench. One concern per .c file; this header only
 * declares what crosses file boundaries. */
#ifndef COPYBENCH_COMMON_H
#define COPYBENCH_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define COPYBENCH_VERSION "0.1.0"
#define SCHEMA_VERSION 2 /* rundir/records.py SCHEMA_VERSION: the record format this program prints */
#define MAX_SIZE (1ULL << 30)     /* 1 GiB: largest message or file */
#define MAX_THREADS 64
#define MAX_FIELDS 64
#define MAX_CPUS 256

/* An error message carried up to whoever prints it (the record's "error"). */
struct err {
	char msg[320];
};
void err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* err_set(e, "what: %s", strerror(errno)) shortcut: "<call>: <strerror(errno)>" */
void err_sys(struct err *e, const char *what);

/* Usage errors: one line on stderr, exit 2 (never returns). */
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

double now_s(void);            /* CLOCK_MONOTONIC seconds */
uint64_t now_ns(void);

/* CPU list "0,2-3" */
struct cpulist {
	int n;
	int cpu[MAX_CPUS];
};
int pin_to_cpu(const struct cpulist *cl, int index, struct err *e); /* no-op when n == 0 */
/* names the calling thread "<role>.<seed mod 100000>" (e.g. cb-send.01234): CPU profiles
 * (perf script's comm) tell the sending from the receiving threads, and one trial's from
 * another's; threads it creates afterwards inherit the name */
void name_thread(const char *role, uint64_t seed);

#endif

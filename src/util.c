/* Errors, clocks and CPU pinning shared by every subcommand. */
#include "common.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

void err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e || e->msg[0]) /* keep the first error: it is the cause */
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void err_sys(struct err *e, const char *what)
{
	err_set(e, "%s: %s", what, strerror(errno));
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("copybench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double now_s(void)
{
	return (double)now_ns() / 1e9;
}

int pin_to_cpu(const struct cpulist *cl, int index, struct err *e)
{
	cpu_set_t set;
	int cpu, rc;

	if (!cl || cl->n == 0)
		return 0;
	cpu = cl->cpu[index % cl->n];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc) {
		err_set(e, "pin thread to CPU %d: %s", cpu, strerror(rc));
		return -1;
	}
	return 0;
}

void name_thread(const char *role, uint64_t seed)
{
	char name[16]; /* TASK_COMM_LEN */

	snprintf(name, sizeof(name), "%s.%05u", role, (unsigned)(seed % 100000u));
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

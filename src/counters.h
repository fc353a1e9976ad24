/* Per-thread measurement of one side: getrusage(RUSAGE_THREAD) plus perf_event_open
 * counters opened by the measured thread for itself. A worker calls meter_tick() after each
 * operation; the first tick after the phase changes takes the start or end snapshot. */
#ifndef COPYBENCH_COUNTERS_H
#define COPYBENCH_COUNTERS_H
#include "common.h"
#include "json.h"

#include <stdatomic.h>
#include <sys/resource.h>

enum counter_id {
	C_TASK_CLOCK, C_CONTEXT_SWITCHES, C_CPU_MIGRATIONS, C_PAGE_FAULTS,
	C_CYCLES, C_INSTRUCTIONS, C_CACHE_REFERENCES, C_CACHE_MISSES,
	C_L1D_LOAD_MISSES, C_LLC_LOAD_MISSES, C_SYSCALLS, NCOUNTERS
};

enum phase { PHASE_WARMUP, PHASE_MEASURE, PHASE_STOP };

/* full: getrusage + perf_event_open counters + the syscall tracepoint; rusage: getrusage only.
 * Per-thread perf events are not free: every context switch saves and restores them and the
 * tracepoint sends every syscall through the tracing path (measured here: 64 B TCP pingpong
 * p50 RTT 1.36x sockperf's with full counters, 1.19x without the tracepoint, ~1.0x with
 * rusage only). So latency cells use rusage; the record names why a counter is null. */
enum counter_set { COUNTERS_FULL, COUNTERS_RUSAGE };
extern const char *const counter_set_names[]; /* "full", "rusage" */

struct snap {
	uint64_t t_ns;
	uint64_t bytes, messages;
	uint64_t v[NCOUNTERS];
	struct rusage ru;
};

struct meter {
	bool opened;
	int fd[NCOUNTERS];
	char why[NCOUNTERS][120];    /* reason a counter is unavailable */
	int seen;                    /* last phase this thread acted on */
	uint64_t bytes, messages;    /* running totals of this thread */
	struct snap start, end;
	bool have_start, have_end;
};

void meter_open(struct meter *m, enum counter_set set); /* call from the measured thread */
void meter_close(struct meter *m);
void meter_transition(struct meter *m, int phase);

static inline bool meter_tick(struct meter *m, const _Atomic int *phase)
{
	int ph = atomic_load_explicit(phase, memory_order_relaxed);

	if (__builtin_expect(ph != m->seen, 0))
		meter_transition(m, ph);
	return ph == PHASE_STOP;
}

/* Window totals over n meters (threads of one side). */
struct side_totals {
	int threads;
	uint64_t bytes, messages;
	uint64_t t_first_ns, t_last_ns; /* earliest start, latest end snapshot */
	double utime_s, stime_s;
	uint64_t vol_cs, invol_cs, minflt, majflt;
	uint64_t v[NCOUNTERS];
	bool have[NCOUNTERS];
	char why[NCOUNTERS][120];
};
void side_totals(struct side_totals *t, struct meter *const *m, int n);
void side_totals_json(struct json *j, const char *key, const struct side_totals *t);
#endif

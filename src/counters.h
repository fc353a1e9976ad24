/* Per-thread measurement of one side: getrusage(RUSAGE_THREAD) plus perf_event_open
 * counters opened by the measured thread for itself. A worker calls meter_tick() after each
 * operation; the first tick after the phase changes takes the start or end snapshot. */
#ifndef COPYBENCH_COUNTERS_H
#define COPYBENCH_COUNTERS_H
#include "common.h"
#include "json.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>

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

/* A data socket's state at a snapshot, read by the thread that uses it (sockstate.c). */
struct sockstate {
	bool have_buf, have_tcp;
	int sndbuf, rcvbuf;          /* getsockopt SO_SNDBUF / SO_RCVBUF (bytes, as the kernel has them) */
	struct tcp_info ti;          /* getsockopt TCP_INFO, ti_len bytes of it filled */
	socklen_t ti_len;
	char why[100];               /* when !have_buf or !have_tcp: why */
};

struct snap {
	uint64_t t_ns;
	uint64_t bytes, messages;
	uint64_t v[NCOUNTERS];
	struct rusage ru;
	int cpu;                     /* sched_getcpu() at the snapshot; -1 when it failed */
	struct sockstate sock;       /* when the meter has a socket (meter_set_socket) */
};

/* The measured window is cut into SLICES equal slices (window / SLICES each); a side's bytes
 * are recorded per slice (src/README.md, "Slices"). SLICE_EDGES edges lie inside the window. */
#define SLICES 10
#define SLICE_EDGES (SLICES - 1)

struct meter {
	bool opened;
	int fd[NCOUNTERS];
	char why[NCOUNTERS][120];    /* reason a counter is unavailable */
	int seen;                    /* last phase this thread acted on */
	uint64_t messages;           /* running total of this thread */
	struct snap start, end;
	bool have_start, have_end;
	int sock_fd;                 /* the data socket whose state the snapshots take; -1: none */
	bool sock_tcp;               /* ... and it is TCP (TCP_INFO) */
	char sock_why[100];          /* sock_fd < 0: why this thread has none */
	/* Last, and left alone by meter_open: the running byte total, which a sampler on another
	 * thread reads at each slice edge (meter_bytes) while this thread adds to it. A meter
	 * starts zeroed (calloc or a zero-initialised struct) before its thread exists; meter_open
	 * clears everything before this member only, so no plain write ever races the sampler's
	 * atomic load (C11 5.1.2.4: a plain and an atomic access of one object from two threads,
	 * one a write, is a data race, undefined). */
	_Atomic uint64_t run_bytes;
};

/* Add n bytes to the running total. One writer (the meter's thread), so a relaxed load and a
 * relaxed store, not atomic_fetch_add: on x86-64 and arm64 a relaxed load/store of an aligned
 * 64-bit object is a plain mov / ldr-str (no lock prefix, no barrier), the code the hot loop
 * had before; fetch_add would be a `lock xadd`, a full barrier on every operation. A reader
 * sees the old or the new total, never a torn one (the object is lock-free, C11 7.17.5). */
static inline void meter_add(struct meter *m, uint64_t n)
{
	atomic_store_explicit(&m->run_bytes, atomic_load_explicit(&m->run_bytes, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* The running byte total: from the meter's own thread, or from a sampler on another thread
 * (relaxed: a count, ordered with nothing else; a slice edge is when it was read). */
static inline uint64_t meter_bytes(struct meter *m)
{
	return atomic_load_explicit(&m->run_bytes, memory_order_relaxed);
}

void meter_open(struct meter *m, enum counter_set set); /* call from the measured thread */
/* The data socket the thread's snapshots read (after meter_open); fd < 0 with why: none. */
void meter_set_socket(struct meter *m, int fd, bool tcp, const char *why);
void meter_close(struct meter *m);
void meter_transition(struct meter *m, int phase);

/* A side's samples of its meters' running totals at the slice edges, taken by one sampler
 * (send's timing thread, the sink's control thread, copy's copying thread at each chunk). */
struct slicer {
	int n;                       /* edges sampled so far (SLICE_EDGES when the window ran out) */
	uint64_t t_ns[SLICE_EDGES];  /* CLOCK_MONOTONIC when edge k was read */
	uint64_t bytes[SLICE_EDGES]; /* the meter's running total then */
};
/* Sample edge `k` of these meters now (k = s[i].n for each): t_ns read once, then every
 * running total. Skips meters without a slicer (NULL). */
void slicer_sample(struct slicer *const *s, struct meter *const *m, int n);

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
	/* slices of the window (SLICES of slice_s each, asked): bytes and measured seconds */
	double slice_s;                 /* 0: no slicing asked (slices_why says why) */
	bool have_slices;
	uint64_t slice_bytes[SLICES];
	double slice_secs[SLICES];
	char slices_why[120];
	/* the threads that measured a window, for their CPUs and sockets at its edges */
	const struct meter *m[2 * MAX_THREADS];
	int nm;
	int list_max;                   /* list at most this many threads' edges (0: all) */
};
/* sl: each meter's slicer (NULL, or NULL entries: none); slice_s the asked slice length (0:
 * none, then why says why). */
void side_totals(struct side_totals *t, struct meter *const *m, struct slicer *const *sl, int n,
		 double slice_s, const char *why);
void side_totals_json(struct json *j, const char *key, const struct side_totals *t);
#endif

/* Interference over a measured window: the host's CPU time from /proc/stat, read at the
 * window's two edges by copybench itself, differenced into steal and busy time per CPU.
 *
 * /proc/stat's "cpu" (all CPUs) and "cpuN" lines count, since boot and in USER_HZ ticks
 * (sysconf(_SC_CLK_TCK), 100 on Linux), the time each CPU spent in: user nice system idle
 * iowait irq softirq steal guest guest_nice (proc(5)). guest and guest_nice are already
 * included in user and nice, so they are not added again. Here:
 *   cpu_s   = the sum of the first eight fields: all the time the CPU existed in the window
 *   busy_s  = user + nice + system + irq + softirq: time this guest's kernel ran something
 *   idle_s  = idle + iowait (summed: iowait alone may go backwards, proc(5))
 *   steal_s = steal: time the vCPU was runnable but the hypervisor ran something else
 * Resolution: one tick (1/USER_HZ, 10 ms) per field per CPU; a window shorter than a tick
 * may show no time at all, and fractions are then null (0/0), never 0. */
#ifndef COPYBENCH_PROCSTAT_H
#define COPYBENCH_PROCSTAT_H
#include "common.h"
#include "json.h"

#define PROCSTAT_MAX_CPUS 1024

enum { PS_USER, PS_NICE, PS_SYSTEM, PS_IDLE, PS_IOWAIT, PS_IRQ, PS_SOFTIRQ, PS_STEAL, PS_NFIELDS };

struct cpu_ticks {
	int cpu;                   /* -1: the aggregate "cpu" line */
	uint64_t f[PS_NFIELDS];
};

/* One reading of /proc/softirqs: NET_TX and NET_RX per CPU. The kernel prints, per softirq,
 * one `%10u` column per possible CPU under a "CPUn" header (fs/proc/softirqs.c): counts of
 * that softirq's runs on that CPU since boot, unsigned int, so they wrap at 2^32. */
struct softirqs {
	bool ok;
	char why[160];
	uint64_t t_ns;             /* CLOCK_MONOTONIC when it was read */
	int n;                     /* columns (CPUs), in file order */
	int cpu[PROCSTAT_MAX_CPUS];
	uint32_t net_tx[PROCSTAT_MAX_CPUS], net_rx[PROCSTAT_MAX_CPUS];
};
/* Parse the text of /proc/softirqs. 0, or -1 with sq->why. */
int softirqs_parse(const char *text, struct softirqs *sq);
/* Read and parse `path` (NULL: /proc/softirqs) and stamp t_ns. 0, or -1 with sq->why. */
int softirqs_read(struct softirqs *sq, const char *path);

/* NET_RX and NET_TX runs over a window, per CPU and in all. */
struct softirq_delta {
	bool ok;
	char why[200];
	double window_s;
	uint64_t net_rx, net_tx;   /* all CPUs */
	int n;
	struct { int cpu; uint64_t net_rx, net_tx; } cpu[PROCSTAT_MAX_CPUS];
};
/* out = b - a (modulo 2^32 per counter: one wrap in a window is counted right). 0 or -1. */
int softirqs_diff(const struct softirqs *a, const struct softirqs *b, struct softirq_delta *out);

/* One reading of /proc/stat (and of /proc/softirqs, taken just after it). */
struct procstat {
	bool ok;
	char why[160];             /* when !ok: what could not be read or parsed */
	uint64_t t_ns;             /* CLOCK_MONOTONIC when it was read */
	struct cpu_ticks all;
	int n;                     /* per-CPU lines, in file order */
	struct cpu_ticks cpu[PROCSTAT_MAX_CPUS];
	struct softirqs sq;        /* window_probe reads it alongside */
};

/* Parse the text of /proc/stat (only its leading cpu lines are used). 0, or -1 with ps->why. */
int procstat_parse(const char *text, struct procstat *ps);
/* Read and parse `path` (NULL: /proc/stat) and stamp t_ns. 0, or -1 with ps->why. */
int procstat_read(struct procstat *ps, const char *path);

struct cpu_interference {
	int cpu;
	double cpu_s, busy_s, idle_s, steal_s;
	double busy_frac, steal_frac;      /* of cpu_s; NaN (-> null) when cpu_s is 0 */
};

/* The difference of two readings. */
struct interference {
	bool ok;
	char why[200];             /* when !ok: the reason, printed as interference_unavailable */
	long user_hz;
	double window_s;           /* CLOCK_MONOTONIC time between the two readings */
	struct cpu_interference all;
	int n;                     /* CPUs present in both readings */
	struct cpu_interference cpu[PROCSTAT_MAX_CPUS];
	struct softirq_delta sq;   /* /proc/softirqs over the same window (its own ok and why) */
};

/* out = b - a in seconds (user_hz ticks per second). A reading that failed, a counter that
 * went backwards (other than iowait, folded into idle) or user_hz <= 0 make out->ok false
 * with the reason. Returns 0 or -1. */
int interference_diff(const struct procstat *a, const struct procstat *b, long user_hz,
		      struct interference *out);
/* "interference": {...} or null plus "interference_unavailable": reason; then "softirqs":
 * {...} or null plus "softirqs_unavailable": reason. */
void interference_json(struct json *j, const struct interference *in);
/* The same with "cpus" limited to the CPUs of `only` (NULL or empty: every CPU), at most `max`
 * of them; "cpus_truncated": true when more were left out. */
void interference_json_sel(struct json *j, const struct interference *in, const struct cpulist *only, int max);

/* The pair of readings a command takes at its window's edges. */
struct window_probe {
	struct procstat *start, *end;      /* heap: a reading is ~70 KB */
	bool started, ended;
};
void window_probe_init(struct window_probe *w);   /* allocates; failure is recorded, not fatal */
void window_probe_start(struct window_probe *w);  /* read at the window's start */
void window_probe_end(struct window_probe *w);    /* read at its end (only after a start) */
/* Difference into `out` (reason when a reading is missing); frees the readings. */
void window_probe_finish(struct window_probe *w, struct interference *out);
#endif

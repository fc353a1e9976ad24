/* Window counters (see counters.h). */
#include "counters.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *const counter_set_names[] = { "full", "rusage", NULL };

static const char *const counter_names[NCOUNTERS] = {
	"task_clock_ns", "context_switches", "cpu_migrations", "page_faults",
	"cycles", "instructions", "cache_references", "cache_misses",
	"l1d_load_misses", "llc_load_misses", "syscalls",
};

#define CACHE_CFG(cache, op, res) \
	((cache) | ((PERF_COUNT_HW_CACHE_OP_##op) << 8) | ((PERF_COUNT_HW_CACHE_RESULT_##res) << 16))

/* The id of raw_syscalls:sys_enter; tracefs may need mounting first (perf does the same). */
static long syscall_tracepoint_id(char *why, size_t len)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	char buf[32];

	for (int attempt = 0; attempt < 2; attempt++) {
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
			ssize_t n;
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				buf[n] = 0;
				return strtol(buf, NULL, 10);
			}
		}
		if (attempt == 0 && geteuid() == 0)
			mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	}
	snprintf(why, len, "raw_syscalls:sys_enter tracepoint not readable (tracefs not mounted or no permission)");
	return -1;
}

static int open_counter(struct perf_event_attr *attr, char *why, size_t len, const char *name)
{
	int fd;

	attr->size = sizeof(*attr);
	attr->disabled = 0;
	attr->exclude_hv = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* pid 0, cpu -1: this thread only, on whichever CPU it runs */
	fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, len, "perf_event_open(%s): %s%s", name, strerror(e),
			 (e == ENOENT || e == EOPNOTSUPP || e == ENODEV) ?
				 " (no hardware PMU exposed, e.g. in this VM)" :
			 (e == EACCES || e == EPERM) ? " (see kernel.perf_event_paranoid)" : "");
	}
	return fd;
}

void meter_open(struct meter *m, enum counter_set set)
{
	static const struct { uint32_t type; uint64_t config; } ev[NCOUNTERS] = {
		[C_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		[C_CONTEXT_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		[C_CPU_MIGRATIONS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		[C_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		[C_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		[C_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		[C_CACHE_REFERENCES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		[C_CACHE_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		[C_L1D_LOAD_MISSES] = { PERF_TYPE_HW_CACHE, CACHE_CFG(PERF_COUNT_HW_CACHE_L1D, READ, MISS) },
		[C_LLC_LOAD_MISSES] = { PERF_TYPE_HW_CACHE, CACHE_CFG(PERF_COUNT_HW_CACHE_LL, READ, MISS) },
		[C_SYSCALLS] = { PERF_TYPE_TRACEPOINT, 0 },
	};

	memset(m, 0, sizeof(*m));
	for (int i = 0; i < NCOUNTERS; i++) {
		struct perf_event_attr attr;

		if (set == COUNTERS_RUSAGE) {
			m->fd[i] = -1;
			snprintf(m->why[i], sizeof(m->why[i]), "not measured: --counters rusage (perf events perturb latency)");
			continue;
		}

		memset(&attr, 0, sizeof(attr));
		attr.type = ev[i].type;
		attr.config = ev[i].config;
		if (i == C_SYSCALLS) {
			long id = syscall_tracepoint_id(m->why[i], sizeof(m->why[i]));
			if (id < 0) {
				m->fd[i] = -1;
				continue;
			}
			attr.config = (uint64_t)id;
		}
		m->fd[i] = open_counter(&attr, m->why[i], sizeof(m->why[i]), counter_names[i]);
	}
	m->opened = true;
}

void meter_close(struct meter *m)
{
	if (!m->opened)
		return;
	for (int i = 0; i < NCOUNTERS; i++)
		if (m->fd[i] >= 0)
			close(m->fd[i]);
	m->opened = false;
}

static void snapshot(struct meter *m, struct snap *s)
{
	/* syscalls read last at the start and first at the end keeps our reads out of it */
	if (m->fd[C_SYSCALLS] >= 0 && s == &m->end) {
		uint64_t r[3];
		if (read(m->fd[C_SYSCALLS], r, sizeof(r)) == sizeof(r))
			s->v[C_SYSCALLS] = r[0];
	}
	s->t_ns = now_ns();
	s->bytes = m->bytes;
	s->messages = m->messages;
	getrusage(RUSAGE_THREAD, &s->ru);
	for (int i = 0; i < NCOUNTERS; i++) {
		uint64_t r[3]; /* value, time enabled, time running */
		if (m->fd[i] < 0 || i == C_SYSCALLS)
			continue;
		if (read(m->fd[i], r, sizeof(r)) != sizeof(r))
			continue;
		/* scale if the PMU multiplexed this counter */
		s->v[i] = (r[2] && r[2] < r[1]) ? (uint64_t)((double)r[0] * r[1] / r[2]) : r[0];
	}
	if (m->fd[C_SYSCALLS] >= 0 && s == &m->start) {
		uint64_t r[3];
		if (read(m->fd[C_SYSCALLS], r, sizeof(r)) == sizeof(r))
			s->v[C_SYSCALLS] = r[0];
	}
}

void meter_transition(struct meter *m, int phase)
{
	if (!m->opened) { /* never measured (failed before meter_open): nothing to snapshot */
		m->seen = phase;
		return;
	}
	if (phase >= PHASE_MEASURE && !m->have_start) {
		snapshot(m, &m->start);
		m->have_start = true;
	}
	if (phase >= PHASE_STOP && !m->have_end) {
		snapshot(m, &m->end);
		m->have_end = true;
	}
	m->seen = phase;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void side_totals(struct side_totals *t, struct meter *const *m, int n)
{
	memset(t, 0, sizeof(*t));
	for (int c = 0; c < NCOUNTERS; c++)
		t->have[c] = true;
	for (int i = 0; i < n; i++) {
		const struct meter *x = m[i];
		const struct snap *a = &x->start, *b = &x->end;

		if (!x->have_start || !x->have_end)
			continue;
		t->threads++;
		t->bytes += b->bytes - a->bytes;
		t->messages += b->messages - a->messages;
		if (!t->t_first_ns || a->t_ns < t->t_first_ns)
			t->t_first_ns = a->t_ns;
		if (b->t_ns > t->t_last_ns)
			t->t_last_ns = b->t_ns;
		t->utime_s += tv_s(b->ru.ru_utime) - tv_s(a->ru.ru_utime);
		t->stime_s += tv_s(b->ru.ru_stime) - tv_s(a->ru.ru_stime);
		t->vol_cs += (uint64_t)(b->ru.ru_nvcsw - a->ru.ru_nvcsw);
		t->invol_cs += (uint64_t)(b->ru.ru_nivcsw - a->ru.ru_nivcsw);
		t->minflt += (uint64_t)(b->ru.ru_minflt - a->ru.ru_minflt);
		t->majflt += (uint64_t)(b->ru.ru_majflt - a->ru.ru_majflt);
		for (int c = 0; c < NCOUNTERS; c++) {
			if (x->fd[c] < 0) {
				if (t->have[c])
					memcpy(t->why[c], x->why[c], sizeof(t->why[c]));
				t->have[c] = false;
			} else {
				t->v[c] += b->v[c] - a->v[c];
			}
		}
	}
	if (!t->threads)
		for (int c = 0; c < NCOUNTERS; c++) {
			t->have[c] = false;
			snprintf(t->why[c], sizeof(t->why[c]), "no thread completed a measured window");
		}
}

void side_totals_json(struct json *j, const char *key, const struct side_totals *t)
{
	bool any_missing = false;

	json_begin(j, key);
	json_u64(j, "threads", (uint64_t)t->threads);
	json_u64(j, "bytes", t->bytes);
	json_u64(j, "messages", t->messages);
	json_double(j, "seconds", (double)(t->t_last_ns - t->t_first_ns) / 1e9);
	json_double(j, "utime_s", t->utime_s);
	json_double(j, "stime_s", t->stime_s);
	json_u64(j, "vol_ctx_switches", t->vol_cs);
	json_u64(j, "invol_ctx_switches", t->invol_cs);
	json_u64(j, "minor_faults", t->minflt);
	json_u64(j, "major_faults", t->majflt);
	if (t->have[C_SYSCALLS])
		json_u64(j, "syscalls", t->v[C_SYSCALLS]);
	else
		json_null(j, "syscalls");
	json_begin(j, "counters");
	for (int c = 0; c < C_SYSCALLS; c++) {
		if (t->have[c])
			json_u64(j, counter_names[c], t->v[c]);
		else {
			json_null(j, counter_names[c]);
			any_missing = true;
		}
	}
	json_end(j);
	json_begin(j, "counters_unavailable");
	if (any_missing || !t->have[C_SYSCALLS])
		for (int c = 0; c < NCOUNTERS; c++)
			if (!t->have[c])
				json_str(j, counter_names[c], t->why[c]);
	json_end(j);
	json_end(j);
}

/* Window counters (see counters.h). */
#include "counters.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
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

	/* not run_bytes: a sampler may be reading it (counters.h) */
	memset(m, 0, offsetof(struct meter, run_bytes));
	meter_set_socket(m, -1, false, "no socket");
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

void meter_set_socket(struct meter *m, int fd, bool tcp, const char *why)
{
	m->sock_fd = fd;
	m->sock_tcp = tcp;
	snprintf(m->sock_why, sizeof(m->sock_why), "%s", fd < 0 && why ? why : "");
}

/* The socket's buffer sizes and TCP state now. SO_SNDBUF/SO_RCVBUF report what the kernel
 * uses (sk_sndbuf/sk_rcvbuf: twice a setsockopt value, or what TCP autotuning grew them to,
 * socket(7)). TCP_INFO copies min(optlen, the kernel's sizeof(struct tcp_info)) bytes and
 * writes that length back (tcp_getsockopt), so an older kernel fills a prefix: ti_len says
 * which fields it provided. */
static void sock_read(const struct meter *m, struct sockstate *ss)
{
	socklen_t len = sizeof(ss->sndbuf);

	ss->have_buf = ss->have_tcp = false;
	ss->why[0] = 0;
	if (m->sock_fd < 0) {
		snprintf(ss->why, sizeof(ss->why), "%s", m->sock_why);
		return;
	}
	if (getsockopt(m->sock_fd, SOL_SOCKET, SO_SNDBUF, &ss->sndbuf, &len) ||
	    (len = sizeof(ss->rcvbuf), getsockopt(m->sock_fd, SOL_SOCKET, SO_RCVBUF, &ss->rcvbuf, &len))) {
		snprintf(ss->why, sizeof(ss->why), "getsockopt(SO_SNDBUF/SO_RCVBUF): %s", strerror(errno));
		return;
	}
	ss->have_buf = true;
	if (!m->sock_tcp) {
		snprintf(ss->why, sizeof(ss->why), "udp: no TCP_INFO");
		return;
	}
	ss->ti_len = sizeof(ss->ti);
	if (getsockopt(m->sock_fd, IPPROTO_TCP, TCP_INFO, &ss->ti, &ss->ti_len)) {
		snprintf(ss->why, sizeof(ss->why), "getsockopt(TCP_INFO): %s", strerror(errno));
		return;
	}
	ss->have_tcp = true;
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
	/* the socket's state outside the window: read before the start snapshot's clock and
	 * counters, after the end snapshot's (below), so its three getsockopt calls count in
	 * neither the window's time, CPU time nor syscalls */
	if (s == &m->start)
		sock_read(m, &s->sock);
	/* syscalls read last at the start and first at the end keeps our reads out of it */
	if (m->fd[C_SYSCALLS] >= 0 && s == &m->end) {
		uint64_t r[3];
		if (read(m->fd[C_SYSCALLS], r, sizeof(r)) == sizeof(r))
			s->v[C_SYSCALLS] = r[0];
	}
	s->t_ns = now_ns();
	s->bytes = meter_bytes(m);
	/* where the thread runs now: glibc reads it from the rseq area the kernel keeps current
	 * (no system call since glibc 2.35), else getcpu(2) through the vDSO */
	s->cpu = sched_getcpu();
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
	if (s == &m->end)
		sock_read(m, &s->sock);
}

void slicer_sample(struct slicer *const *s, struct meter *const *m, int n)
{
	uint64_t t = now_ns(); /* one edge for all: the totals below are read within microseconds */

	for (int i = 0; i < n; i++) {
		if (!s[i] || s[i]->n >= SLICE_EDGES)
			continue;
		s[i]->t_ns[s[i]->n] = t;
		s[i]->bytes[s[i]->n] = meter_bytes(m[i]);
		s[i]->n++;
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

/* t's slices from the meters' slicers: each thread's running total at an edge, clamped into
 * its own window (a thread blocked at the edge, before its start or after its end snapshot,
 * moved none of those bytes in the window), differenced; the edges' times clamped into the
 * side's window the same way. So the slices add up to the side's bytes and seconds exactly. */
static void side_slices(struct side_totals *t, struct meter *const *m, struct slicer *const *sl, int n)
{
	const struct slicer *edges = NULL;
	uint64_t e[SLICES + 1];

	for (int i = 0; i < n; i++) {
		uint64_t c[SLICES + 1];

		if (!m[i]->have_start || !m[i]->have_end)
			continue;
		if (!sl[i] || sl[i]->n < SLICE_EDGES) {
			snprintf(t->slices_why, sizeof(t->slices_why), "only %d of the window's %d slice edges were "
				 "read inside it (it was cut short, or the sink saw its start late)",
				 sl[i] ? sl[i]->n : 0, SLICE_EDGES);
			return;
		}
		if (!edges)
			edges = sl[i];
		c[0] = m[i]->start.bytes;
		c[SLICES] = m[i]->end.bytes;
		for (int k = 1; k < SLICES; k++) {
			uint64_t x = sl[i]->bytes[k - 1];
			c[k] = x < c[0] ? c[0] : x > c[SLICES] ? c[SLICES] : x;
		}
		for (int k = 0; k < SLICES; k++)
			t->slice_bytes[k] += c[k + 1] - c[k];
	}
	if (!edges) {
		snprintf(t->slices_why, sizeof(t->slices_why), "no thread completed a measured window");
		return;
	}
	e[0] = t->t_first_ns;
	e[SLICES] = t->t_last_ns;
	for (int k = 1; k < SLICES; k++) {
		uint64_t x = edges->t_ns[k - 1];
		e[k] = x < e[0] ? e[0] : x > e[SLICES] ? e[SLICES] : x;
	}
	for (int k = 0; k < SLICES; k++)
		t->slice_secs[k] = (double)(e[k + 1] - e[k]) / 1e9;
	t->have_slices = true;
}

void side_totals(struct side_totals *t, struct meter *const *m, struct slicer *const *sl, int n,
		 double slice_s, const char *why)
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
		if (t->nm < (int)(sizeof(t->m) / sizeof(t->m[0])))
			t->m[t->nm++] = x;
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
	t->slice_s = slice_s;
	if (slice_s > 0 && sl)
		side_slices(t, m, sl, n);
	else
		snprintf(t->slices_why, sizeof(t->slices_why), "%s", why ? why : "not sliced");
}

/* "key": [one number per listed thread], null where that thread's value is missing */
static void edge_ints(struct json *j, const char *key, const struct side_totals *t, int listed,
		      bool end, int which)
{
	json_begin_array(j, key);
	for (int i = 0; i < listed; i++) {
		const struct snap *s = end ? &t->m[i]->end : &t->m[i]->start;
		if (which == 0)
			s->cpu >= 0 ? json_i64(j, NULL, s->cpu) : json_null(j, NULL);
		else if (!s->sock.have_buf)
			json_null(j, NULL);
		else
			json_i64(j, NULL, which == 1 ? s->sock.sndbuf : s->sock.rcvbuf);
	}
	json_end_array(j);
}

/* a tcp_info field, or null when the kernel's struct (ti_len bytes of it) ends before it */
#define TI_FIELD(j, key, ss, f)                                                            \
	((ss)->ti_len >= offsetof(struct tcp_info, f) + sizeof((ss)->ti.f) ? json_u64(j, key, (ss)->ti.f) \
									  : json_null(j, key))

static void tcp_info_json(struct json *j, const struct sockstate *ss)
{
	if (!ss->have_tcp) {
		json_null(j, NULL);
		return;
	}
	json_begin(j, NULL);
	TI_FIELD(j, "snd_cwnd", ss, tcpi_snd_cwnd);     /* segments */
	TI_FIELD(j, "rtt_us", ss, tcpi_rtt);            /* smoothed RTT, microseconds */
	TI_FIELD(j, "rttvar_us", ss, tcpi_rttvar);
	TI_FIELD(j, "rcv_space", ss, tcpi_rcv_space);   /* receive-buffer autotuning's estimate, bytes */
	TI_FIELD(j, "total_retrans", ss, tcpi_total_retrans);
	TI_FIELD(j, "snd_mss", ss, tcpi_snd_mss);
	TI_FIELD(j, "rcv_mss", ss, tcpi_rcv_mss);
	TI_FIELD(j, "unacked", ss, tcpi_unacked);       /* segments sent, not yet acknowledged */
	json_end(j);
}

/* The threads' state at the window's two edges: CPUs, socket buffers, TCP state. */
static void edges_json(struct json *j, const struct side_totals *t)
{
	int listed = t->list_max > 0 && t->nm > t->list_max ? t->list_max : t->nm;
	const char *why = NULL;

	edge_ints(j, "cpu_start", t, listed, false, 0);
	edge_ints(j, "cpu_end", t, listed, true, 0);
	edge_ints(j, "sndbuf_start", t, listed, false, 1);
	edge_ints(j, "sndbuf_end", t, listed, true, 1);
	edge_ints(j, "rcvbuf_start", t, listed, false, 2);
	edge_ints(j, "rcvbuf_end", t, listed, true, 2);
	for (int e = 0; e < 2; e++) {
		json_begin_array(j, e ? "tcp_info_end" : "tcp_info_start");
		for (int i = 0; i < listed; i++) {
			const struct sockstate *ss = e ? &t->m[i]->end.sock : &t->m[i]->start.sock;
			tcp_info_json(j, ss);
			if (!why && (!ss->have_buf || !ss->have_tcp))
				why = ss->why;
		}
		json_end_array(j);
	}
	json_str(j, "sockets_unavailable", why);
	if (listed < t->nm)
		json_bool(j, "threads_truncated", true);
}

static void slices_json(struct json *j, const struct side_totals *t)
{
	if (t->slice_s > 0)
		json_double(j, "slice_s", t->slice_s);
	else
		json_null(j, "slice_s");
	if (!t->have_slices) {
		json_null(j, "slices_bytes");
		json_null(j, "slices_s");
		json_str(j, "slices_unavailable", t->slices_why);
		return;
	}
	json_begin_array(j, "slices_bytes");
	for (int k = 0; k < SLICES; k++)
		json_u64(j, NULL, t->slice_bytes[k]);
	json_end_array(j);
	json_begin_array(j, "slices_s");
	for (int k = 0; k < SLICES; k++)
		json_double(j, NULL, t->slice_secs[k]);
	json_end_array(j);
	json_null(j, "slices_unavailable");
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
	slices_json(j, t);
	edges_json(j, t);
	json_end(j);
}

/* /proc/stat readings at a window's edges and their difference (see procstat.h). */
#include "procstat.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#define PROCSTAT_BUF (128u << 10) /* the cpu lines of 1024 CPUs fit; the rest is not needed */

static const char *const field_names[PS_NFIELDS] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

/* One "cpu..." line into t; returns 0 or -1 with why. */
static int parse_cpu_line(const char *line, size_t len, struct cpu_ticks *t, char *why, size_t wlen)
{
	const char *p = line + 3, *end = line + len;
	int nf = 0;

	if (p < end && *p >= '0' && *p <= '9') {
		long cpu = 0;
		while (p < end && *p >= '0' && *p <= '9' && cpu < 1000000)
			cpu = cpu * 10 + (*p++ - '0');
		t->cpu = (int)cpu;
	} else {
		t->cpu = -1;
	}
	if (p >= end || *p != ' ') {
		snprintf(why, wlen, "/proc/stat: malformed line '%.40s'", line);
		return -1;
	}
	while (nf < PS_NFIELDS) {
		uint64_t v = 0;
		int digits = 0;

		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		while (p < end && *p >= '0' && *p <= '9') {
			v = v * 10 + (uint64_t)(*p++ - '0');
			digits++;
		}
		if (!digits || (p < end && *p != ' ')) {
			snprintf(why, wlen, "/proc/stat: malformed field %d of '%.40s'", nf + 1, line);
			return -1;
		}
		t->f[nf++] = v;
	}
	if (nf < PS_NFIELDS) {
		snprintf(why, wlen, "/proc/stat: %.6s has %d fields, need %d (user..steal; kernel >= 2.6.11)",
			 line, nf, PS_NFIELDS);
		return -1;
	}
	return 0;
}

int procstat_parse(const char *text, struct procstat *ps)
{
	const char *p = text;
	bool have_all = false;

	ps->ok = false;
	ps->why[0] = 0;
	ps->n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct cpu_ticks t;

		if (len < 3 || strncmp(p, "cpu", 3))
			break; /* the cpu lines come first; intr, ctxt... are not used */
		if (parse_cpu_line(p, len, &t, ps->why, sizeof(ps->why)))
			return -1;
		if (t.cpu < 0) {
			if (have_all) {
				snprintf(ps->why, sizeof(ps->why), "/proc/stat: two aggregate cpu lines");
				return -1;
			}
			ps->all = t;
			have_all = true;
		} else if (ps->n >= PROCSTAT_MAX_CPUS) {
			snprintf(ps->why, sizeof(ps->why), "/proc/stat: more than %d CPUs", PROCSTAT_MAX_CPUS);
			return -1;
		} else {
			ps->cpu[ps->n++] = t;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!have_all) {
		snprintf(ps->why, sizeof(ps->why), "/proc/stat: no aggregate 'cpu' line");
		return -1;
	}
	ps->ok = true;
	return 0;
}

int procstat_read(struct procstat *ps, const char *path)
{
	char *buf = malloc(PROCSTAT_BUF);
	size_t have = 0;
	int fd, rc;

	ps->ok = false;
	if (!path)
		path = "/proc/stat";
	if (!buf) {
		snprintf(ps->why, sizeof(ps->why), "%s: out of memory", path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(ps->why, sizeof(ps->why), "%s: %s", path, strerror(errno));
		free(buf);
		return -1;
	}
	for (;;) { /* procfs hands out the file in pieces: read to EOF or a full buffer */
		ssize_t n;

		if (!have) /* the kernel fills in the whole file at the first read */
			ps->t_ns = now_ns();
		n = read(fd, buf + have, PROCSTAT_BUF - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(ps->why, sizeof(ps->why), "%s: read: %s", path, strerror(errno));
			close(fd);
			free(buf);
			return -1;
		}
		if (n == 0 || (have += (size_t)n) == PROCSTAT_BUF - 1)
			break;
	}
	close(fd);
	buf[have] = 0;
	rc = procstat_parse(buf, ps);
	if (rc && !have)
		snprintf(ps->why, sizeof(ps->why), "%s: empty", path);
	free(buf);
	return rc;
}

#define SOFTIRQS_BUF (256u << 10) /* 11 lines of ~11 bytes per CPU: 1024 CPUs fit */

/* The counts of one softirq line ("NET_RX: 1 2 ...") into v[n]; -1 with why. */
static int softirq_row(const char *p, const char *end, int n, uint32_t *v, char *why, size_t wlen,
		       const char *name)
{
	for (int i = 0; i < n; i++) {
		uint64_t x = 0;
		int digits = 0;

		while (p < end && *p == ' ')
			p++;
		while (p < end && *p >= '0' && *p <= '9' && digits < 20) {
			x = x * 10 + (uint64_t)(*p++ - '0');
			digits++;
		}
		if (!digits || x > UINT32_MAX) {
			snprintf(why, wlen, "/proc/softirqs: %s has a bad or missing count for column %d", name, i + 1);
			return -1;
		}
		v[i] = (uint32_t)x;
	}
	return 0;
}

int softirqs_parse(const char *text, struct softirqs *sq)
{
	const char *p = text, *nl = strchr(text, '\n');
	bool have_rx = false, have_tx = false;

	sq->ok = false;
	sq->why[0] = 0;
	sq->n = 0;
	if (!nl) {
		snprintf(sq->why, sizeof(sq->why), "/proc/softirqs: no header line");
		return -1;
	}
	/* the header: one "CPUn" per column */
	while (p < nl) {
		while (p < nl && *p == ' ')
			p++;
		if (p >= nl)
			break;
		if (nl - p < 4 || strncmp(p, "CPU", 3) || p[3] < '0' || p[3] > '9') {
			snprintf(sq->why, sizeof(sq->why), "/proc/softirqs: header is not CPU0 CPU1 ...: '%.40s'", text);
			return -1;
		}
		if (sq->n >= PROCSTAT_MAX_CPUS) {
			snprintf(sq->why, sizeof(sq->why), "/proc/softirqs: more than %d CPUs", PROCSTAT_MAX_CPUS);
			return -1;
		}
		p += 3;
		sq->cpu[sq->n] = 0;
		while (p < nl && *p >= '0' && *p <= '9' && sq->cpu[sq->n] < 1000000)
			sq->cpu[sq->n] = sq->cpu[sq->n] * 10 + (*p++ - '0');
		sq->n++;
	}
	if (!sq->n) {
		snprintf(sq->why, sizeof(sq->why), "/proc/softirqs: no CPU in the header");
		return -1;
	}
	/* the rows: "   NAME: c0 c1 ..." */
	for (p = nl + 1; *p; p = nl + 1) {
		const char *colon, *end;

		nl = strchr(p, '\n');
		end = nl ? nl : p + strlen(p);
		while (p < end && *p == ' ')
			p++;
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon && colon - p == 6 && !strncmp(p, "NET_RX", 6)) {
			if (softirq_row(colon + 1, end, sq->n, sq->net_rx, sq->why, sizeof(sq->why), "NET_RX"))
				return -1;
			have_rx = true;
		} else if (colon && colon - p == 6 && !strncmp(p, "NET_TX", 6)) {
			if (softirq_row(colon + 1, end, sq->n, sq->net_tx, sq->why, sizeof(sq->why), "NET_TX"))
				return -1;
			have_tx = true;
		}
		if (!nl)
			break;
	}
	if (!have_rx || !have_tx) {
		snprintf(sq->why, sizeof(sq->why), "/proc/softirqs: no %s line", have_rx ? "NET_TX" : "NET_RX");
		return -1;
	}
	sq->ok = true;
	return 0;
}

int softirqs_read(struct softirqs *sq, const char *path)
{
	char *buf = malloc(SOFTIRQS_BUF);
	size_t have = 0;
	int fd, rc;

	sq->ok = false;
	if (!path)
		path = "/proc/softirqs";
	if (!buf) {
		snprintf(sq->why, sizeof(sq->why), "%s: out of memory", path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(sq->why, sizeof(sq->why), "%s: %s", path, strerror(errno));
		free(buf);
		return -1;
	}
	for (;;) { /* seq_file hands the file out in pieces: read to EOF */
		ssize_t n;

		if (!have)
			sq->t_ns = now_ns();
		n = read(fd, buf + have, SOFTIRQS_BUF - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(sq->why, sizeof(sq->why), "%s: read: %s", path, strerror(errno));
			close(fd);
			free(buf);
			return -1;
		}
		if (n == 0 || (have += (size_t)n) == SOFTIRQS_BUF - 1)
			break;
	}
	close(fd);
	buf[have] = 0;
	if (have == SOFTIRQS_BUF - 1) { /* a cut row would parse as a short one: refuse */
		snprintf(sq->why, sizeof(sq->why), "%s: larger than %u bytes", path, SOFTIRQS_BUF - 1);
		free(buf);
		return -1;
	}
	rc = have ? softirqs_parse(buf, sq) : -1;
	if (!have)
		snprintf(sq->why, sizeof(sq->why), "%s: empty", path);
	free(buf);
	return rc;
}

int softirqs_diff(const struct softirqs *a, const struct softirqs *b, struct softirq_delta *out)
{
	out->ok = false;
	out->why[0] = 0;
	out->n = 0;
	out->net_rx = out->net_tx = 0;
	if (!a->ok || !b->ok) {
		snprintf(out->why, sizeof(out->why), "%s", !a->ok ? a->why : b->why);
		return -1;
	}
	out->window_s = (double)(b->t_ns - a->t_ns) / 1e9;
	/* columns matched by CPU number (the header lists every possible CPU, so they agree) */
	for (int i = 0, k = 0; i < a->n; i++) {
		while (k < b->n && b->cpu[k] < a->cpu[i])
			k++;
		if (k >= b->n || b->cpu[k] != a->cpu[i])
			continue;
		out->cpu[out->n].cpu = a->cpu[i];
		/* unsigned int counters: the difference modulo 2^32 is right across one wrap */
		out->cpu[out->n].net_rx = (uint32_t)(b->net_rx[k] - a->net_rx[i]);
		out->cpu[out->n].net_tx = (uint32_t)(b->net_tx[k] - a->net_tx[i]);
		out->net_rx += out->cpu[out->n].net_rx;
		out->net_tx += out->cpu[out->n].net_tx;
		out->n++;
	}
	out->ok = true;
	return 0;
}

/* d = b - a for one CPU; -1 with why when a counter went backwards. */
static int diff_one(const struct cpu_ticks *a, const struct cpu_ticks *b, double hz,
		    struct cpu_interference *d, char *why, size_t wlen)
{
	uint64_t busy = 0, total = 0;
	char name[24];

	if (a->cpu < 0)
		snprintf(name, sizeof(name), "cpu");
	else
		snprintf(name, sizeof(name), "cpu%d", a->cpu);
	for (int f = 0; f < PS_NFIELDS; f++) {
		/* iowait "is not reliable" and may decrease (proc(5)): only idle + iowait must not */
		if (f == PS_IDLE || f == PS_IOWAIT)
			continue;
		if (b->f[f] < a->f[f]) {
			snprintf(why, wlen, "/proc/stat: %s of %s went backwards (%llu -> %llu)",
				 field_names[f], name, (unsigned long long)a->f[f], (unsigned long long)b->f[f]);
			return -1;
		}
	}
	if (b->f[PS_IDLE] + b->f[PS_IOWAIT] < a->f[PS_IDLE] + a->f[PS_IOWAIT]) {
		snprintf(why, wlen, "/proc/stat: idle+iowait of %s went backwards", name);
		return -1;
	}
	for (int f = 0; f < PS_NFIELDS; f++) {
		uint64_t v = b->f[f] - a->f[f]; /* idle/iowait alone may wrap; their sum is right */
		total += v;
		if (f == PS_USER || f == PS_NICE || f == PS_SYSTEM || f == PS_IRQ || f == PS_SOFTIRQ)
			busy += v;
	}
	d->cpu = a->cpu;
	d->cpu_s = (double)total / hz;
	d->busy_s = (double)busy / hz;
	d->steal_s = (double)(b->f[PS_STEAL] - a->f[PS_STEAL]) / hz;
	d->idle_s = (double)((b->f[PS_IDLE] + b->f[PS_IOWAIT]) - (a->f[PS_IDLE] + a->f[PS_IOWAIT])) / hz;
	d->busy_frac = total ? (double)busy / (double)total : NAN;
	d->steal_frac = total ? (double)(b->f[PS_STEAL] - a->f[PS_STEAL]) / (double)total : NAN;
	return 0;
}

int interference_diff(const struct procstat *a, const struct procstat *b, long user_hz,
		      struct interference *out)
{
	out->ok = false;
	out->why[0] = 0;
	out->n = 0;
	out->user_hz = user_hz;
	if (!a->ok || !b->ok) {
		snprintf(out->why, sizeof(out->why), "%s", !a->ok ? a->why : b->why);
		return -1;
	}
	if (user_hz <= 0) {
		snprintf(out->why, sizeof(out->why), "sysconf(_SC_CLK_TCK) gave %ld", user_hz);
		return -1;
	}
	out->window_s = (double)(b->t_ns - a->t_ns) / 1e9;
	if (diff_one(&a->all, &b->all, (double)user_hz, &out->all, out->why, sizeof(out->why)))
		return -1;
	/* CPUs are matched by number: one that went offline or came online in between is left out */
	for (int i = 0, k = 0; i < a->n; i++) {
		while (k < b->n && b->cpu[k].cpu < a->cpu[i].cpu)
			k++;
		if (k >= b->n || b->cpu[k].cpu != a->cpu[i].cpu)
			continue;
		if (diff_one(&a->cpu[i], &b->cpu[k], (double)user_hz, &out->cpu[out->n], out->why, sizeof(out->why)))
			return -1;
		out->n++;
	}
	out->ok = true;
	return 0;
}

static void cpu_json(struct json *j, const char *key, const struct cpu_interference *c)
{
	json_begin(j, key);
	if (c->cpu >= 0)
		json_i64(j, "cpu", c->cpu);
	json_double(j, "cpu_s", c->cpu_s);
	json_double(j, "busy_s", c->busy_s);
	json_double(j, "busy_frac", c->busy_frac);
	json_double(j, "steal_s", c->steal_s);
	json_double(j, "steal_frac", c->steal_frac);
	json_double(j, "idle_s", c->idle_s);
	json_end(j);
}

static bool listed(const struct cpulist *only, int cpu)
{
	if (!only || !only->n)
		return true;
	for (int i = 0; i < only->n; i++)
		if (only->cpu[i] == cpu)
			return true;
	return false;
}

void interference_json(struct json *j, const struct interference *in)
{
	interference_json_sel(j, in, NULL, PROCSTAT_MAX_CPUS);
}

static void softirqs_json(struct json *j, const struct softirq_delta *d, const struct cpulist *only, int max)
{
	int shown = 0;
	bool truncated = false;

	if (!d || !d->ok) {
		json_null(j, "softirqs");
		json_str(j, "softirqs_unavailable", d ? d->why : "not measured");
		return;
	}
	json_begin(j, "softirqs");
	json_str(j, "source", "/proc/softirqs");
	json_double(j, "window_s", d->window_s);
	json_u64(j, "net_rx", d->net_rx);
	json_u64(j, "net_tx", d->net_tx);
	json_begin_array(j, "cpus");
	for (int i = 0; i < d->n; i++) {
		if (!listed(only, d->cpu[i].cpu))
			continue;
		if (shown == max) {
			truncated = true;
			break;
		}
		json_begin(j, NULL);
		json_i64(j, "cpu", d->cpu[i].cpu);
		json_u64(j, "net_rx", d->cpu[i].net_rx);
		json_u64(j, "net_tx", d->cpu[i].net_tx);
		json_end(j);
		shown++;
	}
	json_end_array(j);
	if (truncated)
		json_bool(j, "cpus_truncated", true);
	json_end(j);
	json_null(j, "softirqs_unavailable");
}

static void interference_only_json(struct json *j, const struct interference *in, const struct cpulist *only,
				   int max);

void interference_json_sel(struct json *j, const struct interference *in, const struct cpulist *only, int max)
{
	interference_only_json(j, in, only, max);
	softirqs_json(j, in ? &in->sq : NULL, only, max);
}

static void interference_only_json(struct json *j, const struct interference *in, const struct cpulist *only,
				   int max)
{
	int shown = 0;
	bool truncated = false;

	if (!in || !in->ok) {
		json_null(j, "interference");
		json_str(j, "interference_unavailable", in ? in->why : "not measured");
		return;
	}
	json_begin(j, "interference");
	json_str(j, "source", "/proc/stat");
	json_i64(j, "user_hz", in->user_hz);
	json_double(j, "window_s", in->window_s);
	/* the host as a whole (the aggregate line), then each CPU */
	json_double(j, "cpu_s", in->all.cpu_s);
	json_double(j, "busy_s", in->all.busy_s);
	json_double(j, "busy_frac", in->all.busy_frac);
	json_double(j, "steal_s", in->all.steal_s);
	json_double(j, "steal_frac", in->all.steal_frac);
	json_double(j, "idle_s", in->all.idle_s);
	json_begin_array(j, "cpus");
	for (int i = 0; i < in->n; i++) {
		if (!listed(only, in->cpu[i].cpu))
			continue;
		if (shown == max) {
			truncated = true;
			break;
		}
		cpu_json(j, NULL, &in->cpu[i]);
		shown++;
	}
	json_end_array(j);
	if (truncated)
		json_bool(j, "cpus_truncated", true);
	json_end(j);
	json_null(j, "interference_unavailable");
}

void window_probe_init(struct window_probe *w)
{
	*w = (struct window_probe){ .start = calloc(1, sizeof(struct procstat)),
				    .end = calloc(1, sizeof(struct procstat)) };
}

void window_probe_start(struct window_probe *w)
{
	if (w->start && !w->started) {
		procstat_read(w->start, NULL);
		softirqs_read(&w->start->sq, NULL);
		w->started = true;
	}
}

void window_probe_end(struct window_probe *w)
{
	if (w->end && w->started && !w->ended) {
		softirqs_read(&w->end->sq, NULL); /* the reverse order: both readings bracket the window */
		procstat_read(w->end, NULL);
		w->ended = true;
	}
}

void window_probe_finish(struct window_probe *w, struct interference *out)
{
	out->ok = false;
	out->n = 0;
	out->sq.ok = false;
	out->sq.n = 0;
	if (!w->start || !w->end)
		snprintf(out->why, sizeof(out->why), "out of memory for the /proc/stat readings");
	else if (!w->started)
		snprintf(out->why, sizeof(out->why), "the measured window never started");
	else if (!w->ended)
		snprintf(out->why, sizeof(out->why), "the measured window never ended");
	else {
		interference_diff(w->start, w->end, sysconf(_SC_CLK_TCK), out);
		softirqs_diff(&w->start->sq, &w->end->sq, &out->sq);
	}
	if (!(w->start && w->end && w->started && w->ended))
		snprintf(out->sq.why, sizeof(out->sq.why), "%s", out->why);
	free(w->start);
	free(w->end);
	w->start = w->end = NULL;
}

/* `copybench send`: N connections, each with its own sender thread, against a sink. The main
 * thread only keeps time: warm-up, then the measured window, then stop; workers take their
 * own counter snapshots at the first operation after each phase change. */
#include "control.h"
#include "histo.h"
#include "method.h"
#include "record.h"
#include "sendopts.h"
#include "socket.h"
#include "srcfile.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct sender {
	int index;
	const struct send_opts *o;
	const struct method *m;
	struct mctx ctx;
	struct meter meter, helper_meter;
	struct histo rtt;
	struct err err;
	_Atomic int *phase;
	struct gate *gate;
	uint64_t reply_timeouts;  /* UDP pingpong: replies that never came (lost datagrams) */
	pthread_t tid;
};

/* Workers set up (pin, counters, buffers), then wait here so all start sending together. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;
	bool open;
};

static void gate_arrive(struct gate *g, bool wait)
{
	pthread_mutex_lock(&g->mu);
	g->ready++;
	pthread_cond_broadcast(&g->cv);
	while (wait && !g->open)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

/* main: wait for n arrivals, then let everyone go */
static void gate_open(struct gate *g, int n)
{
	pthread_mutex_lock(&g->mu);
	while (g->ready < n)
		pthread_cond_wait(&g->cv, &g->mu);
	g->open = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static int file_progress(struct pass *p, struct meter *m, uint64_t bytes)
{
	const struct sender *s = p->arg;

	m->bytes += bytes;
	return meter_tick(m, s->phase);
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct send_opts *o = s->o;
	struct mctx *c = &s->ctx;
	uint8_t *echo = NULL;
	bool opened = false;

	/* a comm of its own, so a system-wide CPU profile tells the sending threads from the
	 * sink's (cb-sink.N) without subtraction, and this trial's from any other copybench's:
	 * N = the pattern seed mod 100000, which the sink learns in HELLO */
	name_thread("cb-send", o->t.seed);
	if (pin_to_cpu(&o->t.cpus, s->index, &s->err))
		goto out;
	meter_open(&s->meter, o->t.counters);
	if (s->m->open && s->m->open(c))
		goto out;
	opened = true;
	if (o->mode == MODE_PINGPONG && !(echo = malloc(o->t.size + 1))) {
		err_set(&s->err, "out of memory");
		goto out;
	}
	gate_arrive(s->gate, true);

	if (s->m->kinds & M_FILE_SOCK) {
		struct pass p = { .progress = file_progress, .arg = s, .meter = &s->meter };
		while (!meter_tick(&s->meter, s->phase)) {
			if (o->t.cache == 1 && drop_cache(c->src_fd, &s->err))
				goto out;
			if (s->m->pass(c, &p))
				goto out;
			if (s->meter.seen != PHASE_STOP)
				s->meter.messages++; /* whole passes over the file */
		}
	} else {
		for (uint64_t i = 0; !meter_tick(&s->meter, s->phase); i++) {
			uint64_t t0 = o->mode == MODE_PINGPONG ? now_ns() : 0;

			if (s->m->send_msg(c, i))
				goto out;
			if (o->mode == MODE_PINGPONG) {
				if (o->proto == PROTO_UDP) {
					ssize_t n = recv(c->fd, echo, o->t.size + 1, 0);
					if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
						s->reply_timeouts++; /* lost datagram: not a round trip */
						continue;
					}
					if (n != (ssize_t)o->t.size) {
						err_set(&s->err, "pingpong: reply of %zd bytes, expected %llu (%s)", n,
							(unsigned long long)o->t.size, n < 0 ? strerror(errno) : "short");
						goto out;
					}
				} else {
					int rc = read_full(c->fd, echo, o->t.size, &s->err);
					if (rc <= 0) {
						if (rc == 0)
							err_set(&s->err, "pingpong: the sink closed the connection");
						goto out;
					}
				}
				if (s->meter.seen == PHASE_MEASURE)
					histo_add(&s->rtt, now_ns() - t0);
			}
			s->meter.bytes += o->t.size;
			s->meter.messages++;
		}
	}
	if (s->m->drain && s->m->drain(c, 10000))
		goto out;
out:
	meter_transition(&s->meter, PHASE_STOP);
	if (s->err.msg[0]) { /* one failure ends the trial for all */
		pthread_mutex_lock(&s->gate->mu);
		atomic_store(s->phase, PHASE_STOP);
		pthread_cond_broadcast(&s->gate->cv);
		pthread_mutex_unlock(&s->gate->mu);
	}
	if (opened && s->m->close)
		s->m->close(c);
	if (o->proto == PROTO_TCP)
		shutdown(c->fd, SHUT_WR); /* the sink reads to EOF, then reports */
	if (!opened)
		gate_arrive(s->gate, false); /* failed before the gate: don't keep main waiting */
	free(echo);
	meter_close(&s->meter);
	return NULL;
}

/* Sleep until `until` (CLOCK_MONOTONIC ns) or a worker fails (it signals the gate's cond):
 * one timed wait, no periodic wake-ups to disturb pinned workers. */
static void sleep_until(uint64_t until, struct gate *g, _Atomic int *phase)
{
	struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ull), .tv_nsec = (long)(until % 1000000000ull) };

	pthread_mutex_lock(&g->mu);
	while (atomic_load(phase) != PHASE_STOP &&
	       pthread_cond_timedwait(&g->cv, &g->mu, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&g->mu);
}

/* A window: sleep until `until`; in runner-token mode (`hb` set) wake every CTL_HEARTBEAT_MS
 * to send PING, so a sink whose sender vanished without a FIN (host or link gone) notices. */
static void window(uint64_t until, struct gate *g, _Atomic int *phase, struct ctl *hb)
{
	struct err ignored = { "" };

	while (hb && atomic_load(phase) != PHASE_STOP) {
		uint64_t next = now_ns() + (uint64_t)CTL_HEARTBEAT_MS * 1000000ull;
		if (next >= until)
			break;
		sleep_until(next, g, phase);
		ctl_send(hb, &ignored, "PING");
	}
	sleep_until(until, g, phase);
}

/* Parse "OK port=P" or "OK ports=P1,P2,..." into ports[threads]. */
static int parse_ok(const char *line, int *ports, int threads, struct err *e)
{
	const char *p;
	char *end;

	if (!strncmp(line, "ERR ", 4)) {
		err_set(e, "sink refused the session: %s", line + 4);
		return -1;
	}
	if (!strncmp(line, "OK port=", 8)) {
		long v = strtol(line + 8, &end, 10);
		if (*end || v < 1 || v > 65535)
			goto bad;
		for (int i = 0; i < threads; i++)
			ports[i] = (int)v;
		return 0;
	}
	if (strncmp(line, "OK ports=", 9))
		goto bad;
	p = line + 9;
	for (int i = 0; i < threads; i++) {
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 65535 || (*end != ',' && *end != 0))
			goto bad;
		ports[i] = (int)v;
		p = *end ? end + 1 : end;
	}
	return 0;
bad:
	err_set(e, "control: the peer is not a copybench sink (it answered '%.60s')", line);
	return -1;
}

/* Read RESULT / RECEIVER / END from the sink. */
static int read_result(struct ctl *ctl, struct record *r, char *recv_json, size_t len,
		       uint64_t *bytes_received, char *first, size_t first_len, struct err *e)
{
	char line[sizeof(ctl->buf)];
	unsigned long long checked, mism, bytes, dgrams;
	int off = 0;

	for (;;) {
		int rc = ctl_recv(ctl, line, sizeof(line), 60000, e);
		if (rc <= 0) {
			if (rc == 0)
				err_set(e, "control: the sink closed the connection before its result");
			return -1;
		}
		if (!strcmp(line, "END"))
			return r->verify_known && recv_json[0] ? 0 : (err_set(e, "control: incomplete result"), -1);
		if (sscanf(line, "RESULT checked=%llu mismatches=%llu bytes=%llu datagrams=%llu first=%n",
			   &checked, &mism, &bytes, &dgrams, &off) == 4 && off) {
			r->verify_known = true;
			r->verify_checked = checked;
			r->verify_mismatches = mism;
			*bytes_received = bytes;
			r->datagrams_received = dgrams;
			snprintf(first, first_len, "%s", line + off);
			r->first_mismatch = first;
		} else if (!strncmp(line, "RECEIVER ", 9)) {
			size_t l = strlen(line + 9);
			if (l >= len) {
				err_set(e, "control: receiver block of %zu bytes is too long", l);
				return -1;
			}
			memcpy(recv_json, line + 9, l + 1);
		} else if (!strncmp(line, "ERR ", 4)) {
			err_set(e, "sink: %s", line + 4);
			return -1;
		} else {
			err_set(e, "control: unexpected line from the sink '%.60s'", line);
			return -1;
		}
	}
}

int cmd_send(int argc, char **argv)
{
	struct send_opts o;
	struct srcfile src = { .fd = -1 };
	struct pattern *pat = malloc(sizeof(*pat));
	struct sender *snd = NULL;
	struct ctl ctl;
	struct err e = { "" };
	struct record r;
	struct meter *meters[2 * MAX_THREADS];
	struct histo *rtt = calloc(1, sizeof(*rtt));
	char recv_json[8192], first[512];
	char hello[512];
	int ports[MAX_THREADS], nmeters = 0, ctlfd = -1;
	_Atomic int phase = PHASE_WARMUP;
	struct gate gate = { .mu = PTHREAD_MUTEX_INITIALIZER };
	pthread_condattr_t ca;
	uint64_t t;
	int started = 0;
	struct window_probe wp;       /* /proc/stat at the window's edges (interference) */
	struct interference *itf = malloc(sizeof(*itf));
	const char *token;

	send_parse(argc, argv, &o);
	window_probe_init(&wp);
	token = getenv("COPYBENCH_TOKEN");
	if (token && !*token)
		token = NULL;
	if (token && !token_valid(token))
		die_usage("COPYBENCH_TOKEN: not a runner token (%d to %d lowercase hex digits)", TOKEN_MIN, TOKEN_MAX);
	if (token && o.no_sink)
		token = NULL;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* sleep_until's deadlines are monotonic */
	pthread_cond_init(&gate.cv, &ca);
	if (!pat || !rtt) {
		fputs("copybench: out of memory\n", stderr);
		return 1;
	}
	r = (struct record){ .command = "send", .method = o.m->name, .mode = mode_names[o.mode],
			     .protocol = proto_names[o.proto], .host = o.host, .port = o.port,
			     .size = o.t.size, .fields = o.fields, .threads = o.threads,
			     .cpus_sender = &o.t.cpus, .duration_s = o.t.duration, .warmup_s = o.t.warmup,
			     .verify = verify_names[o.t.verify], .seed = o.t.seed, .no_sink = o.no_sink,
			     .counters = counter_set_names[o.t.counters],
			     .cache = o.t.cache >= 0 ? cache_names[o.t.cache] : NULL, .file = o.file,
			     .udp = o.proto == PROTO_UDP, .family = "unknown",
			     .receiver_unavailable = o.no_sink ? "--no-sink: nothing receives" : "no result from the sink" };

	if (o.m->probe) {
		char why[200];
		if (o.m->probe(why, sizeof(why))) {
			err_set(&e, "method %s is not available here: %s", o.m->name, why);
			goto done;
		}
	}
	if (o.m->kinds & M_FILE_SOCK) {
		if (o.file) {
			srcfile_open_user(&src, "--file", o.file);
		} else {
			pattern_init(pat, o.t.seed, o.t.size, false);
			if (srcfile_generate(&src, o.t.dir, o.t.size, pat, &e))
				goto done;
		}
		r.file_size = src.size;
		if (o.t.cache == 0 && warm_cache(src.fd, src.size, &e))
			goto done;
		pattern_init(pat, o.t.seed, src.size, false);
	} else {
		pattern_init(pat, o.t.seed, o.t.size, true);
	}

	if (o.no_sink) {
		for (int i = 0; i < o.threads; i++)
			ports[i] = o.port;
	} else {
		struct session ss = { .proto = o.proto, .mode = o.mode, .threads = o.threads, .size = o.t.size,
				      .record = pat->record, .stamped = pat->stamped, .verify = o.t.verify,
				      .seed = o.t.seed, .counters = o.t.counters };
		char line[256];
		size_t hl;
		int rc;

		ctlfd = tcp_connect_to(o.host, o.port, 3000, &e);
		if (ctlfd < 0)
			goto done;
		r.family = sock_family_name(ctlfd);
		ctl_init(&ctl, ctlfd);
		session_format(&ss, hello, sizeof(hello));
		hl = strlen(hello);
		if (token) /* runner-token mode: the sink refuses a greeting without its token */
			snprintf(hello + hl, sizeof(hello) - hl, " token=%s", token);
		if (ctl_send(&ctl, &e, "%s", hello))
			goto done;
		rc = ctl_recv(&ctl, line, sizeof(line), 5000, &e);
		if (rc == 0)
			err_set(&e, "control: the peer at %s port %d closed the connection (not a copybench sink?)",
				o.host, o.port);
		if (rc <= 0 || parse_ok(line, ports, o.threads, &e))
			goto done;
	}

	snd = calloc(MAX_THREADS, sizeof(*snd));
	if (!snd) {
		err_set(&e, "out of memory");
		goto done;
	}
	for (int i = 0; i < o.threads; i++) {
		struct sender *s = &snd[i];
		int one = 1;

		*s = (struct sender){ .index = i, .o = &o, .m = o.m, .phase = &phase, .gate = &gate };
		s->ctx = (struct mctx){ .fd = -1, .udp = o.proto == PROTO_UDP, .size = o.t.size, .fields = o.fields,
					.pat = pat, .err = &s->err, .src_fd = src.fd, .file_size = src.size,
					.src_path = src.path, .helper_meter = &s->helper_meter, .phase = &phase,
					.counters = o.t.counters };
		s->ctx.fd = o.proto == PROTO_UDP ? udp_connect_to(o.host, ports[i], &e)
						 : tcp_connect_to(o.host, ports[i], 3000, &e);
		if (s->ctx.fd < 0)
			goto done;
		if (token && o.proto == PROTO_TCP) { /* prove the data connection is ours */
			char pre[sizeof(CTL_DATA_MAGIC) + TOKEN_MAX + 2];
			int pl = snprintf(pre, sizeof(pre), CTL_DATA_MAGIC "%s\n", token);
			if (write_full(s->ctx.fd, pre, (size_t)pl, &e))
				goto done;
		}
		if (o.no_sink)
			r.family = sock_family_name(s->ctx.fd);
		if (o.proto == PROTO_UDP && o.mode == MODE_PINGPONG)
			set_timeout_ms(s->ctx.fd, SO_RCVTIMEO, 1000);
		if (o.mode == MODE_PINGPONG && o.proto == PROTO_TCP) /* one message per round trip */
			setsockopt(s->ctx.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	for (int i = 0; i < o.threads; i++) {
		int rc = pthread_create(&snd[i].tid, NULL, sender_main, &snd[i]);
		if (rc) {
			err_set(&e, "pthread_create: %s", strerror(rc));
			atomic_store(&phase, PHASE_STOP);
			break;
		}
		started++;
	}
	gate_open(&gate, started);

	t = now_ns();
	window(t + (uint64_t)(o.t.warmup * 1e9), &gate, &phase, token && ctlfd >= 0 ? &ctl : NULL);
	if (atomic_load(&phase) != PHASE_STOP)
		window_probe_start(&wp); /* before the start signal: the read stays out of the window */
	if (ctlfd >= 0 && atomic_load(&phase) != PHASE_STOP)
		ctl_send(&ctl, &e, "MEASURE");
	if (atomic_load(&phase) != PHASE_STOP)
		atomic_store(&phase, PHASE_MEASURE);
	t = now_ns();
	window(t + (uint64_t)(o.t.duration * 1e9), &gate, &phase, token && ctlfd >= 0 ? &ctl : NULL);
	atomic_store(&phase, PHASE_STOP);
	window_probe_end(&wp);
	if (ctlfd >= 0)
		ctl_send(&ctl, &e, "STOP");
	for (int i = 0; i < started; i++) {
		pthread_join(snd[i].tid, NULL);
		if (snd[i].err.msg[0])
			err_set(&e, "thread %d: %s", i, snd[i].err.msg);
		meters[nmeters++] = &snd[i].meter;
		if (snd[i].helper_meter.opened || snd[i].helper_meter.have_end)
			meters[nmeters++] = &snd[i].helper_meter;
		histo_merge(rtt, &snd[i].rtt);
		r.zc_used |= snd[i].ctx.zc_used;
		r.zc.sends += snd[i].ctx.zc.sends;
		r.zc.completions += snd[i].ctx.zc.completions;
		r.zc.copied += snd[i].ctx.zc.copied;
		r.zc.enobufs += snd[i].ctx.zc.enobufs;
		r.datagrams_sent += snd[i].meter.messages;
		r.reply_timeouts += snd[i].reply_timeouts;
	}
	side_totals(&r.sender, meters, nmeters);
	r.have_result = started == o.threads;
	r.rtt = o.mode == MODE_PINGPONG ? rtt : NULL;
	if (ctlfd >= 0 && started) {
		struct err ce = { "" };
		uint64_t received = 0, sent = 0;

		if (read_result(&ctl, &r, recv_json, sizeof(recv_json), &received, first, sizeof(first), &ce) == 0) {
			r.receiver_json = recv_json;
			for (int i = 0; i < started; i++) /* splice2's second thread counts its own */
				sent += snd[i].meter.bytes + snd[i].helper_meter.bytes;
			/* every byte sent (warm-up included) must have arrived, once */
			if (o.proto == PROTO_TCP && !e.msg[0] && received != sent)
				err_set(&e, "the sink received %llu bytes but %llu were sent",
					(unsigned long long)received, (unsigned long long)sent);
			if (r.verify_mismatches)
				err_set(&e, "verification failed: %llu mismatches, first at %s",
					(unsigned long long)r.verify_mismatches, r.first_mismatch);
		} else {
			err_set(&e, "%s", ce.msg);
		}
	}
done:
	if (itf) {
		window_probe_finish(&wp, itf);
		r.interference = itf;
	}
	record_judge_window(&r, &e);
	r.error = e.msg[0] ? e.msg : NULL;
	record_print(stdout, &r);
	record_summary(stderr, &r);
	for (int i = 0; snd && i < o.threads; i++)
		if (snd[i].ctx.fd >= 0)
			close(snd[i].ctx.fd);
	if (ctlfd >= 0)
		close(ctlfd);
	if (src.fd >= 0)
		close(src.fd);
	free(snd);
	free(pat);
	free(rtt);
	free(itf);
	free(wp.start); /* window_probe_finish freed them unless itf was NULL */
	free(wp.end);
	return record_exit_code(&r);
}

/* `copybench send`: N connections, each with its own sender thread, against a sink. The main
 * thread only keeps time: warm-up, then the measured window, then stop; workers take their
 * own counter snapshots at the first operation after each phase change.
 *
 * cmd_send runs one trial in phases, each a function: options -> source (the data) -> control
 * handshake -> connections -> threads -> window -> collect -> report. A phase that fails sets
 * the trial's error and the later ones up to the report are skipped; the report always prints
 * the one record. */
#include "control.h"
#include "histo.h"
#include "method.h"
#include "record.h"
#include "sendopts.h"
#include "share.h"
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
	const struct method *alt;  /* --alternate: sent in the odd slices, on the same socket ... */
	struct mctx alt_ctx;       /* ... with its own buffers (NULL alt: none) */
	_Atomic int *slice;        /* the slice the window is in (the timing thread moves it) */
	struct share_conn *sc;     /* --share-time: this connection's turns; NULL: none */
	struct meter meter, helper_meter;
	struct slicer slicer, helper_slicer; /* written by the timing thread only (send_window) */
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
	int done;                 /* threads that have ended (the deadline's wait counts them) */
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

/* A thread's last act: it has ended, main may join it. */
static void gate_leave(struct gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->done++;
	pthread_cond_broadcast(&g->cv);
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

	meter_add(m, bytes);
	return meter_tick(m, s->phase);
}

/* File methods: whole passes over the file until the stop signal. */
static int send_passes(struct sender *s)
{
	struct pass p = { .progress = file_progress, .arg = s, .meter = &s->meter };

	while (!meter_tick(&s->meter, s->phase)) {
		if (s->o->t.cache == 1 && drop_cache(s->ctx.src_fd, &s->err))
			return -1;
		if (s->m->pass(&s->ctx, &p))
			return -1;
		if (s->meter.seen != PHASE_STOP)
			s->meter.messages++; /* whole passes over the file */
	}
	return 0;
}

/* Pingpong: wait for the echo of one message. 1 = a round trip, 0 = a UDP reply that never
 * came (a lost datagram), -1 = failure. */
static int await_echo(struct sender *s, uint8_t *echo)
{
	const struct send_opts *o = s->o;
	int rc;

	if (o->proto == PROTO_UDP) {
		ssize_t n = recv(s->ctx.fd, echo, o->t.size + 1, 0);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			s->reply_timeouts++; /* lost datagram: not a round trip */
			return 0;
		}
		if (n != (ssize_t)o->t.size) {
			err_set(&s->err, "pingpong: reply of %zd bytes, expected %llu (%s)", n,
				(unsigned long long)o->t.size, n < 0 ? strerror(errno) : "short");
			return -1;
		}
		return 1;
	}
	rc = read_full(s->ctx.fd, echo, o->t.size, &s->err);
	if (rc == 0)
		err_set(&s->err, "pingpong: the sink closed the connection");
	return rc <= 0 ? -1 : 1;
}

/* Message methods: one message after another (pingpong: each waits for its echo). */
static int send_messages(struct sender *s, uint8_t *echo)
{
	const struct send_opts *o = s->o;

	for (uint64_t i = 0; !meter_tick(&s->meter, s->phase); i++) {
		uint64_t t0 = o->mode == MODE_PINGPONG ? now_ns() : 0;
		const struct method *m = s->m;
		struct mctx *c = &s->ctx;

		/* --alternate: the odd slices' method, from the first message after the edge (the
		 * timing thread moves `slice` just after it sampled the edge) */
		if (s->alt && (atomic_load_explicit(s->slice, memory_order_relaxed) & 1))
			m = s->alt, c = &s->alt_ctx;
		if (m->send_msg(c, i))
			return -1;
		if (o->mode == MODE_PINGPONG) {
			int rc = await_echo(s, echo);
			if (rc < 0)
				return -1;
			if (rc == 0)
				continue;
			if (s->meter.seen == PHASE_MEASURE)
				histo_add(&s->rtt, now_ns() - t0);
		}
		meter_add(&s->meter, o->t.size);
		s->meter.messages++;
	}
	return 0;
}

/* --share-time: one connection's messages, in its own turns only (share.h). Before each
 * message the thread checks that the turn is still its own (one relaxed load); when it is
 * not, it releases the turn and waits for its next one on a condition variable. At its
 * resume it reads the MSG_ZEROCOPY completions that arrived while it waited (they are per
 * socket: the other connection's never mix in). */
static int send_shared(struct sender *s)
{
	struct share_conn *c = s->sc;
	uint64_t i = 0; /* this connection's next message: each connection is a stream of its own */

	for (;;) {
		if (meter_tick(&s->meter, s->phase))
			break;
		share_window_start(c, &s->meter);
		if (!share_mine(c)) {
			uint64_t before = s->ctx.zc.completions;
			if (share_wait(c, &s->meter, s->phase))
				break;
			if (s->m->reap && s->m->reap(&s->ctx))
				return -1;
			share_resumed(c, &s->meter, s->phase, s->ctx.zc.completions - before);
			continue; /* tick again: the window may have opened while it waited */
		}
		if (s->m->send_msg(&s->ctx, i++))
			return -1;
		meter_add(&s->meter, s->o->t.size);
		s->meter.messages++;
		share_after_message(c);
	}
	share_done(c, &s->meter);
	return 0;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct send_opts *o = s->o;
	struct mctx *c = &s->ctx;
	uint8_t *echo = NULL;
	bool opened = false, alt_opened = false;

	/* a comm of its own, so a system-wide CPU profile tells the sending threads from the
	 * sink's (cb-sink.N) without subtraction, and this trial's from any other copybench's:
	 * N = the pattern seed mod 100000, which the sink learns in HELLO */
	name_thread("cb-send", o->t.seed);
	if (pin_to_cpu(&o->t.cpus, s->index, &s->err))
		goto out;
	meter_open(&s->meter, o->t.counters);
	meter_set_socket(&s->meter, c->fd, o->proto == PROTO_TCP, NULL); /* its state at the window's edges */
	if (s->m->open && s->m->open(c))
		goto out;
	opened = true;
	if (s->alt && s->alt->open && s->alt->open(&s->alt_ctx))
		goto out;
	alt_opened = s->alt != NULL;
	if (o->mode == MODE_PINGPONG && !(echo = malloc(o->t.size + 1))) {
		err_set(&s->err, "out of memory");
		goto out;
	}
	gate_arrive(s->gate, true);
	if (s->sc ? send_shared(s) : s->m->kinds & M_FILE_SOCK ? send_passes(s) : send_messages(s, echo))
		goto out;
	if (s->m->drain && s->m->drain(c, 10000))
		goto out;
	if (s->alt && s->alt->drain && s->alt->drain(&s->alt_ctx, 10000))
		goto out;
out:
	meter_transition(&s->meter, PHASE_STOP);
	if (s->err.msg[0]) { /* one failure ends the trial for all */
		pthread_mutex_lock(&s->gate->mu);
		atomic_store(s->phase, PHASE_STOP);
		pthread_cond_broadcast(&s->gate->cv);
		pthread_mutex_unlock(&s->gate->mu);
		if (s->sc) /* the other connection may be waiting for its turn */
			share_wake(s->sc->sh);
	}
	if (opened && s->m->close)
		s->m->close(c);
	if (alt_opened && s->alt->close)
		s->alt->close(&s->alt_ctx);
	if (o->proto == PROTO_TCP)
		shutdown(c->fd, SHUT_WR); /* the sink reads to EOF, then reports */
	if (!opened)
		gate_arrive(s->gate, false); /* failed before the gate: don't keep main waiting */
	free(echo);
	meter_close(&s->meter);
	gate_leave(s->gate);
	return NULL;
}

static struct timespec mono_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };
}

/* main: wait until n threads have ended or `until` (CLOCK_MONOTONIC ns); how many have not */
static int gate_wait_done(struct gate *g, int n, uint64_t until)
{
	struct timespec ts = mono_ts(until);
	int left;

	pthread_mutex_lock(&g->mu);
	while (g->done < n && pthread_cond_timedwait(&g->cv, &g->mu, &ts) != ETIMEDOUT)
		;
	left = n - g->done;
	pthread_mutex_unlock(&g->mu);
	return left;
}

/* Sleep until `until` (CLOCK_MONOTONIC ns) or a worker fails (it signals the gate's cond):
 * one timed wait, no periodic wake-ups to disturb pinned workers. */
static void sleep_until(uint64_t until, struct gate *g, _Atomic int *phase)
{
	struct timespec ts = mono_ts(until);

	pthread_mutex_lock(&g->mu);
	while (atomic_load(phase) != PHASE_STOP &&
	       pthread_cond_timedwait(&g->cv, &g->mu, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&g->mu);
}

/* A window: sleep until `until`; in runner-token mode (`hb` set) wake every CTL_HEARTBEAT_MS
 * to send PING, so a sink whose sender vanished without a FIN (host or link gone) notices.
 * `*next_ping` carries the heartbeat's next time across calls: the measured window is slept
 * in slices (send_window), each shorter than the heartbeat. */
static void window(uint64_t until, struct gate *g, _Atomic int *phase, struct ctl *hb, uint64_t *next_ping)
{
	struct err ignored = { "" };

	while (hb && atomic_load(phase) != PHASE_STOP && *next_ping < until) {
		sleep_until(*next_ping, g, phase);
		ctl_send(hb, &ignored, "PING");
		*next_ping = now_ns() + (uint64_t)CTL_HEARTBEAT_MS * 1000000ull;
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

/* --share-time: what the sink says of each connection (its SHARE and SHARERX lines). */
struct share_from_sink {
	bool known;
	uint64_t received[SHARE_CONNS];   /* warm-up included */
	double gbit[SHARE_CONNS];         /* its rate at the sink; NaN without rates */
	char *summary;                    /* the sink's figures (JSON object) */
	char *rx[SHARE_CONNS];            /* each connection's receiving thread (JSON object) */
};

/* A SHARE or SHARERX line into sh; 0, or -1 with e set. */
static int read_share_line(const char *line, struct share_from_sink *sh, struct err *e)
{
	unsigned long long a, b;
	double ga, gb;
	int off = 0, c;

	if (sscanf(line, "SHARE received=%llu,%llu gbit=%lf,%lf %n", &a, &b, &ga, &gb, &off) == 4 && off &&
	    line[off] == '{' && !sh->summary) {
		sh->received[0] = a, sh->received[1] = b;
		sh->gbit[0] = ga, sh->gbit[1] = gb;
		sh->summary = strdup(line + off);
		sh->known = sh->summary != NULL;
		return sh->summary ? 0 : (err_set(e, "out of memory"), -1);
	}
	if (sscanf(line, "SHARERX %d %n", &c, &off) == 1 && off && c >= 0 && c < SHARE_CONNS &&
	    line[off] == '{' && !sh->rx[c]) {
		sh->rx[c] = strdup(line + off);
		return sh->rx[c] ? 0 : (err_set(e, "out of memory"), -1);
	}
	err_set(e, "control: unexpected line from the sink '%.60s'", line);
	return -1;
}

/* Read RESULT / RECEIVER (/ SHARE / SHARERX) / END from the sink, by `deadline`
 * (CLOCK_MONOTONIC ns). */
static int read_result(struct ctl *ctl, struct record *r, char *recv_json, size_t len,
		       uint64_t *bytes_received, char *first, size_t first_len, uint64_t deadline,
		       struct share_from_sink *sh, struct err *e)
{
	char line[sizeof(ctl->buf)];
	unsigned long long checked, mism, bytes, dgrams;
	int off = 0;

	for (;;) {
		int64_t left_ms = ((int64_t)(deadline - now_ns())) / 1000000;
		/* at least 1 ms: ctl_recv reads what has arrived only if it may poll */
		int rc = ctl_recv(ctl, line, sizeof(line), left_ms > 1 ? (int)left_ms : 1, e);
		if (rc == CTL_TIMEOUT) {
			e->msg[0] = 0; /* ctl_recv's "no answer within N ms": say what it means */
			err_set(e, "gave up waiting for the sink's result (--grace after the window): the sink "
				"stopped answering (stopped or hung?) or the path to it stalled");
			return -1;
		}
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
		} else if (sh && !strncmp(line, "SHARE", 5)) {
			if (read_share_line(line, sh, e))
				return -1;
		} else {
			err_set(e, "control: unexpected line from the sink '%.60s'", line);
			return -1;
		}
	}
}

/* One `send` trial: what its phases share (cmd_send runs them in order). */
struct send_run {
	struct send_opts o;
	const char *token;            /* runner-token mode: $COPYBENCH_TOKEN; NULL otherwise */
	struct srcfile src;
	struct pattern *pat;
	struct histo *rtt;
	struct interference *itf;
	struct sender *snd;           /* MAX_THREADS of them */
	int ports[MAX_THREADS];
	struct ctl ctl;
	int ctlfd, started;
	_Atomic int phase;
	_Atomic int slice;            /* the window's slice (0 until its first edge): --alternate */
	struct gate gate;
	struct window_probe wp;       /* /proc/stat at the window's edges (interference) */
	uint64_t deadline_ns;         /* the window's end + --grace: threads and result by then */
	bool gave_up;                 /* threads were still blocked at the deadline */
	bool abandoned;               /* ... and some even after their sockets were shut down */
	struct share share;           /* --share-time: the turns (run->o.share set) */
	struct share_conn sconn[SHARE_CONNS];
	struct share_from_sink shsink;
	struct share_record shrec;
	struct record r;
	struct err e;
	char recv_json[sizeof(((struct ctl *)0)->buf)], first[512]; /* the sink's RECEIVER line fits */
};

/* The runner's token ($COPYBENCH_TOKEN), which proves our connections to a --token-stdin sink;
 * none with --no-sink (no sink to prove them to). */
static const char *runner_token(bool no_sink)
{
	const char *token = getenv("COPYBENCH_TOKEN");

	if (token && !*token)
		token = NULL;
	if (token && !token_valid(token))
		die_usage("COPYBENCH_TOKEN: not a runner token (%d to %d lowercase hex digits)", TOKEN_MIN, TOKEN_MAX);
	return no_sink ? NULL : token;
}

/* Phase 1, options: the command line, then the token from the environment. */
static void send_options(int argc, char **argv, struct send_run *run)
{
	send_parse(argc, argv, &run->o);
	window_probe_init(&run->wp);
	run->token = runner_token(run->o.no_sink);
}

/* The record's config, and what it says until the sink answers. */
static void send_record_init(struct send_run *run)
{
	const struct send_opts *o = &run->o;

	run->r = (struct record){ .command = "send", .method = o->m->name, .mode = mode_names[o->mode],
				  .protocol = proto_names[o->proto], .host = o->host, .port = o->port,
				  .size = o->t.size, .fields = o->fields, .threads = o->threads,
				  .sockbuf = o->sockbuf, .alternate = o->alternate,
				  .share_time = o->share_time,
				  .share_order = o->share ? share_order_names[o->share_order] : NULL, .cpus_sender = &o->t.cpus, .duration_s = o->t.duration, .warmup_s = o->t.warmup,
				  .verify = verify_names[o->t.verify], .seed = o->t.seed, .no_sink = o->no_sink,
				  .counters = counter_set_names[o->t.counters],
				  .cache = o->t.cache >= 0 ? cache_names[o->t.cache] : NULL, .file = o->file,
				  .udp = o->proto == PROTO_UDP, .family = "unknown",
				  .receiver_unavailable = o->no_sink ? "--no-sink: nothing receives"
								     : "no result from the sink" };
}

/* Buffers, the gate and the record; -1 when out of memory (no record then). */
static int send_init(struct send_run *run)
{
	pthread_condattr_t ca;

	atomic_init(&run->phase, PHASE_WARMUP);
	atomic_init(&run->slice, 0);
	pthread_mutex_init(&run->gate.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* sleep_until's deadlines are monotonic */
	pthread_cond_init(&run->gate.cv, &ca);
	run->pat = malloc(sizeof(*run->pat));
	run->rtt = calloc(1, sizeof(*run->rtt));
	run->itf = malloc(sizeof(*run->itf));
	if (!run->pat || !run->rtt) {
		fputs("copybench: out of memory\n", stderr);
		return -1;
	}
	send_record_init(run);
	if (run->o.share) {
		/* the warm-up's turns, counted back from the window's start (share_conn_of): the
		 * first of them may be shorter than a period */
		uint64_t w = (uint64_t)(run->o.t.warmup * 1e9);
		int64_t k0 = -(int64_t)((w + SHARE_PERIOD_NS - 1) / SHARE_PERIOD_NS);
		share_init(&run->share, run->o.share_order == SHARE_BA ? 1 : 0, k0);
	}
	return 0;
}

/* Phase 2, the data: a method that cannot run here fails the trial; a file method gets its file
 * (the user's, or one generated with the pattern), a message method the pattern of its size. */
static int send_source(struct send_run *run)
{
	const struct send_opts *o = &run->o;

	if (o->m->probe) {
		char why[200];
		if (o->m->probe(why, sizeof(why))) {
			err_set(&run->e, "method %s is not available here: %s", o->m->name, why);
			return -1;
		}
	}
	if (!(o->m->kinds & M_FILE_SOCK)) {
		pattern_init(run->pat, o->t.seed, o->t.size, true);
		return 0;
	}
	if (o->file) {
		srcfile_open_user(&run->src, "--file", o->file);
	} else {
		pattern_init(run->pat, o->t.seed, o->t.size, false);
		if (srcfile_generate(&run->src, o->t.dir, o->t.size, run->pat, &run->e))
			return -1;
	}
	run->r.file_size = run->src.size;
	if (o->t.cache == 0 && warm_cache(run->src.fd, run->src.size, &run->e))
		return -1;
	pattern_init(run->pat, o->t.seed, run->src.size, false);
	return 0;
}

/* Phase 3, control handshake: HELLO with the session (and the runner's token); the sink
 * answers with the data port(s). --no-sink: no sink, the data goes to --host:--port. */
static int send_handshake(struct send_run *run)
{
	const struct send_opts *o = &run->o;
	struct session ss = { .proto = o->proto, .mode = o->mode, .threads = o->conns, .size = o->t.size,
			      .record = run->pat->record, .stamped = run->pat->stamped, .verify = o->t.verify,
			      .seed = o->t.seed, .counters = o->t.counters, .sockbuf = o->sockbuf,
			      .recv_size = o->recv_size };
	char hello[512], line[256];
	size_t hl;
	int rc;

	if (o->no_sink) {
		for (int i = 0; i < o->conns; i++)
			run->ports[i] = o->port;
		return 0;
	}
	run->ctlfd = tcp_connect_to(o->host, o->port, 3000, &run->e);
	if (run->ctlfd < 0)
		return -1;
	run->r.family = sock_family_name(run->ctlfd);
	ctl_init(&run->ctl, run->ctlfd);
	session_format(&ss, hello, sizeof(hello));
	hl = strlen(hello);
	if (run->token) /* runner-token mode: the sink refuses a greeting without its token */
		snprintf(hello + hl, sizeof(hello) - hl, " token=%s", run->token);
	if (ctl_send(&run->ctl, &run->e, "%s", hello))
		return -1;
	rc = ctl_recv(&run->ctl, line, sizeof(line), 5000, &run->e);
	if (rc == 0)
		err_set(&run->e, "control: the peer at %s port %d closed the connection (not a copybench sink?)",
			o->host, o->port);
	if (rc <= 0 || parse_ok(line, run->ports, o->conns, &run->e))
		return -1;
	return 0;
}

/* Thread i's data connection, to the port the sink gave it. */
static int connect_one(struct send_run *run, int i)
{
	const struct send_opts *o = &run->o;
	struct sender *s = &run->snd[i];
	int one = 1;

	*s = (struct sender){ .index = i, .o = o, .m = i == 1 && o->share ? o->share : o->m, .alt = o->alt,
			      .phase = &run->phase, .slice = &run->slice, .gate = &run->gate };
	s->ctx = (struct mctx){ .fd = -1, .udp = o->proto == PROTO_UDP, .size = o->t.size, .fields = o->fields,
				.pat = run->pat, .err = &s->err, .src_fd = run->src.fd, .file_size = run->src.size,
				.src_path = run->src.path, .helper_meter = &s->helper_meter, .phase = &run->phase,
				.counters = o->t.counters };
	s->ctx.fd = o->proto == PROTO_UDP ? udp_connect_to(o->host, run->ports[i], &run->e)
					 : tcp_connect_to(o->host, run->ports[i], 3000, &run->e);
	if (s->ctx.fd < 0)
		return -1;
	/* after connect is soon enough for the send side: no window depends on it */
	if (o->sockbuf && sock_fix_buffer(s->ctx.fd, true, o->sockbuf, &run->e))
		return -1;
	s->alt_ctx = s->ctx; /* the same socket; its own buffers once opened (priv) */
	if (run->token && o->proto == PROTO_TCP) { /* prove the data connection is ours */
		char pre[sizeof(CTL_DATA_MAGIC) + TOKEN_MAX + 2];
		int pl = snprintf(pre, sizeof(pre), CTL_DATA_MAGIC "%s\n", run->token);
		if (write_full(s->ctx.fd, pre, (size_t)pl, &run->e))
			return -1;
	}
	if (o->no_sink)
		run->r.family = sock_family_name(s->ctx.fd);
	if (o->proto == PROTO_UDP && o->mode == MODE_PINGPONG)
		set_timeout_ms(s->ctx.fd, SO_RCVTIMEO, 1000);
	if (o->mode == MODE_PINGPONG && o->proto == PROTO_TCP) /* one message per round trip */
		setsockopt(s->ctx.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->share) {
		run->sconn[i] = (struct share_conn){ .index = i, .sh = &run->share, .fd = s->ctx.fd };
		s->sc = &run->sconn[i];
	}
	return 0;
}

/* Phase 4, connections: one data socket per thread. */
static int send_connect(struct send_run *run)
{
	run->snd = calloc(MAX_THREADS, sizeof(*run->snd));
	if (!run->snd) {
		err_set(&run->e, "out of memory");
		return -1;
	}
	for (int i = 0; i < MAX_THREADS; i++)
		run->snd[i].ctx.fd = -1; /* not connected (yet): nothing to close */
	for (int i = 0; i < run->o.conns; i++)
		if (connect_one(run, i))
			return -1;
	return 0;
}

/* Phase 5, threads: start one sender per connection; they set up, then wait at the gate. */
static void send_start(struct send_run *run)
{
	for (int i = 0; i < run->o.conns; i++) {
		int rc = pthread_create(&run->snd[i].tid, NULL, sender_main, &run->snd[i]);
		if (rc) {
			err_set(&run->e, "pthread_create: %s", strerror(rc));
			atomic_store(&run->phase, PHASE_STOP);
			break;
		}
		run->started++;
	}
	gate_open(&run->gate, run->started);
}

/* The running totals of every sending thread (and splice2's second threads) at a slice edge. */
static void sample_slice(struct send_run *run)
{
	struct slicer *sl[2 * MAX_THREADS];
	struct meter *m[2 * MAX_THREADS];
	int n = 0;

	for (int i = 0; i < run->started; i++) {
		sl[n] = &run->snd[i].slicer, m[n++] = &run->snd[i].meter;
		sl[n] = &run->snd[i].helper_slicer, m[n++] = &run->snd[i].helper_meter;
	}
	slicer_sample(sl, m, n);
}

/* The next edge of the measured window after `now_slice` (a slice edge, k of SLICES) and
 * `now_turn` (--share-time: a turn edge, k of the window's turns), counted from its start. */
struct edges {
	uint64_t t0, slice_ns, turn_ns, end;
	int slice, turn;              /* the next slice edge (1..SLICES-1), the next turn (1..) */
};

static uint64_t next_slice_edge(const struct edges *e)
{
	return e->slice < SLICES ? e->t0 + (uint64_t)e->slice * e->slice_ns : UINT64_MAX;
}

static uint64_t next_turn_edge(const struct edges *e)
{
	uint64_t t = e->turn_ns ? e->t0 + (uint64_t)e->turn * e->turn_ns : UINT64_MAX;
	return t < e->end ? t : UINT64_MAX;
}

/* --share-time: the warm-up's turn edges, counted back from the window's start at
 * `t_window` (the first warm-up turn began at the gate) */
static void warmup_turns(struct send_run *run, uint64_t t_window, struct ctl *hb, uint64_t *next_ping)
{
	for (int64_t k = run->share.k + 1; k < 0 && atomic_load(&run->phase) != PHASE_STOP; k++) {
		window(t_window - (uint64_t)(-k) * SHARE_PERIOD_NS, &run->gate, &run->phase, hb, next_ping);
		if (atomic_load(&run->phase) != PHASE_STOP)
			share_switch(&run->share, k, now_ns());
	}
}

/* Phase 6, the window: warm-up, MEASURE, the measured window, STOP. The sink learns each
 * boundary on the control connection; /proc/stat is read just outside the window. The
 * measured window is slept in SLICES timed waits: at each edge this (otherwise sleeping)
 * thread reads the workers' running byte totals, so the workers' loops do nothing more.
 * With --share-time it also moves the turn every SHARE_PERIOD_NS, from the gate (the
 * warm-up's start) to the window's end, whatever the window's length. */
static void send_window(struct send_run *run)
{
	const struct send_opts *o = &run->o;
	struct ctl *hb = run->token && run->ctlfd >= 0 ? &run->ctl : NULL;
	uint64_t t = now_ns(), next_ping = t + (uint64_t)CTL_HEARTBEAT_MS * 1000000ull;
	uint64_t window_ns = (uint64_t)(o->t.duration * 1e9), slice_ns = window_ns / SLICES;
	struct edges e = { .slice_ns = slice_ns, .turn_ns = o->share ? SHARE_PERIOD_NS : 0, .slice = 1, .turn = 1 };

	if (o->share)
		warmup_turns(run, t + (uint64_t)(o->t.warmup * 1e9), hb, &next_ping);
	window(t + (uint64_t)(o->t.warmup * 1e9), &run->gate, &run->phase, hb, &next_ping);
	if (atomic_load(&run->phase) != PHASE_STOP)
		window_probe_start(&run->wp); /* before the start signal: the read stays out of the window */
	if (run->ctlfd >= 0 && atomic_load(&run->phase) != PHASE_STOP) { /* the sink slices its side alike */
		if (o->share)
			ctl_send(&run->ctl, &run->e, "MEASURE slice_ns=%llu turn_ns=%llu first=%d",
				 (unsigned long long)slice_ns, (unsigned long long)SHARE_PERIOD_NS, run->share.first);
		else
			ctl_send(&run->ctl, &run->e, "MEASURE slice_ns=%llu", (unsigned long long)slice_ns);
	}
	t = now_ns();
	if (o->share && run->share.k < 0 && atomic_load(&run->phase) != PHASE_STOP)
		share_switch(&run->share, 0, t); /* the window's first turn, with its start */
	else if (o->share)
		run->share.edge_ns[0] = t;
	if (atomic_load(&run->phase) != PHASE_STOP)
		atomic_store(&run->phase, PHASE_MEASURE);
	if (o->share)
		share_wake(&run->share); /* a waiting thread takes its start snapshot */
	e.t0 = t;
	e.end = t + window_ns;
	/* each edge from the window's start, not the previous wake-up: lateness does not add up
	 * (pthread_cond_timedwait never returns before its absolute deadline, only after it) */
	while (atomic_load(&run->phase) != PHASE_STOP) {
		uint64_t ts = next_slice_edge(&e), tt = next_turn_edge(&e), until = ts < tt ? ts : tt;

		if (until == UINT64_MAX)
			break;
		window(until, &run->gate, &run->phase, hb, &next_ping);
		if (atomic_load(&run->phase) == PHASE_STOP) /* a worker failed: no edge, slices null */
			break;
		if (until == ts) {
			sample_slice(run);
			/* after the sample: the message a worker is in at the edge is still the
			 * previous slice's method, and is counted in slice k (src/README.md) */
			atomic_store_explicit(&run->slice, e.slice, memory_order_relaxed);
			e.slice++;
		}
		if (until == tt)
			share_switch(&run->share, e.turn++, now_ns());
	}
	window(t + window_ns, &run->gate, &run->phase, hb, &next_ping);
	atomic_store(&run->phase, PHASE_STOP);
	if (o->share)
		share_wake(&run->share); /* a waiting thread takes its end snapshot and ends */
	window_probe_end(&run->wp);
	if (run->ctlfd >= 0)
		ctl_send(&run->ctl, &run->e, "STOP");
	/* the sender bounds its own life: whatever the sink does, it gives up by then */
	run->deadline_ns = now_ns() + (uint64_t)(o->grace * 1e9);
}

/* A blocked thread's own bounded waits (a method's wait for zero-copy completions, 10 s) may
 * outlast its socket's shutdown; this long after it, it is left behind. */
#define UNBLOCK_NS 2000000000ull

/* The deadline: threads still running --grace seconds after the window are blocked in a send
 * (or a pingpong recv) that the sink will not let complete — it stopped reading (SIGSTOP, a
 * hang) or the path to it stalled. shutdown(SHUT_RDWR) wakes a thread blocked on its socket
 * (tcp_shutdown and the state change wake the socket's waiters: send fails with EPIPE, recv
 * returns 0). false when some thread still has not ended UNBLOCK_NS later: it cannot be joined. */
static bool stop_blocked_threads(struct send_run *run)
{
	int left = gate_wait_done(&run->gate, run->started, run->deadline_ns);

	if (!left)
		return true;
	run->gave_up = true;
	err_set(&run->e, "gave up %g s after the window (--grace): %d of %d sending threads still blocked; "
		"the sink stopped reading (stopped or hung?) or the path to it stalled",
		run->o.grace, left, run->started);
	for (int i = 0; i < run->started; i++)
		shutdown(run->snd[i].ctx.fd, SHUT_RDWR);
	return gate_wait_done(&run->gate, run->started, now_ns() + UNBLOCK_NS) == 0;
}

/* The sender's net.ipv4.tcp_slow_start_after_idle (its network namespace's: /proc/sys/net is
 * per namespace); -1 when unreadable */
static int slow_start_after_idle(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_slow_start_after_idle", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* --share-time: each connection's own figures (its sender thread, its turns, its zero-copy
 * completions), the config's, and the path's restart-after-idle setting. */
static void collect_share(struct send_run *run)
{
	struct share_record *sr = &run->shrec;
	socklen_t len = sizeof(sr->congestion) - 1;

	*sr = (struct share_record){ .order = share_order_names[run->o.share_order], .first = run->share.first,
				     .edge_ns = run->share.edge_ns, .slow_start_after_idle = slow_start_after_idle(),
				     .sink_unavailable = "no result from the sink" };
	if (getsockopt(run->snd[0].ctx.fd, IPPROTO_TCP, TCP_CONGESTION, sr->congestion, &len))
		sr->congestion[0] = 0;
	for (int c = 0; c < SHARE_CONNS; c++) {
		struct sender *s = &run->snd[c];
		struct meter *m = &s->meter;
		struct slicer *sl = &s->slicer;

		sr->methods[c] = s->m->name;
		sr->conn[c] = &run->sconn[c];
		side_totals(&sr->side[c], &m, &sl, 1, run->o.t.duration / SLICES, NULL);
		sr->sent[c] = meter_bytes(m);
		sr->zc_used[c] = s->ctx.zc_used;
		sr->zc[c] = s->ctx.zc;
		sr->gbit[c] = 0.0 / 0.0;
	}
	run->r.share = sr;
}

/* Join the threads and add up their figures into the record. */
static void collect_threads(struct send_run *run)
{
	struct record *r = &run->r;
	struct meter *meters[2 * MAX_THREADS];
	struct slicer *slicers[2 * MAX_THREADS];
	int nmeters = 0;

	if (!stop_blocked_threads(run)) {
		run->abandoned = true; /* no figures from threads still running: result null */
		return;
	}
	for (int i = 0; i < run->started; i++) {
		struct sender *s = &run->snd[i];
		const struct mctx *cs[2] = { &s->ctx, s->alt ? &s->alt_ctx : NULL };

		pthread_join(s->tid, NULL);
		if (s->err.msg[0])
			err_set(&run->e, "thread %d: %s", i, s->err.msg);
		slicers[nmeters] = &s->slicer;
		meters[nmeters++] = &s->meter;
		if (s->helper_meter.opened || s->helper_meter.have_end) {
			slicers[nmeters] = &s->helper_slicer;
			meters[nmeters++] = &s->helper_meter;
		}
		histo_merge(run->rtt, &s->rtt);
		for (int k = 0; k < 2 && cs[k]; k++) { /* --alternate: both methods' */
			const struct mctx *c = cs[k];

			r->zc_used |= c->zc_used;
			r->zc.sends += c->zc.sends;
			r->zc.completions += c->zc.completions;
			r->zc.copied += c->zc.copied;
			r->zc.enobufs += c->zc.enobufs;
			if (c->ring_used) {
				struct ring_bound *b = &r->ring;
				if (!r->ring_used || c->ring.in_flight > b->in_flight)
					b->in_flight = c->ring.in_flight;
				if (!r->ring_used || c->ring.ring_bytes < b->ring_bytes)
					b->ring_bytes = c->ring.ring_bytes;
				b->memory += c->ring.memory;
				r->ring_used = true;
			}
		}
		r->datagrams_sent += s->meter.messages;
		r->reply_timeouts += s->reply_timeouts;
	}
	side_totals(&r->sender, meters, slicers, nmeters, run->o.t.duration / SLICES, NULL);
	r->have_result = run->started == run->o.conns;
	if (run->o.share && r->have_result)
		collect_share(run);
	r->rtt = run->o.mode == MODE_PINGPONG ? run->rtt : NULL;
}

/* --share-time: the sink's figures of each connection; each connection's bytes must all have
 * arrived on that connection (a byte is never another connection's). */
static void share_from_sink(struct send_run *run)
{
	struct share_record *sr = &run->shrec;
	const struct share_from_sink *sk = &run->shsink;

	if (!sk->known || !sk->rx[0] || !sk->rx[1]) {
		sr->sink_unavailable = "the sink sent no shared-time figures";
		err_set(&run->e, "control: the sink sent no shared-time figures (SHARE, SHARERX)");
		return;
	}
	sr->sink_known = true;
	sr->sink_unavailable = NULL;
	sr->sink_json = sk->summary;
	for (int c = 0; c < SHARE_CONNS; c++) {
		sr->received[c] = sk->received[c];
		sr->gbit[c] = sk->gbit[c];
		sr->rx_json[c] = sk->rx[c];
		if (!run->e.msg[0] && sr->received[c] != sr->sent[c])
			err_set(&run->e, "connection %d (%s): the sink received %llu bytes but %llu were sent", c,
				sr->methods[c], (unsigned long long)sr->received[c], (unsigned long long)sr->sent[c]);
	}
}

/* The sink's result: its receiver block, and whether every byte arrived, once and right. */
static void collect_receiver(struct send_run *run)
{
	struct record *r = &run->r;
	struct err ce = { "" };
	uint64_t received = 0, sent = 0;

	if (read_result(&run->ctl, r, run->recv_json, sizeof(run->recv_json), &received, run->first,
			sizeof(run->first), run->deadline_ns, run->o.share ? &run->shsink : NULL, &ce)) {
		err_set(&run->e, "%s", ce.msg);
		return;
	}
	if (run->o.share && r->share)
		share_from_sink(run);
	r->receiver_json = run->recv_json;
	for (int i = 0; i < run->started; i++) /* splice2's second thread counts its own */
		sent += meter_bytes(&run->snd[i].meter) + meter_bytes(&run->snd[i].helper_meter);
	/* every byte sent (warm-up included) must have arrived, once */
	if (run->o.proto == PROTO_TCP && !run->e.msg[0] && received != sent)
		err_set(&run->e, "the sink received %llu bytes but %llu were sent",
			(unsigned long long)received, (unsigned long long)sent);
	if (r->verify_mismatches)
		err_set(&run->e, "verification failed: %llu mismatches, first at %s",
			(unsigned long long)r->verify_mismatches, r->first_mismatch);
}

/* Phase 7, collect: the threads' figures, then the sink's. */
static void send_collect(struct send_run *run)
{
	collect_threads(run);
	if (run->ctlfd >= 0 && run->started && !run->gave_up) /* gave up: the sink is not answering */
		collect_receiver(run);
}

/* Phase 8, report: judge the window, print the record and the summary, free; the exit code. */
static int send_report(struct send_run *run)
{
	struct record *r = &run->r;

	if (run->itf) {
		window_probe_finish(&run->wp, run->itf);
		r->interference = run->itf;
	}
	record_judge_window(r, &run->e);
	r->error = run->e.msg[0] ? run->e.msg : NULL;
	record_print(stdout, r); /* flushed */
	record_summary(stderr, r);
	if (run->abandoned) /* threads still blocked in the kernel use these buffers: exit_group ends them */
		_exit(record_exit_code(r));
	for (int i = 0; run->snd && i < run->o.conns; i++)
		if (run->snd[i].ctx.fd >= 0)
			close(run->snd[i].ctx.fd);
	free(run->shsink.summary);
	for (int c = 0; c < SHARE_CONNS; c++)
		free(run->shsink.rx[c]);
	if (run->ctlfd >= 0)
		close(run->ctlfd);
	if (run->src.fd >= 0)
		close(run->src.fd);
	free(run->snd);
	free(run->pat);
	free(run->rtt);
	free(run->itf);
	free(run->wp.start); /* window_probe_finish freed them unless itf was NULL */
	free(run->wp.end);
	return record_exit_code(r);
}

int cmd_send(int argc, char **argv)
{
	struct send_run run = { .ctlfd = -1, .src = { .fd = -1 } };

	send_options(argc, argv, &run);
	if (send_init(&run))
		return 1;
	if (!send_source(&run) && !send_handshake(&run) && !send_connect(&run)) {
		send_start(&run);
		send_window(&run);
		send_collect(&run);
	}
	return send_report(&run);
}

/* `copybench sink`: the receiving side. Serves sessions one after another on a control port;
 * per session one receiver thread per connection, each pinned, each verifying what arrives
 * and measuring itself. A client that speaks garbage or vanishes is dropped; the sink keeps
 * serving.
 *
 * Greetings are read side by side: every accepted control connection that has not yet sent
 * its whole HELLO line waits in one poll() with its own deadline (struct pending), so an idle,
 * slow or garbage client never delays another's greeting. A connection whose greeting is
 * complete becomes a session; one that fails it (garbage, its deadline, a close) is dropped
 * and is no session: it neither counts for --once nor restarts --idle-timeout.
 *
 * serve runs one session in phases, each a function: control handshake (the greeting) ->
 * connections -> threads -> window (MEASURE to STOP) -> collect and report (RESULT, RECEIVER,
 * END); a phase that fails aborts the session (session_abort), which unblocks and joins the
 * receivers. */
#include "control.h"
#include "counters.h"
#include "optable.h"
#include "pattern.h"
#include "procstat.h"
#include "share.h"
#include "socket.h"

#include <arpa/inet.h>
#include <linux/sockios.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* receiver.interference lists at most this many of the sink's CPUs: the RECEIVER control
 * line, and the sender's copy of it, are bounded (16 KiB, struct ctl's buffer) */
#define SINK_INTERFERENCE_CPUS 16
/* ... and its threads' CPUs and sockets at the window's edges for at most this many threads */
#define SINK_LIST_THREADS 16
/* A TCP stream receiver asks for at most --recv-size bytes per recv() (the session's: send
 * --recv-size in the greeting, else the sink's; RECV_SIZE_DEFAULT, 64 KiB). tcp_recvmsg()
 * keeps copying while segments are queued (and while the backlog that arrived during its copy
 * is processed), so a larger buffer is filled in one call when the receiver is behind; the
 * kernel's copy into a destination that size no longer stays in this core's L2 (512 KiB here,
 * with the skb data read beside it) and costs more per byte, so the receiver falls further
 * behind. Measured (loopback cross-core, 256 KiB messages, AMD EPYC VM): with 256 KiB calls the
 * receiver read ~220 KiB per call at 0.49-0.58 CPU-s/GB and capped the stream at 0.57-0.75x
 * iperf3; with 64 KiB calls it reads ~57 KiB per call at 0.21 CPU-s/GB, as iperf3's receiver
 * (0.20-0.21, ~31 KiB per read). 64 KiB is also the largest skb loopback hands over. Since the
 * receiver's cost per byte depends on it, a comparison whose sender is not the bottleneck
 * measures the receiver: the runner can measure a claim under several sizes (the record's
 * receiver.recv_size says which). */
/* Control connections waiting for their greeting at once, at most. One more evicts the one
 * waiting longest: a sender greets within a round trip of connecting, so only a client still
 * silent while this many others connected after it loses its place. 64 x 16 KiB of line
 * buffers (struct ctl) at most. */
#define PENDING_MAX 64
/* A greeting's deadline from its connection's accept: the sender's HELLO comes at once */
#define GREET_MS 5000
#define GREET_TOKEN_MS 2000

/* An accepted control connection whose greeting has not arrived whole yet. */
struct pending {
	int fd;
	struct ctl *ctl;            /* its line buffer (the session takes it over) */
	uint64_t deadline_ns;
	char peer[INET6_ADDRSTRLEN];
	int port;
};

struct sink_opts {
	const char *bind;
	int port;
	bool once;
	struct cpulist cpus;
	/* runner-token mode (--token-stdin): the runner's sweep only */
	bool token_stdin;
	char token[TOKEN_MAX + 1];  /* "" = off */
	const char *peer;           /* --peer: the only address served (numeric, normalized) */
	char peer_norm[INET6_ADDRSTRLEN];
	double idle_s;              /* --idle-timeout: exit when no session began for this long */
	uint64_t recv_size;         /* --recv-size: a TCP stream receiver's bytes per recv() when
				     * the sender's greeting does not say (recv=N) */
	int lfd;                    /* the control listener */
	bool lifeline_gone;         /* stdin closed: the runner (or its ssh) is gone */
	unsigned long refused, sessions;
	struct pending pend[PENDING_MAX]; /* in order of arrival */
	int npend;
};

struct receiver {
	int index, fd;
	const struct session *ss;
	const struct pattern *pat;
	const struct cpulist *cpus;
	_Atomic int *phase;
	struct meter meter;
	struct slicer slicer;      /* written by the control thread only (session_window) */
	struct verifier v;
	uint64_t next_index, lost; /* udp */
	struct err err;
	pthread_t tid;
};

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

#define SINK_AT(field, ctype) OPT_AT(struct sink_opts, field, ctype)

static const struct optdef sink_optdefs[] = {
	{ .name = "port", .arg = "N", .kind = OPT_INT, .at = SINK_AT(port, int), .min = 0, .max = 65535,
	  .help = "control port (default 5201; 0: any free port, printed when ready)" },
	{ .name = "bind", .arg = "ADDR", .kind = OPT_STRING, .at = SINK_AT(bind, const char *),
	  .help = "address to listen on (default ::, which also serves IPv4)" },
	{ .name = "cpus", .arg = "LIST", .kind = OPT_CPULIST, .at = SINK_AT(cpus, struct cpulist),
	  .help = "pin receiver thread i to the (i mod n)-th CPU of LIST" },
	{ .name = "once", .kind = OPT_FLAG, .at = SINK_AT(once, bool), .help = "exit after one session" },
	{ .name = "token-stdin", .kind = OPT_FLAG, .at = SINK_AT(token_stdin, bool),
	  .help = "runner-token mode (the runner's `remote` transport): read a token\n"
		  "(16-128 hex digits) from the first line of stdin; serve only senders\n"
		  "whose greeting and data connections carry it (others are refused and\n"
		  "counted); exit when stdin closes; sessions need a PING every 2 s" },
	{ .name = "peer", .arg = "ADDR", .kind = OPT_STRING, .at = SINK_AT(peer, const char *),
	  .help = "serve only connections from ADDR (refuse and count the others)" },
	{ .name = "idle-timeout", .arg = "S", .kind = OPT_SECONDS, .at = SINK_AT(idle_s, double),
	  .min = 0.1, .max = 86400, .help = "exit when no session began within S seconds" },
	{ .name = "recv-size", .arg = "BYTES", .kind = OPT_SIZE, .at = SINK_AT(recv_size, uint64_t),
	  .min = RECV_SIZE_MIN, .max = RECV_SIZE_MAX,
	  .help = "bytes a TCP stream receiver asks for per recv() (default 64K; 4K to\n"
		  "64M) when the sender does not say (send --recv-size)" },
	OPT_HELP_ROW,
	{ 0 },
};

static const struct optcmd sink_cmd = {
	.name = "sink",
	.synopsis = "usage: copybench sink [--port 5201] [--bind ADDR] [--cpus LIST] [--once] [--recv-size 64K]\n"
		    "  Receives for `copybench send`. Prints {\"event\":\"ready\",\"port\":P} on stdout when\n"
		    "  listening, then serves sessions until SIGINT/SIGTERM.\n",
	.opts = sink_optdefs,
};

/* The most bytes one recv() of the session's receivers asks for: a TCP stream's --recv-size;
 * a datagram's or a TCP echo's message size and one more (a longer datagram shows as too
 * long; an echo never reads past the message it answers). */
static size_t recv_cap(const struct session *ss)
{
	if (ss->proto == PROTO_UDP || ss->mode == MODE_PINGPONG)
		return (size_t)ss->size + 1;
	return (size_t)ss->recv_size;
}

static void *receiver_main(void *arg)
{
	struct receiver *r = arg;
	const struct session *ss = r->ss;
	size_t cap = recv_cap(ss);
	uint8_t *buf = malloc(cap);

	if (!buf) {
		err_set(&r->err, "out of memory");
		return NULL;
	}
	name_thread("cb-sink", ss->seed); /* the receiving side, in CPU profiles */
	pin_to_cpu(r->cpus, r->index, &r->err);
	meter_open(&r->meter, (enum counter_set)ss->counters);
	meter_set_socket(&r->meter, r->fd, ss->proto == PROTO_TCP, NULL); /* its state at the window's edges */
	verifier_init(&r->v, r->pat, (enum verify_mode)ss->verify);
	if (ss->proto == PROTO_UDP)
		set_timeout_ms(r->fd, SO_RCVTIMEO, 100); /* to notice STOP between datagrams */
	for (;;) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		ssize_t n;

		if (ss->proto == PROTO_TCP && ss->mode == MODE_PINGPONG) {
			int rc = read_full(r->fd, buf, ss->size, &r->err);
			if (rc <= 0)
				break; /* EOF: the sender is done */
			n = (ssize_t)ss->size;
		} else {
			n = recvfrom(r->fd, buf, cap, 0, (struct sockaddr *)&from, &fromlen);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (ss->proto == PROTO_UDP && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				if (meter_tick(&r->meter, r->phase))
					break;
				continue;
			}
			if (errno != ECONNRESET)
				err_sys(&r->err, "recv");
			break;
		}
		if (n == 0 && ss->proto == PROTO_TCP)
			break;
		if (ss->proto == PROTO_UDP) {
			verify_datagram(&r->v, buf, (size_t)n, &r->next_index, &r->lost);
			r->meter.messages++;
		} else {
			verify_stream(&r->v, buf, (size_t)n);
		}
		meter_add(&r->meter, (uint64_t)n);
		if (ss->proto == PROTO_TCP && ss->mode == MODE_STREAM)
			r->meter.messages = meter_bytes(&r->meter) / ss->record; /* whole records delivered */
		if (ss->mode == MODE_PINGPONG) {
			ssize_t w = ss->proto == PROTO_UDP ? sendto(r->fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fromlen)
							   : (write_full(r->fd, buf, (size_t)n, &r->err) ? -1 : n);
			if (w < 0)
				break;
			if (ss->proto == PROTO_TCP)
				r->meter.messages++;
		}
		if (meter_tick(&r->meter, r->phase) && ss->proto == PROTO_UDP)
			break;
	}
	meter_transition(&r->meter, PHASE_STOP);
	meter_close(&r->meter);
	free(buf);
	return NULL;
}

static const char *cpus_json(const struct cpulist *cl, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < cl->n && n + 8 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "", cl->cpu[i]);
	return buf;
}

/* The numeric address of a socket's peer ("" if unknown); IPv4-mapped IPv6 as plain IPv4. */
static void peer_addr(int fd, char *buf, size_t len, int *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	buf[0] = 0;
	*port = 0;
	if (getpeername(fd, (struct sockaddr *)&ss, &sl))
		return;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		*port = ntohs(a->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
			inet_ntop(AF_INET, &a->sin6_addr.s6_addr[12], buf, (socklen_t)len);
		else
			inet_ntop(AF_INET6, &a->sin6_addr, buf, (socklen_t)len);
	} else if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		*port = ntohs(a->sin_port);
		inet_ntop(AF_INET, &a->sin_addr, buf, (socklen_t)len);
	}
}

/* A connection that is not the runner's: counted, logged (stdout event, stderr line), closed. */
static void refuse(struct sink_opts *o, int fd, const char *peer, int port, const char *why)
{
	o->refused++;
	printf("{\"event\":\"refused\",\"peer\":\"%s\",\"port\":%d,\"reason\":\"%s\",\"refused\":%lu}\n",
	       peer, port, why, o->refused);
	fflush(stdout);
	fprintf(stderr, "copybench sink: refused a connection from %s port %d: %s\n", peer, port, why);
	if (fd >= 0) {
		char drain[512];
		/* read what it sent first: closing with unread data would reset the connection
		 * before it reads the answer */
		while (recv(fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
			;
		dprintf(fd, "ERR refused\n");
		shutdown(fd, SHUT_WR);
		close(fd);
	}
}

/* Whether stdin (the lifeline in runner-token mode) has closed; reads and drops anything else. */
static bool lifeline_closed(struct sink_opts *o, int timeout_ms)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char buf[256];

	if (!o->token[0] || o->lifeline_gone)
		return o->lifeline_gone;
	if (poll(&pfd, 1, timeout_ms) > 0) {
		ssize_t n = read(0, buf, sizeof(buf));
		if (n <= 0 && !(n < 0 && errno == EINTR))
			o->lifeline_gone = true;
	}
	return o->lifeline_gone;
}

/* Forget waiting connection i (those after it move up), its fd and line buffer now the
 * caller's. */
static void pending_take(struct sink_opts *o, int i)
{
	memmove(&o->pend[i], &o->pend[i + 1], (size_t)(o->npend - i - 1) * sizeof(o->pend[0]));
	o->npend--;
}

/* Close waiting connection i and forget it. */
static void pending_remove(struct sink_opts *o, int i)
{
	close(o->pend[i].fd);
	free(o->pend[i].ctl);
	pending_take(o, i);
}

/* Refuse every control connection waiting on the listener, or for its greeting, while a
 * session runs (only one session at a time; in runner-token mode nobody else gets in line
 * behind it). */
static void refuse_waiting(struct sink_opts *o)
{
	struct pollfd pfd = { .fd = o->lfd, .events = POLLIN };

	while (o->token[0] && o->npend) {
		struct pending *p = &o->pend[0];
		refuse(o, p->fd, p->peer, p->port, "busy: a session of the runner is running"); /* closes it */
		free(p->ctl);
		pending_take(o, 0);
	}
	while (o->token[0] && poll(&pfd, 1, 0) > 0) {
		char peer[INET6_ADDRSTRLEN];
		int port, fd = accept4(o->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return;
		peer_addr(fd, peer, sizeof(peer), &port);
		refuse(o, fd, peer, port, o->peer && strcmp(peer, o->peer_norm) ? "unexpected peer address"
						       : "busy: a session of the runner is running");
	}
}

/* In runner-token mode a data connection must come from the control connection's address and
 * open with CBDATA <token>\n; 0 = ours, else refused (fd closed). */
static int check_data(struct sink_opts *o, int fd, const char *ctl_peer)
{
	char peer[INET6_ADDRSTRLEN], want[sizeof(CTL_DATA_MAGIC) + TOKEN_MAX + 2], got[sizeof(want)];
	int port, n;
	struct err e = { "" };

	peer_addr(fd, peer, sizeof(peer), &port);
	if (strcmp(peer, ctl_peer)) {
		refuse(o, fd, peer, port, "data connection from another address than the control connection");
		return -1;
	}
	n = snprintf(want, sizeof(want), CTL_DATA_MAGIC "%s\n", o->token);
	set_timeout_ms(fd, SO_RCVTIMEO, 3000);
	if (read_full(fd, got, (size_t)n, &e) != 1 || memcmp(got, want, (size_t)n)) {
		refuse(o, fd, peer, port, "data connection without the runner's token");
		return -1;
	}
	set_timeout_ms(fd, SO_RCVTIMEO, 0);
	return 0;
}

/* Accept `n` data connections within a deadline. */
static int accept_data(struct sink_opts *o, int lfd, int *fds, int n, const char *ctl_peer,
		       struct err *e)
{
	for (int i = 0; i < n; i++) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		if (poll(&pfd, 1, 10000) <= 0) {
			err_set(e, "data connection %d of %d did not arrive within 10 s", i + 1, n);
			return -1;
		}
		fds[i] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fds[i] < 0) {
			err_sys(e, "accept");
			return -1;
		}
		if (o->token[0] && check_data(o, fds[i], ctl_peer))
			i--; /* not ours: keep waiting for the runner's */
	}
	return 0;
}

/* One session on a control connection: what its phases share (serve runs them in order). */
struct sink_session {
	struct sink_opts *o;
	int cfd;                      /* the control connection */
	struct ctl *ctl;
	struct session ss;
	struct pattern *pat;
	struct receiver *rcv;         /* ss.threads of them */
	int lfd, started;             /* the data listener (tcp); receiver threads running */
	_Atomic int phase;
	char cpeer[INET6_ADDRSTRLEN]; /* the control connection's peer */
	int cport;
	struct window_probe wp;       /* this host's /proc/stat from MEASURE to STOP (interference) */
	struct interference *itf;
	uint64_t slice_ns;            /* the sender's slice length (MEASURE slice_ns=N); 0: none */
	struct share_series *sx;      /* send --share-time (MEASURE ... turn_ns=P first=C): each
				       * connection's received total every grain; NULL: none */
	struct err e;
};

/* What the greeting phase decided. */
enum greeting { GREET_OK, GREET_DROPPED, GREET_REFUSED };

/* A greeting that is not a session: dropped (logged) or, in runner-token mode, refused
 * (counted). ERR answers it when `answer` is set. */
static enum greeting turn_away(struct sink_session *s, const char *refused, const char *dropped,
			       const char *answer)
{
	if (s->o->token[0]) {
		refuse(s->o, -1, s->cpeer, s->cport, refused);
		if (answer)
			ctl_send(s->ctl, &s->e, "ERR refused");
		return GREET_REFUSED;
	}
	fprintf(stderr, "copybench sink: dropped a client: %s\n", dropped);
	if (answer)
		ctl_send(s->ctl, &s->e, "ERR %s", answer);
	return GREET_DROPPED;
}

/* Phase 1, control handshake: the sender's HELLO (with the runner's token in that mode), as
 * ctl_recv read it (rc, line; s->e says why when rc is not 1). */
static enum greeting session_greet(struct sink_session *s, int rc, const char *line)
{
	char why[160], late[64];

	snprintf(late, sizeof(late), "no greeting within %d s", (s->o->token[0] ? GREET_TOKEN_MS : GREET_MS) / 1000);
	if (rc == CTL_TIMEOUT || rc == 0) /* nothing to answer: it said nothing */
		return turn_away(s, rc ? late : "closed before greeting", rc ? late : "closed before greeting", NULL);
	if (rc < 0) /* no line within the control buffer, or a line too long: nothing to answer */
		return turn_away(s, "not a copybench greeting", s->e.msg, NULL);
	if (session_parse(line, &s->ss, why, sizeof(why)))
		return turn_away(s, "not a copybench greeting with the runner's token", why, why);
	if (s->o->token[0] && strcmp(s->ss.token, s->o->token)) {
		refuse(s->o, -1, s->cpeer, s->cport,
		       s->ss.token[0] ? "wrong runner token" : "greeting without the runner's token");
		ctl_send(s->ctl, &s->e, "ERR refused");
		return GREET_REFUSED;
	}
	if (!s->ss.recv_size)
		s->ss.recv_size = s->o->recv_size;
	pattern_init(s->pat, s->ss.seed, s->ss.record, s->ss.stamped);
	s->rcv = calloc((size_t)s->ss.threads, sizeof(*s->rcv));
	if (!s->rcv)
		return GREET_DROPPED;
	for (int i = 0; i < s->ss.threads; i++)
		s->rcv[i].fd = -1;
	return GREET_OK;
}

/* Phase 2, connections: TCP, one listener on the control connection's address, its port
 * sent, then every data connection accepted (and the listener closed); UDP, one socket per
 * thread, their ports sent. */
static int session_connect(struct sink_session *s)
{
	char ports[MAX_THREADS * 7 + 16];
	size_t len = 0;
	int port, fds[MAX_THREADS];

	if (s->ss.proto == PROTO_TCP) {
		s->lfd = listen_like(s->cfd, SOCK_STREAM, s->ss.sockbuf, &port, &s->e);
		if (s->lfd < 0 || ctl_send(s->ctl, &s->e, "OK port=%d", port))
			return -1;
		if (accept_data(s->o, s->lfd, fds, s->ss.threads, s->cpeer, &s->e))
			return -1;
		close(s->lfd); /* every data connection is here: nobody else gets in */
		s->lfd = -1;
		for (int i = 0; i < s->ss.threads; i++) {
			int one = 1;
			s->rcv[i].fd = fds[i];
			if (s->ss.mode == MODE_PINGPONG) /* echo at once: no Nagle wait behind the last reply */
				setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		}
		return 0;
	}
	for (int i = 0; i < s->ss.threads; i++) {
		s->rcv[i].fd = listen_like(s->cfd, SOCK_DGRAM, 0, &port, &s->e);
		if (s->rcv[i].fd < 0)
			return -1;
		len += (size_t)snprintf(ports + len, sizeof(ports) - len, "%s%d", i ? "," : "", port);
	}
	return ctl_send(s->ctl, &s->e, "OK ports=%s", ports) ? -1 : 0;
}

/* Phase 3, threads: one receiver per connection. */
static int session_start(struct sink_session *s)
{
	for (int i = 0; i < s->ss.threads; i++) {
		struct receiver *r = &s->rcv[i];
		r->index = i;
		r->ss = &s->ss;
		r->pat = s->pat;
		r->cpus = &s->o->cpus;
		r->phase = &s->phase;
		if (pthread_create(&r->tid, NULL, receiver_main, r)) {
			err_sys(&s->e, "pthread_create");
			return -1;
		}
		s->started++;
	}
	return 0;
}

/* The receivers' running byte totals at a slice edge. */
static void sample_slice(struct sink_session *s)
{
	struct slicer *sl[MAX_THREADS];
	struct meter *m[MAX_THREADS];

	for (int i = 0; i < s->started; i++)
		sl[i] = &s->rcv[i].slicer, m[i] = &s->rcv[i].meter;
	slicer_sample(sl, m, s->started);
}

/* --share-time: each connection's running total now, as sample x->n (share.h) */
static void share_sample(struct sink_session *s, uint64_t t)
{
	struct share_series *x = s->sx;

	if (x->n > SHARE_MAX_GRAINS)
		return;
	if (x->n % SHARE_GRAINS_PER_TURN == 0 && x->n / SHARE_GRAINS_PER_TURN < SHARE_MAX_TURNS)
		for (int c = 0; c < SHARE_CONNS; c++) { /* a turn's first sample: what is unread */
			int q;
			x->inq[c][x->n / SHARE_GRAINS_PER_TURN] = ioctl(s->rcv[c].fd, SIOCINQ, &q) ? -1 : q;
		}
	x->t[x->n] = t;
	for (int c = 0; c < SHARE_CONNS; c++)
		x->bytes[c][x->n] = meter_bytes(&s->rcv[c].meter);
	x->n++;
}

/* --share-time: the grain edges due by now (counted from MEASURE as it arrived, inside the
 * window: slice_ns x SLICES); one late wake-up samples every edge it missed at once (grains of
 * no length, so each keeps its turn); ns to the next one, UINT64_MAX when none is left. */
static uint64_t share_due(struct sink_session *s, uint64_t t_measure, uint64_t now)
{
	struct share_series *x = s->sx;
	uint64_t window = s->slice_ns * SLICES;

	while (x->n < SHARE_MAX_GRAINS && (uint64_t)x->n * SHARE_GRAIN_NS < window &&
	       t_measure + (uint64_t)x->n * SHARE_GRAIN_NS <= now)
		share_sample(s, now);
	if (x->n >= SHARE_MAX_GRAINS || (uint64_t)x->n * SHARE_GRAIN_NS >= window)
		return UINT64_MAX;
	return t_measure + (uint64_t)x->n * SHARE_GRAIN_NS - now;
}

/* How long the control thread may wait for a line: until the next slice edge (sampled here
 * when due) or --share-time grain, at most 1 s. The edges are the sender's slice length apart
 * from MEASURE as it arrived; poll(2) times out in whole ms, so an edge is read up to ~1 ms
 * late (its time is recorded, so the slices' seconds stay exact). */
static int wait_ms_to_edge(struct sink_session *s, uint64_t t_measure, int *edges)
{
	uint64_t next, now, left = 1000000000ull;

	if (!s->slice_ns || !t_measure)
		return 1000;
	now = now_ns();
	if (s->sx)
		left = share_due(s, t_measure, now);
	while (*edges < SLICE_EDGES) {
		next = t_measure + (uint64_t)(*edges + 1) * s->slice_ns;
		if (now < next) {
			left = next - now < left ? next - now : left;
			break;
		}
		sample_slice(s);
		++*edges;
	}
	return left >= 1000000000ull ? 1000 : (int)((left + 999999) / 1000000);
}

/* MEASURE slice_ns=N [turn_ns=P first=C]: the sender's slice length, and with --share-time its
 * turns (its period, the window's first turn's connection); 0, or -1 when it is not one */
static int parse_measure(struct sink_session *s, const char *line)
{
	unsigned long long slice_ns, turn_ns;
	int first, off = 0;

	if (!strcmp(line, "MEASURE")) { /* an older sender: the receiver's slices are null */
		s->slice_ns = 0;
		return 0;
	}
	if (sscanf(line, "MEASURE slice_ns=%llu%n", &slice_ns, &off) != 1)
		return -1;
	s->slice_ns = slice_ns;
	if (!line[off])
		return 0;
	if (sscanf(line + off, " turn_ns=%llu first=%d", &turn_ns, &first) != 2 ||
	    turn_ns != SHARE_PERIOD_NS || (first != 0 && first != 1) || s->ss.threads != SHARE_CONNS ||
	    s->ss.proto != PROTO_TCP || !slice_ns || slice_ns * SLICES > (uint64_t)SHARE_MAX_GRAINS * SHARE_GRAIN_NS)
		return -1;
	s->sx = calloc(1, sizeof(*s->sx));
	if (!s->sx)
		return -1;
	s->sx->first = first;
	return 0;
}

/* Phase 4, the window: the sender's MEASURE and STOP on the control connection (its PINGs in
 * runner-token mode), however long it takes; the session ends early when the sender goes
 * away, falls silent (runner-token mode) or says something else, or the runner is gone. */
static int session_window(struct sink_session *s)
{
	char line[1024];
	int rc, silent_ms = 0, edges = 0, wait_ms;
	uint64_t t_measure = 0;

	for (;;) {
		refuse_waiting(s->o);
		if (lifeline_closed(s->o, 0)) {
			err_set(&s->e, "stdin closed: the runner is gone");
			return -1;
		}
		wait_ms = wait_ms_to_edge(s, t_measure, &edges);
		rc = ctl_recv(s->ctl, line, sizeof(line), wait_ms, &s->e);
		if (rc == CTL_TIMEOUT && !quit) { /* windows last as long as the sender says */
			s->e.msg[0] = 0;
			silent_ms += wait_ms;
			if (s->o->token[0] && silent_ms >= CTL_HEARTBEAT_LIMIT_MS) {
				err_set(&s->e, "no heartbeat from the sender for %d s", silent_ms / 1000);
				return -1;
			}
			continue;
		}
		if (rc <= 0) {
			err_set(&s->e, "the client went away mid-session");
			return -1;
		}
		silent_ms = 0;
		if (!strcmp(line, "PING"))
			continue;
		if (!strncmp(line, "MEASURE", 7) && !t_measure && !parse_measure(s, line)) {
			window_probe_start(&s->wp);
			atomic_store(&s->phase, PHASE_MEASURE);
			t_measure = now_ns();
			if (s->sx)
				share_sample(s, t_measure); /* the first grain's start */
		} else if (!strcmp(line, "STOP")) {
			wait_ms_to_edge(s, t_measure, &edges); /* an edge due before STOP was read */
			if (s->sx && t_measure)
				share_sample(s, now_ns()); /* the last grain's end */
			break;
		} else {
			err_set(&s->e, "unexpected control line '%.40s'", line);
			ctl_send(s->ctl, &s->e, "ERR unexpected control line");
			return -1;
		}
	}
	atomic_store(&s->phase, PHASE_STOP);
	window_probe_end(&s->wp);
	return 0;
}

/* The receivers' verification, added up; `first` names the first mismatch or failure. */
struct rx_totals {
	uint64_t checked, mism, bytes, dgrams;
	char first[400];
};

/* Join the receivers and add up what they checked and measured. */
static void collect_receivers(struct sink_session *s, struct meter **ms, struct rx_totals *t)
{
	for (int i = 0; i < s->started; i++) {
		struct receiver *r = &s->rcv[i];

		pthread_join(r->tid, NULL);
		ms[i] = &r->meter;
		t->checked += r->v.bytes_checked;
		t->mism += r->v.mismatches;
		t->bytes += meter_bytes(&r->meter);
		if (s->ss.proto == PROTO_UDP)
			t->dgrams += r->meter.messages;
		if (!t->first[0] && r->v.first[0])
			snprintf(t->first, sizeof(t->first), "connection %d: %s", i, r->v.first);
		if (r->err.msg[0] && !t->mism)
			snprintf(t->first, sizeof(t->first), "connection %d: %s", i, r->err.msg), t->mism++;
	}
	s->started = 0;
}

/* The sink host's interference over the window, as a JSON object (NULL when none could be
 * written); its CPUs only, at most SINK_INTERFERENCE_CPUS (the control line is bounded). */
static char *interference_object(struct sink_session *s, size_t *len)
{
	char *ijson = NULL;
	struct json j;
	FILE *f;

	if (s->itf)
		window_probe_finish(&s->wp, s->itf);
	f = open_memstream(&ijson, len);
	if (f) {
		json_init(&j, f);
		json_begin(&j, NULL);
		interference_json_sel(&j, s->itf, &s->o->cpus, SINK_INTERFERENCE_CPUS);
		json_end(&j);
		fclose(f);
	}
	return ijson;
}

/* --share-time: SHARE (each connection's bytes, its method's rate and the turns' figures:
 * sharesum.c) and one SHARERX per connection (its receiving thread's block). The receivers
 * are joined. */
static void share_report(struct sink_session *s, struct meter *const *ms, struct slicer *const *sl)
{
	struct share_summary *sum = calloc(1, sizeof(*sum));
	struct side_totals *t = calloc(1, sizeof(*t));
	char *json = NULL;
	size_t len = 0;
	struct json j;
	FILE *f;

	if (!sum || !t || !(f = open_memstream(&json, &len))) {
		free(sum);
		free(t);
		err_set(&s->e, "out of memory");
		ctl_send(s->ctl, &s->e, "ERR out of memory for the shared-time figures");
		return;
	}
	share_summarize(s->sx, sum);
	json_init(&j, f);
	share_summary_json(&j, NULL, sum);
	fclose(f);
	ctl_send(s->ctl, &s->e, "SHARE received=%llu,%llu gbit=%.9g,%.9g %s",
		 (unsigned long long)meter_bytes(ms[0]), (unsigned long long)meter_bytes(ms[1]),
		 sum->have_rates ? sum->c[0].gbit_per_s : NAN, sum->have_rates ? sum->c[1].gbit_per_s : NAN, json);
	for (int c = 0; c < SHARE_CONNS; c++) {
		free(json);
		json = NULL;
		side_totals(t, &ms[c], &sl[c], 1, (double)s->slice_ns / 1e9,
			    "the sender gave no slice length (MEASURE without slice_ns)");
		f = open_memstream(&json, &len);
		if (!f)
			break;
		json_init(&j, f);
		side_totals_json(&j, NULL, t);
		fclose(f);
		ctl_send(s->ctl, &s->e, "SHARERX %d %s", c, json);
	}
	free(json);
	free(sum);
	free(t);
}

/* Phase 5, collect: join the receivers and send RESULT, RECEIVER (the receiving side's block:
 * totals, CPUs, interference), with --share-time SHARE and SHARERX, and END. -1 only when the
 * block cannot be written at all. */
static int session_report(struct sink_session *s)
{
	struct meter *ms[MAX_THREADS];
	struct slicer *sl[MAX_THREADS];
	struct side_totals t;
	struct rx_totals rx = { 0 };
	struct json j;
	char *json = NULL, *ijson, cpus[MAX_CPUS * 5 + 4];
	size_t jlen = 0, ilen = 0;
	FILE *f;

	for (int i = 0; i < s->ss.threads; i++)
		sl[i] = &s->rcv[i].slicer;
	collect_receivers(s, ms, &rx);
	side_totals(&t, ms, sl, s->ss.threads, (double)s->slice_ns / 1e9,
		    "the sender gave no slice length (MEASURE without slice_ns)");
	t.list_max = SINK_LIST_THREADS; /* the RECEIVER line is bounded */
	f = open_memstream(&json, &jlen);
	if (!f)
		return -1;
	json_init(&j, f);
	side_totals_json(&j, NULL, &t);
	fclose(f);
	ijson = interference_object(s, &ilen);
	/* add the receiver's CPUs inside the object: replace the final '}' */
	if (jlen && json[jlen - 1] == '}') {
		json[jlen - 1] = 0;
		ctl_send(s->ctl, &s->e, "RESULT checked=%llu mismatches=%llu bytes=%llu datagrams=%llu first=%s",
			 (unsigned long long)rx.checked, (unsigned long long)rx.mism, (unsigned long long)rx.bytes,
			 (unsigned long long)rx.dgrams, rx.first);
		ctl_send(s->ctl, &s->e, "RECEIVER %s,\"recv_size\":%zu,\"cpus\":[%s]%s%s", json, recv_cap(&s->ss),
			 cpus_json(&s->o->cpus, cpus, sizeof(cpus)), ijson && ilen > 2 ? "," : "}", ijson && ilen > 2 ? ijson + 1 : "");
		if (s->sx && s->ss.threads == SHARE_CONNS)
			share_report(s, ms, sl);
		ctl_send(s->ctl, &s->e, "END");
	}
	free(json);
	free(ijson);
	fprintf(stderr, "copybench sink: session %s %s threads=%d size=%llu: %llu bytes, %s\n",
		proto_names[s->ss.proto], mode_names[s->ss.mode], s->ss.threads, (unsigned long long)s->ss.size,
		(unsigned long long)rx.bytes, rx.mism ? "MISMATCH" : "verified");
	return 0;
}

/* A session that failed midway: logged; the receivers are unblocked and joined. */
static void session_abort(struct sink_session *s)
{
	fprintf(stderr, "copybench sink: session aborted: %s\n", s->e.msg);
	atomic_store(&s->phase, PHASE_STOP);
	for (int i = 0; s->rcv && i < s->ss.threads; i++)
		if (s->rcv[i].fd >= 0)
			shutdown(s->rcv[i].fd, SHUT_RDWR); /* unblock receivers */
	for (int i = 0; i < s->started; i++)
		pthread_join(s->rcv[i].tid, NULL);
}

static void session_free(struct sink_session *s)
{
	for (int i = 0; s->rcv && i < s->ss.threads; i++)
		if (s->rcv[i].fd >= 0)
			close(s->rcv[i].fd);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->rcv);
	free(s->pat);
	free(s->ctl);
	free(s->itf);
	free(s->sx);
	free(s->wp.start); /* window_probe_finish freed them unless itf was NULL */
	free(s->wp.end);
}

/* A control connection whose greeting phase ended (ctl_recv's rc and line, e why when rc is
 * not 1): turned away, or a session run to its end (served or aborted). Takes over p->ctl;
 * p->fd stays the caller's to close. GREET_OK: it was a session. */
static enum greeting serve(struct sink_opts *o, struct pending *p, int rc, const char *line,
			   const struct err *e)
{
	struct sink_session s = { .o = o, .cfd = p->fd, .ctl = p->ctl, .lfd = -1, .e = *e, .cport = p->port };
	enum greeting g = GREET_DROPPED;

	p->ctl = NULL;
	atomic_init(&s.phase, PHASE_WARMUP);
	s.pat = malloc(sizeof(*s.pat));
	s.itf = malloc(sizeof(*s.itf));
	window_probe_init(&s.wp);
	snprintf(s.cpeer, sizeof(s.cpeer), "%s", p->peer);
	if (s.pat)
		g = session_greet(&s, rc, line);
	if (g == GREET_OK) {
		s.e.msg[0] = 0;
		refuse_waiting(o); /* runner-token mode: nobody waits behind the runner's session */
		if (session_connect(&s) || session_start(&s) || session_window(&s) || session_report(&s))
			session_abort(&s);
	}
	session_free(&s);
	return g;
}

/* --peer: a numeric address, kept in the form peer_addr writes, to compare with it */
static void normalize_peer(struct sink_opts *o)
{
	unsigned char a[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, o->peer, a) == 1)
		inet_ntop(AF_INET, a, o->peer_norm, sizeof(o->peer_norm));
	else if (inet_pton(AF_INET6, o->peer, a) == 1)
		inet_ntop(AF_INET6, a, o->peer_norm, sizeof(o->peer_norm));
	else
		die_usage("--peer: '%s' is not a numeric IPv4 or IPv6 address", o->peer);
}

/* --token-stdin: the token is the first line of stdin */
static void read_token(struct sink_opts *o)
{
	char line[TOKEN_MAX + 4];
	ssize_t n = 0, r;

	/* byte by byte: nothing after the newline may be consumed (stdin stays the lifeline) */
	while (n < (ssize_t)sizeof(line) - 1 && (r = read(0, line + n, 1)) == 1 && line[n] != '\n')
		n++;
	line[n] = 0;
	if (!token_valid(line))
		die_usage("--token-stdin: the first line of stdin is not a token (%d to %d lowercase hex digits)",
			  TOKEN_MIN, TOKEN_MAX);
	strcpy(o->token, line);
}

/* Phase 0, options of `copybench sink`; the runner's token is read from stdin. */
static void sink_parse(int argc, char **argv, struct sink_opts *o)
{
	*o = (struct sink_opts){ .bind = "::", .port = 5201, .recv_size = RECV_SIZE_DEFAULT };
	optable_parse(argc, argv, &sink_cmd, o);
	if (o->peer)
		normalize_peer(o);
	if (o->token_stdin)
		read_token(o);
}

/* A new control connection joins the waiting ones (--peer refuses a stranger first); with
 * PENDING_MAX waiting, the one waiting longest is turned away to make room. */
static void pending_add(struct sink_opts *o, int fd)
{
	struct pending *p;
	char why[96], peer[INET6_ADDRSTRLEN];
	int port;

	peer_addr(fd, peer, sizeof(peer), &port);
	if (o->peer && strcmp(peer, o->peer_norm)) {
		refuse(o, fd, peer, port, "unexpected peer address");
		return;
	}
	if (o->npend == PENDING_MAX) {
		p = &o->pend[0];
		snprintf(why, sizeof(why), "no greeting before %d newer connections", PENDING_MAX);
		if (o->token[0])
			refuse(o, -1, p->peer, p->port, why);
		else
			fprintf(stderr, "copybench sink: dropped a client: %s\n", why);
		pending_remove(o, 0);
	}
	p = &o->pend[o->npend];
	*p = (struct pending){ .fd = fd, .ctl = malloc(sizeof(*p->ctl)), .port = port };
	snprintf(p->peer, sizeof(p->peer), "%s", peer);
	if (!p->ctl) {
		fprintf(stderr, "copybench sink: dropped a client: out of memory\n");
		close(fd);
		return;
	}
	ctl_init(p->ctl, fd);
	p->deadline_ns = now_ns() + (uint64_t)(o->token[0] ? GREET_TOKEN_MS : GREET_MS) * 1000000ull;
	o->npend++;
}

/* Accept what waits on the listener now (at most PENDING_MAX at a time: the loop comes back). */
static void accept_waiting(struct sink_opts *o)
{
	struct pollfd pfd = { .fd = o->lfd, .events = POLLIN };

	for (int k = 0; k < PENDING_MAX && poll(&pfd, 1, 0) > 0; k++) {
		int fd = accept4(o->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return;
		pending_add(o, fd);
	}
}

/* Each waiting connection: what it has sent so far is read (never waited for); a whole line, a
 * close, garbage or a passed deadline ends its greeting phase (serve: turned away, or a
 * session). Returns why the sink stops after a session (--once, the lifeline), else NULL. */
static const char *greet_waiting(struct sink_opts *o, double *idle_since)
{
	int i = 0;

	while (i < o->npend && !quit) {
		struct pending p = o->pend[i];
		struct err e = { "" };
		char line[1024];
		int rc = ctl_recv(p.ctl, line, sizeof(line), 0, &e);

		if (rc == CTL_TIMEOUT && now_ns() < p.deadline_ns) {
			i++; /* not yet: it keeps its place */
			continue;
		}
		pending_take(o, i); /* before serve, which may change the list (refuse_waiting) */
		if (serve(o, &p, rc, line, &e) == GREET_OK) {
			o->sessions++;
			*idle_since = now_s();
		}
		close(p.fd);
		if (o->lifeline_gone)
			return "lifeline";
		if (o->once && o->sessions)
			return "once";
	}
	return NULL;
}

/* How long the loop may sleep: until the nearest greeting deadline, at most 200 ms. */
static int wait_ms(const struct sink_opts *o)
{
	uint64_t now = now_ns(), left = 200000000ull;

	for (int i = 0; i < o->npend; i++) {
		uint64_t d = o->pend[i].deadline_ns;
		if (d <= now)
			return 0;
		if (d - now < left)
			left = d - now;
	}
	return (int)((left + 999999) / 1000000);
}

/* The serving loop: sessions one after another until a signal, --once, --idle-timeout or (in
 * runner-token mode) the lifeline ends it; returns why, for the exit event. */
static const char *sink_loop(struct sink_opts *o)
{
	double idle_since = now_s();

	while (!quit) {
		struct pollfd pfd[2 + PENDING_MAX] = { { .fd = o->lfd, .events = POLLIN },
						       { .fd = o->token[0] ? 0 : -1, .events = POLLIN } };
		const char *why;

		if (o->idle_s > 0 && now_s() - idle_since > o->idle_s)
			return "idle";
		for (int i = 0; i < o->npend; i++)
			pfd[2 + i] = (struct pollfd){ .fd = o->pend[i].fd, .events = POLLIN };
		if (poll(pfd, 2 + (nfds_t)o->npend, wait_ms(o)) < 0)
			continue;
		if (o->token[0] && pfd[1].revents && lifeline_closed(o, 0))
			return "lifeline";
		why = greet_waiting(o, &idle_since);
		if (why)
			return why;
		accept_waiting(o);
	}
	return "signal";
}

int cmd_sink(int argc, char **argv)
{
	struct sink_opts o;
	struct sigaction sa = { .sa_handler = on_signal };
	struct err e = { "" };
	const char *why_exit;

	sink_parse(argc, argv, &o);
	o.lfd = tcp_listen_on(o.bind, o.port, &e);
	if (o.lfd == LISTEN_BAD_BIND) /* bad input: a usage error, like any other option's */
		die_usage("%s", e.msg);
	if (o.lfd < 0) {
		fprintf(stderr, "copybench: sink: %s\n", e.msg);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("{\"event\":\"ready\",\"port\":%d}\n", sock_port(o.lfd));
	fflush(stdout);
	why_exit = sink_loop(&o);
	while (o.npend)
		pending_remove(&o, 0);
	close(o.lfd);
	if (o.token[0]) {
		printf("{\"event\":\"exit\",\"reason\":\"%s\",\"sessions\":%lu,\"refused\":%lu}\n",
		       why_exit, o.sessions, o.refused);
		fflush(stdout);
	}
	return 0;
}

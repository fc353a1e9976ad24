/* `copybench sink`: the receiving side. Serves sessions one after another on a control port;
 * per session one receiver thread per connection, each pinned, each verifying what arrives
 * and measuring itself. A client that speaks garbage or vanishes is dropped; the sink keeps
 * serving. */
#include "args.h"
#include "control.h"
#include "counters.h"
#include "pattern.h"
#include "socket.h"

#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define RECV_BUFFER (256u << 10)

struct sink_opts {
	const char *bind;
	int port;
	bool once;
	struct cpulist cpus;
};

struct receiver {
	int index, fd;
	const struct session *ss;
	const struct pattern *pat;
	const struct cpulist *cpus;
	_Atomic int *phase;
	struct meter meter;
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

static void sink_usage(FILE *f)
{
	fputs("usage: copybench sink [--port 5201] [--bind ADDR] [--cpus LIST] [--once]\n"
	      "  Receives for `copybench send`. Prints {\"event\":\"ready\",\"port\":P} on stdout when\n"
	      "  listening, then serves sessions until SIGINT/SIGTERM.\n"
	      "  --port N     control port (default 5201; 0: any free port, printed when ready)\n"
	      "  --bind ADDR  address to listen on (default ::, which also serves IPv4)\n"
	      "  --cpus LIST  pin receiver thread i to the (i mod n)-th CPU of LIST\n"
	      "  --once       exit after one session\n", f);
}

static void *receiver_main(void *arg)
{
	struct receiver *r = arg;
	const struct session *ss = r->ss;
	size_t cap = ss->mode == MODE_PINGPONG || ss->proto == PROTO_UDP ? (size_t)ss->size + 1 : RECV_BUFFER;
	uint8_t *buf = malloc(cap);

	if (!buf) {
		err_set(&r->err, "out of memory");
		return NULL;
	}
	name_thread("cb-sink", ss->seed); /* the receiving side, in CPU profiles */
	pin_to_cpu(r->cpus, r->index, &r->err);
	meter_open(&r->meter, (enum counter_set)ss->counters);
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
		r->meter.bytes += (uint64_t)n;
		if (ss->proto == PROTO_TCP && ss->mode == MODE_STREAM)
			r->meter.messages = r->meter.bytes / ss->record; /* whole records delivered */
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

/* Accept `n` data connections within a deadline. */
static int accept_data(int lfd, int *fds, int n, struct err *e)
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
	}
	return 0;
}

static void serve(int cfd, const struct sink_opts *o)
{
	struct ctl *ctl = malloc(sizeof(*ctl));
	struct session ss;
	struct pattern *pat = malloc(sizeof(*pat));
	struct receiver *rcv = NULL;
	struct err e = { "" };
	char line[1024], why[160], ports[MAX_THREADS * 7 + 16];
	int lfd = -1, started = 0, rc;
	_Atomic int phase = PHASE_WARMUP;
	bool stopped = false;

	if (!ctl || !pat)
		goto out;
	ctl_init(ctl, cfd);
	rc = ctl_recv(ctl, line, sizeof(line), 5000, &e);
	if (rc <= 0) {
		fprintf(stderr, "copybench sink: dropped a client: %s\n", rc ? e.msg : "closed before greeting");
		goto out;
	}
	if (session_parse(line, &ss, why, sizeof(why))) {
		fprintf(stderr, "copybench sink: dropped a client: %s\n", why);
		ctl_send(ctl, &e, "ERR %s", why);
		goto out;
	}
	pattern_init(pat, ss.seed, ss.record, ss.stamped);
	rcv = calloc((size_t)ss.threads, sizeof(*rcv));
	if (!rcv)
		goto out;
	for (int i = 0; i < ss.threads; i++)
		rcv[i].fd = -1;
	if (ss.proto == PROTO_TCP) {
		int port;
		lfd = listen_like(cfd, SOCK_STREAM, &port, &e);
		if (lfd < 0 || ctl_send(ctl, &e, "OK port=%d", port))
			goto fail;
		int fds[MAX_THREADS];
		if (accept_data(lfd, fds, ss.threads, &e))
			goto fail;
		for (int i = 0; i < ss.threads; i++) {
			int one = 1;
			rcv[i].fd = fds[i];
			if (ss.mode == MODE_PINGPONG) /* echo at once: no Nagle wait behind the last reply */
				setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		}
	} else {
		size_t len = 0;
		for (int i = 0; i < ss.threads; i++) {
			int port;
			rcv[i].fd = listen_like(cfd, SOCK_DGRAM, &port, &e);
			if (rcv[i].fd < 0)
				goto fail;
			len += (size_t)snprintf(ports + len, sizeof(ports) - len, "%s%d", i ? "," : "", port);
		}
		if (ctl_send(ctl, &e, "OK ports=%s", ports))
			goto fail;
	}
	for (int i = 0; i < ss.threads; i++) {
		struct receiver *r = &rcv[i];
		r->index = i;
		r->ss = &ss;
		r->pat = pat;
		r->cpus = &o->cpus;
		r->phase = &phase;
		if (pthread_create(&r->tid, NULL, receiver_main, r)) {
			err_sys(&e, "pthread_create");
			goto fail;
		}
		started++;
	}
	while (!stopped) {
		rc = ctl_recv(ctl, line, sizeof(line), 1000, &e);
		if (rc == CTL_TIMEOUT && !quit) { /* windows last as long as the sender says */
			e.msg[0] = 0;
			continue;
		}
		if (rc <= 0) {
			err_set(&e, "the client went away mid-session");
			goto fail;
		}
		if (!strcmp(line, "MEASURE"))
			atomic_store(&phase, PHASE_MEASURE);
		else if (!strcmp(line, "STOP"))
			stopped = true;
		else {
			err_set(&e, "unexpected control line '%.40s'", line);
			ctl_send(ctl, &e, "ERR unexpected control line");
			goto fail;
		}
	}
	atomic_store(&phase, PHASE_STOP);
	{
		struct meter *ms[MAX_THREADS];
		struct side_totals t;
		struct json j;
		char *json = NULL, first[400] = "", cpus[MAX_CPUS * 5 + 4];
		size_t jlen = 0;
		uint64_t checked = 0, mism = 0, bytes = 0, dgrams = 0;
		FILE *f;

		for (int i = 0; i < started; i++) {
			pthread_join(rcv[i].tid, NULL);
			ms[i] = &rcv[i].meter;
			checked += rcv[i].v.bytes_checked;
			mism += rcv[i].v.mismatches;
			bytes += rcv[i].meter.bytes;
			if (ss.proto == PROTO_UDP)
				dgrams += rcv[i].meter.messages;
			if (!first[0] && rcv[i].v.first[0])
				snprintf(first, sizeof(first), "connection %d: %s", i, rcv[i].v.first);
			if (rcv[i].err.msg[0] && !mism)
				snprintf(first, sizeof(first), "connection %d: %s", i, rcv[i].err.msg), mism++;
		}
		started = 0;
		side_totals(&t, ms, ss.threads);
		f = open_memstream(&json, &jlen);
		if (!f)
			goto fail;
		json_init(&j, f);
		side_totals_json(&j, NULL, &t);
		fclose(f);
		/* add the receiver's CPUs inside the object: replace the final '}' */
		if (jlen && json[jlen - 1] == '}') {
			json[jlen - 1] = 0;
			ctl_send(ctl, &e, "RESULT checked=%llu mismatches=%llu bytes=%llu datagrams=%llu first=%s",
				 (unsigned long long)checked, (unsigned long long)mism, (unsigned long long)bytes,
				 (unsigned long long)dgrams, first);
			ctl_send(ctl, &e, "RECEIVER %s,\"cpus\":[%s]}", json, cpus_json(&o->cpus, cpus, sizeof(cpus)));
			ctl_send(ctl, &e, "END");
		}
		free(json);
		fprintf(stderr, "copybench sink: session %s %s threads=%d size=%llu: %llu bytes, %s\n",
			proto_names[ss.proto], mode_names[ss.mode], ss.threads, (unsigned long long)ss.size,
			(unsigned long long)bytes, mism ? "MISMATCH" : "verified");
		goto out;
	}
fail:
	fprintf(stderr, "copybench sink: session aborted: %s\n", e.msg);
	atomic_store(&phase, PHASE_STOP);
	for (int i = 0; rcv && i < ss.threads; i++)
		if (rcv[i].fd >= 0)
			shutdown(rcv[i].fd, SHUT_RDWR); /* unblock receivers */
	for (int i = 0; i < started; i++)
		pthread_join(rcv[i].tid, NULL);
out:
	for (int i = 0; rcv && i < ss.threads; i++)
		if (rcv[i].fd >= 0)
			close(rcv[i].fd);
	if (lfd >= 0)
		close(lfd);
	free(rcv);
	free(pat);
	free(ctl);
}

int cmd_sink(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", 1, 0, 'p' }, { "bind", 1, 0, 'b' }, { "cpus", 1, 0, 'c' },
		{ "once", 0, 0, 'o' }, { "help", 0, 0, 'h' }, { 0 },
	};
	struct sink_opts o = { .bind = "::", .port = 5201 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct err e = { "" };
	int c, lfd;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': o.port = (int)parse_long("--port", optarg, 0, 65535); break; /* 0: any free port */
		case 'b': o.bind = optarg; break;
		case 'c': parse_cpulist("--cpus", optarg, &o.cpus); break;
		case 'o': o.once = true; break;
		case 'h': sink_usage(stdout); exit(0);
		default:
			die_usage("sink: unknown or incomplete option '%s' (see copybench sink --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("sink: unexpected argument '%s' (see copybench sink --help)", argv[optind]);
	lfd = tcp_listen_on(o.bind, o.port, &e);
	if (lfd < 0) {
		fprintf(stderr, "copybench: sink: %s\n", e.msg);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("{\"event\":\"ready\",\"port\":%d}\n", sock_port(lfd));
	fflush(stdout);
	while (!quit) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		int cfd;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		serve(cfd, &o);
		close(cfd);
		if (o.once)
			break;
	}
	close(lfd);
	return 0;
}

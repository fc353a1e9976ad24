/* The control connection between `send` and `sink`: text lines, one request each.
 *   send -> sink  HELLO copybench/1 proto=tcp mode=stream threads=1 size=N record=N stamped=1 verify=full seed=S counters=full
 *   sink -> send  OK port=P            (udp: OK ports=P1,P2,...)   or  ERR <reason>
 *   send -> sink  MEASURE slice_ns=N [turn_ns=P first=C] | STOP   (window boundaries, after
 *                 warm-up and at the end; N: the window / 10, the slices both sides record; a
 *                 plain MEASURE: none; send --share-time: its turns' period and first connection)
 *   sink -> send  RESULT checked=N mismatches=N lost=N first=<text>
 *   sink -> send  RECEIVER <json>       then  END
 *                 (send --share-time: before END, SHARE received=A,B gbit=X,Y <json> and
 *                 SHARERX <connection> <json> for each of the two connections)
 * Anything else is garbage: the sink answers ERR and drops that client.
 * Runner-token mode (`sink --token-stdin`, the runner's `remote` transport; the sender takes the
 * token from $COPYBENCH_TOKEN): the greeting carries `token=HEX`, which must be the sink's;
 * each data connection opens with `CBDATA HEX\n` and must come from the control connection's
 * address; the sender sends `PING` on the control connection every CTL_HEARTBEAT_MS during
 * its windows and the sink aborts a session silent for CTL_HEARTBEAT_LIMIT_MS. */
#ifndef COPYBENCH_CONTROL_H
#define COPYBENCH_CONTROL_H
#include "common.h"
#include "socket.h"

#define CTL_MAGIC "HELLO copybench/1"
#define CTL_DATA_MAGIC "CBDATA "
#define TOKEN_MIN 16
#define TOKEN_MAX 128
#define CTL_HEARTBEAT_MS 2000
#define CTL_HEARTBEAT_LIMIT_MS 8000
/* A TCP stream receiver's bytes per recv(): the default, and the range of --recv-size (send
 * and sink) and of the greeting's recv=N */
#define RECV_SIZE_DEFAULT (64u << 10)
#define RECV_SIZE_MIN 4096
#define RECV_SIZE_MAX (64u << 20)

struct ctl {
	int fd;
	size_t have;
	char buf[16384];
};

enum mode { MODE_STREAM, MODE_PINGPONG };
extern const char *const mode_names[];   /* "stream", "pingpong" */
extern const char *const proto_names[];  /* "tcp", "udp" */

/* What both sides agree on for one session. */
struct session {
	enum proto proto;
	enum mode mode;
	int threads;
	uint64_t size;    /* message size (pingpong echo unit) */
	uint64_t record;  /* pattern record: message or file size */
	bool stamped;
	int verify;       /* enum verify_mode */
	uint64_t seed;
	int counters;     /* enum counter_set */
	uint64_t sockbuf; /* the sink's fixed SO_RCVBUF (greeting's optional sockbuf=N); 0: autotuned */
	uint64_t recv_size; /* a TCP stream receiver's bytes per recv() (greeting's optional
			     * recv=N, send --recv-size); 0: the sink's --recv-size */
	char token[TOKEN_MAX + 1]; /* "" unless the greeting carried token= (runner-token mode) */
};

/* A runner token: TOKEN_MIN..TOKEN_MAX lowercase hex digits. */
bool token_valid(const char *t);

void ctl_init(struct ctl *c, int fd);
int ctl_send(struct ctl *c, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 1 = a line in `line` (without newline), 0 = peer closed, -1 = error (e set),
 * CTL_TIMEOUT = no whole line within timeout_ms (e set; timeout_ms 0: reads only what has
 * arrived, never waits) */
#define CTL_TIMEOUT (-2)
int ctl_recv(struct ctl *c, char *line, size_t len, int timeout_ms, struct err *e);

int session_format(const struct session *s, char *buf, size_t len);
/* 0 ok; -1 with a reason naming the bad field */
int session_parse(const char *line, struct session *s, char *why, size_t len);
#endif

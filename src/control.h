/* The control connection between `send` and `sink`: text lines, one request each.
 *   send -> sink  HELLO copybench/1 proto=tcp mode=stream threads=1 size=N record=N stamped=1 verify=full seed=S counters=full
 *   sink -> send  OK port=P            (udp: OK ports=P1,P2,...)   or  ERR <reason>
 *   send -> sink  MEASURE | STOP        (window boundaries, after warm-up and at the end)
 *   sink -> send  RESULT checked=N mismatches=N lost=N first=<text>
 *   sink -> send  RECEIVER <json>       then  END
 * Anything else is garbage: the sink answers ERR and drops that client. */
#ifndef COPYBENCH_CONTROL_H
#define COPYBENCH_CONTROL_H
#include "common.h"
#include "socket.h"

#define CTL_MAGIC "HELLO copybench/1"

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
};

void ctl_init(struct ctl *c, int fd);
int ctl_send(struct ctl *c, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 1 = a line in `line` (without newline), 0 = peer closed, -1 = error (e set),
 * CTL_TIMEOUT = nothing within timeout_ms (e set) */
#define CTL_TIMEOUT (-2)
int ctl_recv(struct ctl *c, char *line, size_t len, int timeout_ms, struct err *e);

int session_format(const struct session *s, char *buf, size_t len);
/* 0 ok; -1 with a reason naming the bad field */
int session_parse(const char *line, struct session *s, char *why, size_t len);
#endif

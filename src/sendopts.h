/* `copybench send`'s command line: one table of the shared trial options (trialopts.h) and its
 * own. */
#ifndef COPYBENCH_SENDOPTS_H
#define COPYBENCH_SENDOPTS_H
#include "common.h"
#include "control.h"
#include "method.h"
#include "trialopts.h"

struct send_opts {
	struct trial_opts t;       /* shared with copy; t.cache stays CACHE_UNSET for message methods */
	const struct method *m;
	const char *host, *file;
	int port, fields, threads;
	enum proto proto;
	enum mode mode;
	bool no_sink;
	double grace;              /* --grace: how long after the window the sender waits (s) */
	uint64_t sockbuf;          /* --sockbuf: fixed SO_SNDBUF/SO_RCVBUF (bytes); 0: the kernel autotunes */
	uint64_t recv_size;        /* --recv-size: the sink's bytes per recv() (greeting recv=N); 0: the sink's own */
	const char *alternate;     /* --alternate: the second method, sent in the odd slices; NULL: none */
	const struct method *alt;  /* its method (send_parse) */
	const char *share_time;    /* --share-time: the second connection's method; NULL: none */
	const struct method *share;/* its method (send_parse) */
	int share_order;           /* --share-order: enum share_order (AB: --method's turn first) */
	bool share_order_set;
	int conns;                 /* data connections: --threads, or 2 with --share-time */
};

/* Parses and checks send's arguments; every bad one is a usage error (exit 2). */
void send_parse(int argc, char **argv, struct send_opts *o);
#endif

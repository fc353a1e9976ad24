/* The one JSON record a trial prints (schema in src/README.md), shared by send and copy. */
#ifndef COPYBENCH_RECORD_H
#define COPYBENCH_RECORD_H
#include "common.h"
#include "counters.h"
#include "histo.h"
#include "method.h"
#include "procstat.h"
#include "share.h"

/* The measured window must be the one asked for (src/README.md, "The measured window").
 * Each thread takes its start and end snapshots at its first operation boundary after the
 * start and stop signals, and the stop signal comes from a timed wait, which never returns
 * early. So the measured window (earliest start to latest end) is the asked one, minus how
 * long the thread was stuck in one operation when the window opened, plus the timer's wake-up
 * lateness and the one operation in flight at the stop (a message or a 1 MiB file chunk: well
 * under a millisecond to a few ms, plus a scheduling round of the runnable threads, a few ms
 * each under EEVDF). Outside [0.9, 1.5] x asked, or with nothing moved, the process was
 * stalled, stopped or starved for more than a tenth of the window at its start or half of it
 * at its end: the figures describe another interval, and the trial is failed, not ok. */
#define WINDOW_MIN_RATIO 0.9
#define WINDOW_MAX_RATIO 1.5
#define EXIT_WINDOW_MISSED 3      /* the only failure was a missed window (machine too busy) */

struct window_check {
	bool judged, missed;
	bool is_error;                /* the record's error is this (no other failure) */
	double asked_s, measured_s;
	char why[256];                /* when missed */
};
/* send --share-time: both methods' figures, each from its own connection (src/README.md,
 * "Shared time"). */
struct share_record {
	const char *methods[SHARE_CONNS];     /* connection 0: --method, 1: --share-time */
	const char *order;                    /* "AB" | "BA" */
	int first;                            /* the connection of the window's first turn */
	const struct share_conn *conn[SHARE_CONNS];
	const uint64_t *edge_ns;              /* when the sender began each window turn */
	struct side_totals side[SHARE_CONNS]; /* each connection's sender thread, over the window */
	uint64_t sent[SHARE_CONNS];           /* each connection's bytes, warm-up included */
	bool zc_used[SHARE_CONNS];
	struct zc_counts zc[SHARE_CONNS];
	int slow_start_after_idle;            /* the sender's net.ipv4.tcp_slow_start_after_idle; -1 */
	char congestion[32];                  /* TCP_CONGESTION of its sockets; "" unknown */
	bool sink_known;                      /* the sink's figures below came */
	uint64_t received[SHARE_CONNS];       /* each connection's bytes at the sink, warm-up included */
	double gbit[SHARE_CONNS];             /* each method's rate at the sink (NaN: none) */
	const char *sink_json;                /* the sink's turns and guard (JSON object) */
	const char *rx_json[SHARE_CONNS];     /* each connection's receiving thread (JSON object) */
	const char *sink_unavailable;         /* !sink_known: why */
};

struct record {
	/* config */
	const char *command, *method, *mode, *protocol, *host, *family, *verify, *cache, *file, *counters;
	int port;
	uint64_t size, file_size;
	uint64_t sockbuf; /* send --sockbuf; 0: autotuned (printed as null) */
	const char *alternate; /* send --alternate: the odd slices' method; NULL: none */
	const char *share_time; /* send --share-time: the second connection's method; NULL: none */
	const char *share_order; /* ... and which connection's turn comes first ("AB" | "BA") */
	int fields, threads;
	const struct cpulist *cpus_sender;
	double duration_s, warmup_s;
	uint64_t seed;
	bool no_sink;
	/* outcome */
	const char *error;            /* NULL: ok */
	bool have_result;
	struct side_totals sender;
	const char *receiver_json;    /* the sink's block, already JSON; NULL -> null */
	const char *receiver_unavailable;
	bool zc_used;
	struct zc_counts zc;
	bool ring_used;               /* vmsplice: its rings (largest bound, smallest ring, all memory) */
	struct ring_bound ring;
	bool verify_known;
	uint64_t verify_checked, verify_mismatches;
	const char *first_mismatch;
	const struct histo *rtt;      /* pingpong */
	bool udp;
	uint64_t datagrams_sent, datagrams_received, reply_timeouts;
	const struct interference *interference; /* NULL: not measured */
	const struct share_record *share; /* send --share-time; NULL: none */
	struct window_check window;   /* set by record_judge_window */
};

/* Judge r's window (needs have_result). A missed window becomes the error only when there is
 * no other (a wrong result outranks a busy machine); r->window records it either way. */
void record_judge_window(struct record *r, struct err *e);
/* 0 ok, EXIT_WINDOW_MISSED when the missed window is the only failure, 1 otherwise. */
int record_exit_code(const struct record *r);
void record_print(FILE *f, const struct record *r);
void record_summary(FILE *f, const struct record *r);
#endif

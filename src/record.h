/* The one JSON record a trial prints (schema in src/README.md), shared by send and copy. */
#ifndef COPYBENCH_RECORD_H
#define COPYBENCH_RECORD_H
#include "common.h"
#include "counters.h"
#include "histo.h"
#include "method.h"

struct record {
	/* config */
	const char *command, *method, *mode, *protocol, *host, *family, *verify, *cache, *file, *counters;
	int port;
	uint64_t size, file_size;
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
	bool verify_known;
	uint64_t verify_checked, verify_mismatches;
	const char *first_mismatch;
	const struct histo *rtt;      /* pingpong */
	bool udp;
	uint64_t datagrams_sent, datagrams_received, reply_timeouts;
};
void record_print(FILE *f, const struct record *r);
void record_summary(FILE *f, const struct record *r);
#endif

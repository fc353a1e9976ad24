/* One interface for every data-movement primitive. Each method fills a `struct method` in
 * its own file (m_*.c); the send/copy loops drive it and do all timing and counting. */
#ifndef COPYBENCH_METHOD_H
#define COPYBENCH_METHOD_H
#include "common.h"
#include "counters.h"
#include "pattern.h"

#include <sys/socket.h>
#include <sys/uio.h>

enum method_kind {
	M_MSG = 1,        /* message -> socket */
	M_FILE_SOCK = 2,  /* file -> socket */
	M_FILE_FILE = 4,  /* file -> file */
	M_UDP = 8,        /* message method that also works on UDP sockets */
};

struct mctx;

/* A message: `fields` separately allocated buffers whose lengths sum to the size. */
struct msg {
	int nfields;
	struct iovec iov[MAX_FIELDS];
};

/* A ring of messages: a slot may only be rewritten once the kernel is done with it. */
struct msg_ring {
	int nslots;
	struct msg *slot;
	uint8_t *flat;     /* `send`'s serialisation buffer (one per ring) */
};
/* page_aligned: each field starts on a page and owns its pages (vmsplice, see there) */
int msg_ring_alloc(struct msg_ring *r, int nslots, int fields, uint64_t size,
		   const struct pattern *p, bool page_aligned, struct err *e);
void msg_ring_free(struct msg_ring *r);
/* open/close for methods whose private state is just a ring of `nslots` messages */
int msg_ring_open(struct mctx *c, int nslots);
void msg_ring_close(struct mctx *c);

struct zc_counts {
	uint64_t sends;        /* calls that asked for zero copy */
	uint64_t completions;  /* of those, completed (notified) */
	uint64_t copied;       /* notified as copied by the kernel (SO_EE_CODE_ZEROCOPY_COPIED) */
	uint64_t enobufs;      /* ENOBUFS: optmem exhausted, drained and retried */
};

/* A ring sized by the bytes that can be in flight on its connection (vmsplice). */
struct ring_bound {
	uint64_t sndbuf, rcvbuf; /* the send buffer and the receiver's, at most */
	uint64_t in_flight;      /* the bytes that can be in flight at once, at most */
	uint64_t ring_bytes;     /* the bytes sent between two writes of one page of the ring */
	uint64_t memory;         /* the ring's memory */
};

/* Per-thread state a method works on. */
struct mctx {
	int fd;                   /* destination: connected socket, or file for copy */
	bool udp;
	uint64_t size;            /* message size */
	int fields;
	const struct pattern *pat;
	struct zc_counts zc;
	bool zc_used;
	struct ring_bound ring;   /* vmsplice's ring (ring_used) */
	bool ring_used;
	void *priv;               /* method-private */
	struct err *err;
	/* file methods */
	int src_fd;
	bool dst_file;            /* copy: fd is a file, written from offset 0 each pass */
	uint64_t file_size;
	const char *src_path;
	struct meter *helper_meter; /* a method's second thread (splice2) measures itself here */
	enum counter_set counters;
	const _Atomic int *phase;
};

/* A file pass reports progress per chunk; a non-zero return stops the pass early. */
struct pass {
	int (*progress)(struct pass *p, struct meter *m, uint64_t bytes);
	void *arg;
	struct meter *meter;      /* the calling (main) thread's meter */
};

struct method {
	const char *name;
	unsigned kinds;
	const char *summary;
	/* NULL when usable here, else why not (written into why) */
	const char *(*probe)(char *why, size_t len);
	int (*open)(struct mctx *c);                  /* allocate before timing; 0 or -1 */
	int (*send_msg)(struct mctx *c, uint64_t index); /* one whole message */
	int (*pass)(struct mctx *c, struct pass *p);     /* the whole file once; -1 on error */
	int (*drain)(struct mctx *c, int timeout_ms);    /* wait for outstanding completions */
	int (*reap)(struct mctx *c);                     /* read completions queued now, never wait */
	void (*close)(struct mctx *c);
};

/* vmsplice's ring memory for messages of `size` bytes in `fields` fields on a connection that
 * can hold `in_flight` bytes (m_vmsplice.c): at most 2 x in_flight plus two units of pages */
uint64_t vmsplice_ring_memory(uint64_t size, int fields, uint64_t in_flight);
/* The most bytes vmsplice's ring is sized for; a connection that can hold more is refused. */
#define VMSPLICE_INFLIGHT_MAX (1ull << 30)
/* The bytes that can be in flight on a connection whose send buffer is `sndbuf` (0: autotuned)
 * through a pipe of `pipe_cap` bytes (m_vmsplice.c, its top); 0 when net.ipv4.tcp_wmem/tcp_rmem
 * cannot be read. `snd` and `rcv` (may be NULL) get the send and receive buffers' bounds. */
uint64_t vmsplice_in_flight(uint64_t sndbuf, uint64_t pipe_cap, uint64_t *snd, uint64_t *rcv);

extern const struct method m_send, m_sendmsg, m_zerocopy, m_uring_zc, m_vmsplice,
	m_read_write, m_mmap_write, m_sendfile, m_splice, m_splice2, m_copy_file_range;
extern const struct method *const all_methods[];
const struct method *method_find(const char *name);

/* helpers shared by methods */
#define FILE_CHUNK (1u << 20)    /* bytes per call for file methods (1 MiB: the max pipe) */
#define RW_BUFFER (128u << 10)   /* read-write's user buffer, as cp(1) and iperf3 -F use */
static inline size_t chunk_at(uint64_t off, uint64_t end, size_t chunk)
{
	return end - off < chunk ? (size_t)(end - off) : chunk;
}

/* drop the first n bytes from an iovec array in place */
void iov_advance(struct msghdr *mh, size_t n);
int sendmsg_full(int fd, struct msghdr *mh, size_t total, int flags, struct err *e);
#endif

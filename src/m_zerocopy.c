/* `zerocopy`: sendmsg(MSG_ZEROCOPY) over the fields after SO_ZEROCOPY.
 * Kernel facts (Documentation/networking/msg_zerocopy.rst):
 *  - every successful MSG_ZEROCOPY sendmsg gets the next 32-bit id of the socket (from 0);
 *  - completions arrive on the error queue as ranges [ee_info, ee_data] of ids;
 *  - until its completion the kernel may still read the pages, so a buffer is rewritten only
 *    after every call that used it has completed (a ring of messages);
 *  - SO_EE_CODE_ZEROCOPY_COPIED marks a range the kernel copied after all (e.g. delivery to
 *    a local socket on loopback or veth);
 *  - ENOBUFS means the completion state exceeded optmem: read completions and retry. */
#include "method.h"

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>

#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

#define ID_CAP 4096u  /* ids in flight at most; a power of two */
#define WAIT_LIMIT_MS 10000

struct zc_state {
	struct msg_ring ring;
	uint32_t next_id;          /* the id the kernel gives our next successful call */
	uint32_t outstanding;      /* calls not yet completed */
	int *pending;              /* per slot: calls not yet completed */
	uint16_t id_slot[ID_CAP];  /* id % ID_CAP -> slot */
	int cur;
};

static int zc_ring_slots(uint64_t size)
{
	/* enough messages in flight to keep the pipe full without holding too much memory */
	uint64_t n = (16ull << 20) / size;
	return n < 8 ? 8 : n > 1024 ? 1024 : (int)n;
}

/* Read every completion queued now; 0 or -1 on a real error. */
static int zc_reap(struct mctx *c, struct zc_state *z)
{
	for (;;) {
		char control[128];
		struct msghdr mh = { .msg_control = control, .msg_controllen = sizeof(control) };
		struct cmsghdr *cm;

		if (recvmsg(c->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			err_sys(c->err, "recvmsg(MSG_ERRQUEUE)");
			return -1;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			struct sock_extended_err *ee;
			uint32_t lo, hi, n;

			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
				continue;
			ee = (struct sock_extended_err *)CMSG_DATA(cm);
			if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee->ee_errno != 0) {
				err_set(c->err, "error queue: unexpected origin %u errno %u", ee->ee_origin,
					ee->ee_errno);
				return -1;
			}
			lo = ee->ee_info;
			hi = ee->ee_data;
			n = hi - lo + 1; /* ids wrap at 2^32; unsigned arithmetic follows */
			for (uint32_t k = 0; k < n; k++)
				z->pending[z->id_slot[(lo + k) % ID_CAP]]--;
			z->outstanding -= n;
			c->zc.completions += n;
			if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				c->zc.copied += n;
		}
	}
}

/* Block until slot's calls (slot < 0: all calls) completed; the error queue raises POLLERR. */
static int zc_wait(struct mctx *c, struct zc_state *z, int slot, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = 0 };

		if (zc_reap(c, z))
			return -1;
		if (slot >= 0 ? z->pending[slot] == 0 : z->outstanding == 0)
			return 0;
		if (now_ns() > deadline) {
			err_set(c->err, "zerocopy: %u completions still missing after %d ms",
				z->outstanding, timeout_ms);
			return -1;
		}
		poll(&pfd, 1, 100);
	}
}

static int zc_open(struct mctx *c)
{
	struct zc_state *z = calloc(1, sizeof(*z));
	int one = 1;

	if (!z) {
		err_set(c->err, "out of memory");
		return -1;
	}
	if (setsockopt(c->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		err_sys(c->err, "setsockopt(SO_ZEROCOPY)");
		free(z);
		return -1;
	}
	if (msg_ring_alloc(&z->ring, zc_ring_slots(c->size), c->fields, c->size, c->pat, false, c->err)) {
		free(z);
		return -1;
	}
	z->pending = calloc((size_t)z->ring.nslots, sizeof(int));
	if (!z->pending) {
		msg_ring_free(&z->ring);
		free(z);
		err_set(c->err, "out of memory");
		return -1;
	}
	c->priv = z;
	c->zc_used = true;
	return 0;
}

static int zc_send_msg(struct mctx *c, uint64_t index)
{
	struct zc_state *z = c->priv;
	int s = z->cur;
	struct msg *m = &z->ring.slot[s];
	struct iovec iov[MAX_FIELDS];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)m->nfields };
	size_t left = c->size;

	/* reap without blocking, then wait only if this slot is still owned by the kernel */
	if (zc_reap(c, z) || (z->pending[s] && zc_wait(c, z, s, WAIT_LIMIT_MS)))
		return -1;
	pattern_stamp(c->pat, index, m->iov, m->nfields);
	memcpy(iov, m->iov, sizeof(struct iovec) * (size_t)m->nfields);
	while (left) {
		ssize_t n;

		if (z->outstanding >= ID_CAP - 1 && zc_wait(c, z, -1, WAIT_LIMIT_MS))
			return -1;
		n = sendmsg(c->fd, &mh, MSG_ZEROCOPY | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || (c->udp && errno == ECONNREFUSED))
				continue;
			if (errno == ENOBUFS) { /* optmem full of completion state: reap, retry */
				c->zc.enobufs++;
				if (z->outstanding ? zc_wait(c, z, -1, WAIT_LIMIT_MS) : poll(NULL, 0, 1))
					return -1;
				continue;
			}
			if (errno == EMSGSIZE && c->udp) { /* kernel: one datagram <= MAX_SKB_FRAGS pages */
				err_set(c->err, "sendmsg(MSG_ZEROCOPY): %s (a zero-copy datagram may span at most "
					"MAX_SKB_FRAGS (17) pages; this %llu-byte message in %d fields spans more)", strerror(errno),
					(unsigned long long)c->size, c->fields);
				return -1;
			}
			err_sys(c->err, "sendmsg(MSG_ZEROCOPY)");
			return -1;
		}
		z->id_slot[z->next_id % ID_CAP] = (uint16_t)s;
		z->next_id++;
		z->outstanding++;
		z->pending[s]++;
		c->zc.sends++;
		left -= (size_t)n;
		iov_advance(&mh, (size_t)n); /* a partial TCP send */
	}
	z->cur = (s + 1) % z->ring.nslots;
	return 0;
}

static int zc_drain(struct mctx *c, int timeout_ms)
{
	return zc_wait(c, c->priv, -1, timeout_ms);
}

/* send --share-time: at a connection's resume, the completions that arrived while it waited
 * (each socket has its own error queue and ids: the other connection's never mix in) */
static int zc_reap_now(struct mctx *c)
{
	return zc_reap(c, c->priv);
}

static void zc_close(struct mctx *c)
{
	struct zc_state *z = c->priv;

	if (!z)
		return;
	msg_ring_free(&z->ring);
	free(z->pending);
	free(z);
	c->priv = NULL;
}

const struct method m_zerocopy = {
	.name = "zerocopy",
	.kinds = M_MSG | M_UDP,
	.summary = "sendmsg(MSG_ZEROCOPY) over the fields; completions from the error queue",
	.open = zc_open,
	.send_msg = zc_send_msg,
	.drain = zc_drain,
	.reap = zc_reap_now,
	.close = zc_close,
};

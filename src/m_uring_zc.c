/* `uring-zc`: io_uring IORING_OP_SENDMSG_ZC over the fields.
 * Kernel facts (io_uring_enter(2), 6.0+): a zero-copy send posts two CQEs, the result (with
 * IORING_CQE_F_MORE when a notification follows) and later a notification
 * (IORING_CQE_F_NOTIF) once the kernel no longer reads the buffer; with
 * IORING_SEND_ZC_REPORT_USAGE (6.2+) the notification's res has IORING_NOTIF_USAGE_ZC_COPIED
 * set when the data was copied after all. A buffer is rewritten only after its notifications. */
#include "method.h"

#ifdef HAVE_LIBURING
#include <liburing.h>
#include <stdlib.h>

#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

#define WAIT_LIMIT_MS 10000

struct uzc_state {
	struct io_uring ring;
	struct msg_ring msgs;
	int *pending;          /* per slot: notifications not yet seen */
	uint32_t outstanding;
	bool report_usage;     /* the kernel accepted IORING_SEND_ZC_REPORT_USAGE */
	int cur;
};

static const char *uzc_probe(char *why, size_t len)
{
	struct io_uring ring;
	struct io_uring_probe *p;
	int rc = io_uring_queue_init(4, &ring, 0);

	if (rc < 0) {
		snprintf(why, len, "io_uring_queue_init: %s%s", strerror(-rc),
			 rc == -EPERM ? " (kernel.io_uring_disabled?)" : "");
		return why;
	}
	p = io_uring_get_probe_ring(&ring);
	if (!p || !io_uring_opcode_supported(p, IORING_OP_SENDMSG_ZC)) {
		snprintf(why, len, "kernel lacks IORING_OP_SENDMSG_ZC (needs Linux 6.1+)");
		if (p)
			io_uring_free_probe(p);
		io_uring_queue_exit(&ring);
		return why;
	}
	io_uring_free_probe(p);
	io_uring_queue_exit(&ring);
	return NULL;
}

static int uzc_open(struct mctx *c)
{
	struct uzc_state *u = calloc(1, sizeof(*u));
	uint64_t n = (16ull << 20) / c->size;
	int slots = n < 8 ? 8 : n > 1024 ? 1024 : (int)n, rc;

	if (!u) {
		err_set(c->err, "out of memory");
		return -1;
	}
	rc = io_uring_queue_init(64, &u->ring, 0);
	if (rc < 0) {
		err_set(c->err, "io_uring_queue_init: %s", strerror(-rc));
		free(u);
		return -1;
	}
	if (msg_ring_alloc(&u->msgs, slots, c->fields, c->size, c->pat, false, c->err) ||
	    !(u->pending = calloc((size_t)slots, sizeof(int)))) {
		err_set(c->err, "out of memory");
		io_uring_queue_exit(&u->ring);
		msg_ring_free(&u->msgs);
		free(u);
		return -1;
	}
	u->report_usage = true;
	c->priv = u;
	c->zc_used = true;
	return 0;
}

/* Handle one CQE. Returns the send result for result CQEs, or INT32_MIN for a notification. */
static int64_t uzc_cqe(struct mctx *c, struct uzc_state *u, struct io_uring_cqe *cqe)
{
	int slot = (int)cqe->user_data;
	int64_t res = cqe->res;

	if (cqe->flags & IORING_CQE_F_NOTIF) {
		u->pending[slot]--;
		u->outstanding--;
		c->zc.completions++;
		if (u->report_usage && (cqe->res & (int)IORING_NOTIF_USAGE_ZC_COPIED))
			c->zc.copied++;
		res = INT32_MIN;
	} else if (!(cqe->flags & IORING_CQE_F_MORE)) {
		/* no notification will follow this request (it failed before using the buffer) */
		u->pending[slot]--;
		u->outstanding--;
		c->zc.sends--;
	}
	io_uring_cqe_seen(&u->ring, cqe);
	return res;
}

/* Wait for CQEs until `slot` (slot < 0: everything) has no notifications pending. */
static int uzc_wait(struct mctx *c, struct uzc_state *u, int slot, int timeout_ms)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	while (slot >= 0 ? u->pending[slot] != 0 : u->outstanding != 0) {
		struct io_uring_cqe *cqe;
		int rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);

		if (rc == 0)
			uzc_cqe(c, u, cqe);
		else if (rc != -ETIME && rc != -EINTR) {
			err_set(c->err, "io_uring_wait_cqe: %s", strerror(-rc));
			return -1;
		}
		if (now_ns() > deadline) {
			err_set(c->err, "uring-zc: %u notifications still missing after %d ms",
				u->outstanding, timeout_ms);
			return -1;
		}
	}
	return 0;
}

static int uzc_send_msg(struct mctx *c, uint64_t index)
{
	struct uzc_state *u = c->priv;
	int s = u->cur;
	struct msg *m = &u->msgs.slot[s];
	struct iovec iov[MAX_FIELDS];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)m->nfields };
	size_t left = c->size;

	if (u->pending[s] && uzc_wait(c, u, s, WAIT_LIMIT_MS))
		return -1;
	pattern_stamp(c->pat, index, m->iov, m->nfields);
	memcpy(iov, m->iov, sizeof(struct iovec) * (size_t)m->nfields);
	while (left) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
		int64_t res = INT32_MIN;
		int rc;

		if (!sqe) { /* the SQ is full of nothing we own: submit and retry */
			io_uring_submit(&u->ring);
			continue;
		}
		io_uring_prep_sendmsg_zc(sqe, c->fd, &mh, MSG_NOSIGNAL);
		if (u->report_usage)
			sqe->ioprio |= IORING_SEND_ZC_REPORT_USAGE;
		sqe->user_data = (uint64_t)s;
		u->pending[s]++;
		u->outstanding++;
		c->zc.sends++;
		rc = io_uring_submit(&u->ring);
		if (rc < 0) {
			err_set(c->err, "io_uring_submit: %s", strerror(-rc));
			return -1;
		}
		while (res == INT32_MIN) { /* notifications may come first; the result follows */
			struct io_uring_cqe *cqe;
			rc = io_uring_wait_cqe(&u->ring, &cqe);
			if (rc < 0) {
				if (rc == -EINTR)
					continue;
				err_set(c->err, "io_uring_wait_cqe: %s", strerror(-rc));
				return -1;
			}
			res = uzc_cqe(c, u, cqe);
		}
		if (res < 0) {
			if (res == -EINVAL && u->report_usage && c->zc.completions == 0) {
				u->report_usage = false; /* kernel before 6.2: no usage reports */
				continue;
			}
			if (res == -EINTR || (c->udp && res == -ECONNREFUSED))
				continue;
			if (res == -ENOBUFS) {
				c->zc.enobufs++;
				if (uzc_wait(c, u, -1, WAIT_LIMIT_MS))
					return -1;
				continue;
			}
			err_set(c->err, "IORING_OP_SENDMSG_ZC: %s", strerror((int)-res));
			return -1;
		}
		left -= (size_t)res;
		iov_advance(&mh, (size_t)res);
	}
	u->cur = (s + 1) % u->msgs.nslots;
	return 0;
}

static int uzc_drain(struct mctx *c, int timeout_ms)
{
	return uzc_wait(c, c->priv, -1, timeout_ms);
}

static void uzc_close(struct mctx *c)
{
	struct uzc_state *u = c->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	msg_ring_free(&u->msgs);
	free(u->pending);
	free(u);
	c->priv = NULL;
}

const struct method m_uring_zc = {
	.name = "uring-zc",
	.kinds = M_MSG | M_UDP,
	.summary = "io_uring IORING_OP_SENDMSG_ZC over the fields; notification CQEs",
	.probe = uzc_probe,
	.open = uzc_open,
	.send_msg = uzc_send_msg,
	.drain = uzc_drain,
	.close = uzc_close,
};

#else /* !HAVE_LIBURING */

static const char *uzc_unbuilt(char *why, size_t len)
{
	snprintf(why, len, "built without liburing (liburing-dev was not found at build time)");
	return why;
}

const struct method m_uring_zc = {
	.name = "uring-zc",
	.kinds = M_MSG | M_UDP,
	.summary = "io_uring IORING_OP_SENDMSG_ZC over the fields; notification CQEs",
	.probe = uzc_unbuilt,
};
#endif

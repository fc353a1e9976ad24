/* `sendmsg` ("one-copy"): sendmsg() with an iovec over the fields; the kernel gathers them
 * straight into the skb. */
#include "method.h"

#include <sys/socket.h>

static int sendmsg_open(struct mctx *c)
{
	return msg_ring_open(c, 1);
}

static int sendmsg_msg(struct mctx *c, uint64_t index)
{
	struct msg_ring *r = c->priv;
	struct msg *m = &r->slot[0];
	struct msghdr mh = { .msg_iov = m->iov, .msg_iovlen = (size_t)m->nfields };

	pattern_stamp(c->pat, index, m->iov, m->nfields);
	return sendmsg_full(c->fd, &mh, c->size, 0, c->err);
}

const struct method m_sendmsg = {
	.name = "sendmsg",
	.kinds = M_MSG | M_UDP,
	.summary = "sendmsg() with an iovec over the fields (one-copy)",
	.open = sendmsg_open,
	.send_msg = sendmsg_msg,
	.close = msg_ring_close,
};

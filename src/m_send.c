/* `send` ("two-copy"): serialise the fields into one buffer with memcpy, then send() it.
 * Copies: user fields -> user buffer (memcpy), user buffer -> skb (kernel). */
#include "method.h"
#include "socket.h"

#include <sys/socket.h>

static int send_open(struct mctx *c)
{
	return msg_ring_open(c, 1);
}

static int send_msg(struct mctx *c, uint64_t index)
{
	struct msg_ring *r = c->priv;
	struct msg *m = &r->slot[0];
	uint8_t *p = r->flat;

	pattern_stamp(c->pat, index, m->iov, m->nfields);
	for (int k = 0; k < m->nfields; k++) {
		memcpy(p, m->iov[k].iov_base, m->iov[k].iov_len);
		p += m->iov[k].iov_len;
	}
	if (c->udp) {
		for (;;) {
			ssize_t n = send(c->fd, r->flat, c->size, MSG_NOSIGNAL);
			/* a connected UDP socket reports an earlier ICMP unreachable here: not ours */
			if (n >= 0 || (errno != EINTR && errno != ECONNREFUSED))
				return n < 0 ? (err_sys(c->err, "send"), -1) : 0;
		}
	}
	return write_full(c->fd, r->flat, c->size, c->err);
}

const struct method m_send = {
	.name = "send",
	.kinds = M_MSG | M_UDP,
	.summary = "memcpy the fields into one buffer, send() it (two-copy)",
	.open = send_open,
	.send_msg = send_msg,
	.close = msg_ring_close,
};

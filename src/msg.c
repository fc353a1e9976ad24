/* Message buffers and the method table. A message is `fields` separate heap allocations, as
 * in the published designs this study replicates (claims C1-C12). */
#include "method.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

const struct method *const all_methods[] = {
	&m_send, &m_sendmsg, &m_zerocopy, &m_uring_zc, &m_vmsplice,
	&m_read_write, &m_mmap_write, &m_sendfile, &m_splice, &m_splice2, &m_copy_file_range,
	NULL,
};

const struct method *method_find(const char *name)
{
	for (int i = 0; all_methods[i]; i++)
		if (!strcmp(all_methods[i]->name, name))
			return all_methods[i];
	return NULL;
}

int msg_ring_alloc(struct msg_ring *r, int nslots, int fields, uint64_t size,
		   const struct pattern *p, bool page_aligned, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->slot = calloc((size_t)nslots, sizeof(*r->slot));
	r->flat = malloc(size);
	if (!r->slot || !r->flat) {
		err_set(e, "out of memory for %d messages of %llu bytes", nslots, (unsigned long long)size);
		msg_ring_free(r);
		return -1;
	}
	r->nslots = nslots;
	for (int s = 0; s < nslots; s++) {
		struct msg *m = &r->slot[s];
		uint64_t pos = 0;

		m->nfields = fields;
		for (int k = 0; k < fields; k++) {
			/* sizes differ by at most one byte; the first fields take the remainder */
			size_t len = (size_t)(size / (uint64_t)fields + ((uint64_t)k < size % (uint64_t)fields));
			m->iov[k].iov_len = len;
			m->iov[k].iov_base = page_aligned ? aligned_alloc(4096, ((len ? len : 1) + 4095) & ~(size_t)4095)
							  : malloc(len ? len : 1);
			if (!m->iov[k].iov_base) {
				err_set(e, "out of memory for message fields");
				msg_ring_free(r);
				return -1;
			}
			pattern_fill(p, pos, m->iov[k].iov_base, len);
			pos += len;
		}
	}
	return 0;
}

void msg_ring_free(struct msg_ring *r)
{
	for (int s = 0; r->slot && s < r->nslots; s++)
		for (int k = 0; k < r->slot[s].nfields; k++)
			free(r->slot[s].iov[k].iov_base);
	free(r->slot);
	free(r->flat);
	memset(r, 0, sizeof(*r));
}

int msg_ring_open(struct mctx *c, int nslots)
{
	struct msg_ring *r = calloc(1, sizeof(*r));

	if (!r) {
		err_set(c->err, "out of memory");
		return -1;
	}
	if (msg_ring_alloc(r, nslots, c->fields, c->size, c->pat, false, c->err)) {
		free(r);
		return -1;
	}
	c->priv = r;
	return 0;
}

void msg_ring_close(struct mctx *c)
{
	if (c->priv)
		msg_ring_free(c->priv);
	free(c->priv);
	c->priv = NULL;
}

void iov_advance(struct msghdr *mh, size_t n)
{
	while (n > 0 && mh->msg_iovlen) {
		if (n >= mh->msg_iov->iov_len) {
			n -= mh->msg_iov->iov_len;
			mh->msg_iov++;
			mh->msg_iovlen--;
		} else {
			mh->msg_iov->iov_base = (char *)mh->msg_iov->iov_base + n;
			mh->msg_iov->iov_len -= n;
			n = 0;
		}
	}
}

/* sendmsg until all `total` bytes are out (TCP may take a message in several calls). */
int sendmsg_full(int fd, struct msghdr *mh, size_t total, int flags, struct err *e)
{
	struct iovec iov[MAX_FIELDS];
	struct msghdr m = *mh;
	size_t done = 0;

	memcpy(iov, mh->msg_iov, sizeof(struct iovec) * mh->msg_iovlen);
	m.msg_iov = iov;
	while (done < total) {
		ssize_t n = sendmsg(fd, &m, flags | MSG_NOSIGNAL);
		if (n < 0) {
			/* EINTR: retry; ECONNREFUSED: a connected UDP socket reporting an
			 * earlier ICMP port-unreachable, not this datagram's fate */
			if (errno == EINTR || errno == ECONNREFUSED)
				continue;
			err_sys(e, "sendmsg");
			return -1;
		}
		done += (size_t)n;
		iov_advance(&m, (size_t)n);
	}
	return 0;
}

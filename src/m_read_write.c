/* `read-write`: read() the file into a user buffer, write() it to the destination.
 * Copies (C15's table): page cache -> user buffer, user buffer -> socket/page cache. */
#include "method.h"
#include "socket.h"

#include <stdlib.h>
#include <unistd.h>

static int rw_open(struct mctx *c)
{
	c->priv = malloc(RW_BUFFER);
	if (!c->priv) {
		err_set(c->err, "out of memory");
		return -1;
	}
	return 0;
}

static int rw_pass(struct mctx *c, struct pass *p)
{
	for (uint64_t off = 0; off < c->file_size;) {
		ssize_t n = pread(c->src_fd, c->priv, chunk_at(off, c->file_size, RW_BUFFER), (off_t)off);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err_set(c->err, "read %s: %s", c->src_path, n ? strerror(errno) : "unexpected end of file");
			return -1;
		}
		if (write_full(c->fd, c->priv, (size_t)n, c->err))
			return -1;
		off += (uint64_t)n;
		if (p->progress(p, p->meter, (uint64_t)n))
			break;
	}
	return 0;
}

static void rw_close(struct mctx *c)
{
	free(c->priv);
	c->priv = NULL;
}

const struct method m_read_write = {
	.name = "read-write",
	.kinds = M_FILE_SOCK | M_FILE_FILE,
	.summary = "read() into a 128 KiB user buffer, write() to the destination",
	.open = rw_open,
	.pass = rw_pass,
	.close = rw_close,
};

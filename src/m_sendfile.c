/* `sendfile`: sendfile() from the file to a socket or (Linux 2.6.33+) to a file. */
#include "method.h"

#include <sys/sendfile.h>

static int sf_pass(struct mctx *c, struct pass *p)
{
	off_t off = 0;

	while ((uint64_t)off < c->file_size) {
		ssize_t n = sendfile(c->fd, c->src_fd, &off, chunk_at((uint64_t)off, c->file_size, FILE_CHUNK));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err_set(c->err, "sendfile %s: %s", c->src_path, n ? strerror(errno) : "no progress");
			return -1;
		}
		if (p->progress(p, p->meter, (uint64_t)n))
			break;
	}
	return 0;
}

const struct method m_sendfile = {
	.name = "sendfile",
	.kinds = M_FILE_SOCK | M_FILE_FILE,
	.summary = "sendfile() from the file, up to 1 MiB a call",
	.pass = sf_pass,
};

/* `splice`: file -> one pipe -> destination; the pipe holds page references, not copies. */
#include "method.h"
#include "pipe.h"

#include <stdlib.h>

static int sp_open(struct mctx *c)
{
	struct cpipe *pp = malloc(sizeof(*pp));

	if (!pp || cpipe_open(pp, FILE_CHUNK, c->err)) {
		free(pp);
		return -1;
	}
	c->priv = pp;
	return 0;
}

static int sp_pass(struct mctx *c, struct pass *p)
{
	struct cpipe *pp = c->priv;
	loff_t off = 0;

	while ((uint64_t)off < c->file_size) {
		ssize_t n = splice(c->src_fd, &off, pp->w, NULL,
				   chunk_at((uint64_t)off, c->file_size, pp->cap), SPLICE_F_MOVE);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err_set(c->err, "splice(%s -> pipe): %s", c->src_path, n ? strerror(errno) : "no progress");
			return -1;
		}
		if (cpipe_drain(pp, c->fd, NULL, (size_t)n, (uint64_t)off < c->file_size, c->err))
			return -1;
		if (p->progress(p, p->meter, (uint64_t)n))
			break;
	}
	return 0;
}

static void sp_close(struct mctx *c)
{
	if (c->priv)
		cpipe_close(c->priv);
	free(c->priv);
	c->priv = NULL;
}

const struct method m_splice = {
	.name = "splice",
	.kinds = M_FILE_SOCK | M_FILE_FILE,
	.summary = "splice() file -> pipe -> destination through one pipe",
	.open = sp_open,
	.pass = sp_pass,
	.close = sp_close,
};

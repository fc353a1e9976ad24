/* `copy_file_range`: the kernel copies between two files (and may share extents on file
 * systems with reflinks; ext4 copies pages in the page cache). File -> file only. */
#include "method.h"

#include <unistd.h>

static int cfr_pass(struct mctx *c, struct pass *p)
{
	loff_t in = 0, out = 0;

	while ((uint64_t)in < c->file_size) {
		ssize_t n = copy_file_range(c->src_fd, &in, c->fd, &out,
					    chunk_at((uint64_t)in, c->file_size, FILE_CHUNK), 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err_set(c->err, "copy_file_range %s: %s", c->src_path, n ? strerror(errno) : "no progress");
			return -1;
		}
		if (p->progress(p, p->meter, (uint64_t)n))
			break;
	}
	return 0;
}

const struct method m_copy_file_range = {
	.name = "copy_file_range",
	.kinds = M_FILE_FILE,
	.summary = "copy_file_range() between two files, up to 1 MiB a call",
	.pass = cfr_pass,
};

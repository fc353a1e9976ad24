/* `mmap-write`: mmap() the file, write() from the mapping. Saves the copy into a user
 * buffer; write() still copies the mapped page-cache pages into the socket. The file is
 * mapped per pass so a cold-cache pass really faults its pages in. */
#include "method.h"
#include "socket.h"

#include <sys/mman.h>

static int mw_pass(struct mctx *c, struct pass *p)
{
	uint8_t *map = mmap(NULL, c->file_size, PROT_READ, MAP_SHARED, c->src_fd, 0);

	if (map == MAP_FAILED) {
		err_set(c->err, "mmap %s: %s", c->src_path, strerror(errno));
		return -1;
	}
	for (uint64_t off = 0; off < c->file_size;) {
		size_t n = chunk_at(off, c->file_size, FILE_CHUNK);
		if (write_full(c->fd, map + off, n, c->err)) {
			munmap(map, c->file_size);
			return -1;
		}
		off += n;
		if (p->progress(p, p->meter, n))
			break;
	}
	munmap(map, c->file_size);
	return 0;
}

const struct method m_mmap_write = {
	.name = "mmap-write",
	.kinds = M_FILE_SOCK,
	.summary = "mmap() the file, write() 1 MiB at a time from the mapping",
	.pass = mw_pass,
};

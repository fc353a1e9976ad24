/* `mmap-write`: mmap() the file, write() from the mapping. Saves the copy into a user
 * buffer; write() still copies the mapped page-cache pages into the socket. The file is
 * mapped per pass so a cold-cache pass really faults its pages in. */
#include "method.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes n bytes from the mapping at off. A file that shrank since it was mapped has no pages
 * past its new end: the kernel's copy from them faults, and write() fails with EFAULT (the
 * fault is the kernel's, inside the call, so no SIGBUS reaches the process); that is said as
 * what it is, the file changed size, not as "Bad address". */
static int write_mapped(struct mctx *c, const uint8_t *map, uint64_t off, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = write(c->fd, map + off + done, n - done);
		struct stat st;

		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (fstat(c->src_fd, &st) == 0 && (uint64_t)st.st_size != c->file_size)
			err_set(c->err, "mmap-write: '%s' changed size during the send (%llu bytes when mapped, %llu now), "
				"so the write from its mapping at byte %llu failed (%s); send a file that nothing else "
				"writes while copybench runs", c->src_path, (unsigned long long)c->file_size,
				(unsigned long long)st.st_size, (unsigned long long)(off + done),
				w < 0 ? strerror(errno) : "no progress");
		else
			err_set(c->err, "mmap-write: write from the mapping of '%s' at byte %llu to the socket: %s",
				c->src_path, (unsigned long long)(off + done), w < 0 ? strerror(errno) : "no progress");
		return -1;
	}
	return 0;
}

static int mw_pass(struct mctx *c, struct pass *p)
{
	uint8_t *map = mmap(NULL, c->file_size, PROT_READ, MAP_SHARED, c->src_fd, 0);

	if (map == MAP_FAILED) {
		err_set(c->err, "mmap %s: %s", c->src_path, strerror(errno));
		return -1;
	}
	for (uint64_t off = 0; off < c->file_size;) {
		size_t n = chunk_at(off, c->file_size, FILE_CHUNK);
		if (write_mapped(c, map, off, n)) {
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

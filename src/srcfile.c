/* Source files for file methods (see srcfile.h). */
#include "srcfile.h"
#include "args.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

void srcfile_open_user(struct srcfile *s, const char *arg, const char *path)
{
	struct stat st, out;
	int fl;

	memset(s, 0, sizeof(*s));
	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before the
	 * S_ISREG check below could refuse it; O_NOCTTY: a terminal never becomes ours */
	s->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (s->fd < 0)
		die_usage("%s: cannot open '%s': %s (a readable regular file is required)", arg, path,
			  strerror(errno));
	if (fstat(s->fd, &st) || !S_ISREG(st.st_mode))
		die_usage("%s: '%s' is not a regular file", arg, path);
	/* The record goes to standard output. Were that this file (`>> FILE`, or a link to it: an
	 * inode is its (st_dev, st_ino) however it is named), the record would be written into the
	 * source; `> FILE` has emptied it already. Refused before anything is written. */
	if (fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode) && out.st_dev == st.st_dev &&
	    out.st_ino == st.st_ino)
		die_usage("%s: '%s' is the file standard output (the record) goes to; refusing to write the record "
			  "into the source (allowed: standard output to another file or a pipe)", arg, path);
	/* O_NONBLOCK was for the open only: the methods read with the flags they always had */
	fl = fcntl(s->fd, F_GETFL);
	if (fl < 0 || fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK))
		die_usage("%s: cannot open '%s': fcntl: %s", arg, path, strerror(errno));
	if (st.st_size == 0 || (uint64_t)st.st_size > MAX_SIZE)
		die_usage("%s: '%s' has %lld bytes (allowed: 1 byte to 1 GiB)", arg, path, (long long)st.st_size);
	s->size = (uint64_t)st.st_size;
	snprintf(s->path, sizeof(s->path), "%s", path);
}

int tmpfile_in(const char *dir, char *path, size_t len)
{
	int fd;

	/* O_TMPFILE (Linux 3.11; ext2/3/4, xfs, btrfs, tmpfs, ...): a regular file with no name at
	 * all, so there is nothing to unlink and no name by which anything else could be reached. */
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		snprintf(path, len, "%s/(O_TMPFILE, no name)", dir);
		return fd;
	}
	/* EOPNOTSUPP: this file system has no O_TMPFILE; EISDIR: a kernel before 3.11, which
	 * ignores the flag's __O_TMPFILE bit and finds a directory opened for writing */
	if (errno != EOPNOTSUPP && errno != EISDIR)
		return -1;
	/* mkostemp opens with O_CREAT|O_EXCL: it never opens an existing file, nor follows a
	 * symbolic link in the last component, so the new name can only be a new file */
	snprintf(path, len, "%s/copybench-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Unlink the name only while it still names our inode: between mkostemp and unlink another
	 * process allowed to write the directory could have renamed its file onto the name. (A window
	 * remains between this fstatat and the unlink; O_TMPFILE above has none.) */
	{
		struct stat mine, named;
		if (fstat(fd, &mine) == 0 && fstatat(AT_FDCWD, path, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
		    mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
			unlink(path); /* gone when we exit, whatever happens */
	}
	return fd;
}

int scratch_file(const char *dir, char *path, size_t len, struct err *e)
{
	int fd = tmpfile_in(dir, path, len);

	if (fd < 0)
		err_set(e, "--dir: cannot create a file in '%s': %s", dir, strerror(errno));
	return fd;
}

/* Writes all of buf at off. A short count carries no errno (the file system filled up midway,
 * or a signal came): the rest is written again, and a file system that is full then fails that
 * write with the cause (ENOSPC, EDQUOT, EFBIG), which is what the error names. */
static int pwrite_full(int fd, const uint8_t *buf, size_t n, uint64_t off, const char *path, struct err *e)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = pwrite(fd, buf + done, n - done, (off_t)(off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w < 0)
				err_set(e, "write %s at byte %llu: %s", path, (unsigned long long)(off + done),
					strerror(errno));
			else /* write(2) returns 0 only for a count of 0; never seen for a regular file */
				err_set(e, "write %s at byte %llu: no progress (0 of %zu bytes written; no space left "
					"on the device?)", path, (unsigned long long)(off + done), n - done);
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

int srcfile_generate(struct srcfile *s, const char *dir, uint64_t size, const struct pattern *p,
		     struct err *e)
{
	uint8_t *buf;
	const size_t chunk = 1u << 20;

	memset(s, 0, sizeof(*s));
	s->fd = scratch_file(dir, s->path, sizeof(s->path), e);
	if (s->fd < 0)
		return -1;
	buf = malloc(chunk);
	if (!buf) {
		err_set(e, "out of memory");
		return -1;
	}
	for (uint64_t off = 0; off < size;) {
		size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
		pattern_fill(p, off, buf, n);
		if (pwrite_full(s->fd, buf, n, off, s->path, e)) {
			free(buf);
			return -1;
		}
		off += n;
	}
	free(buf);
	/* clean pages can be dropped for cold-cache passes */
	if (fsync(s->fd)) {
		err_set(e, "fsync %s: %s", s->path, strerror(errno));
		return -1;
	}
	s->size = size;
	s->generated = true;
	return 0;
}

int drop_cache(int fd, struct err *e)
{
	int rc;

	if (fdatasync(fd) && errno != EINVAL) {
		err_sys(e, "fdatasync");
		return -1;
	}
	rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (rc) {
		err_set(e, "posix_fadvise(DONTNEED): %s", strerror(rc));
		return -1;
	}
	return 0;
}

int warm_cache(int fd, uint64_t size, struct err *e)
{
	char buf[1 << 16];

	for (uint64_t off = 0; off < size;) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)off);
		if (n <= 0) {
			err_set(e, "read while warming the cache: %s", n ? strerror(errno) : "short file");
			return -1;
		}
		off += (uint64_t)n;
	}
	return 0;
}

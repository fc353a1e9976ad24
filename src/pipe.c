/* Pipes for splice (see pipe.h). */
#include "pipe.h"

#include <fcntl.h>
#include <unistd.h>

int cpipe_open(struct cpipe *p, size_t want, struct err *e)
{
	int fds[2], got;

	if (pipe2(fds, O_CLOEXEC)) {
		err_sys(e, "pipe2");
		return -1;
	}
	p->r = fds[0];
	p->w = fds[1];
	/* a larger pipe means fewer splice calls per MiB; 1 MiB is the default fs.pipe-max-size */
	if (want > (1u << 20))
		want = 1u << 20;
	got = fcntl(p->w, F_SETPIPE_SZ, (int)want);
	if (got < 0)
		got = fcntl(p->w, F_GETPIPE_SZ);
	p->cap = got > 0 ? (size_t)got : 65536;
	return 0;
}

void cpipe_close(struct cpipe *p)
{
	if (p->r >= 0)
		close(p->r);
	if (p->w >= 0)
		close(p->w);
	p->r = p->w = -1;
}

int cpipe_drain(struct cpipe *p, int fd, loff_t *off, size_t n, bool more, struct err *e)
{
	while (n) {
		ssize_t m = splice(p->r, NULL, fd, off, n,
				   SPLICE_F_MOVE | (more ? SPLICE_F_MORE : 0));
		if (m < 0) {
			if (errno == EINTR)
				continue;
			err_sys(e, "splice(pipe -> destination)");
			return -1;
		}
		if (m == 0) {
			err_set(e, "splice(pipe -> destination): no progress");
			return -1;
		}
		n -= (size_t)m;
	}
	return 0;
}

/* A pipe sized for splicing, shared by vmsplice, splice and splice2. */
#ifndef COPYBENCH_PIPE_H
#define COPYBENCH_PIPE_H
#include "common.h"

#include <fcntl.h>

struct cpipe {
	int r, w;
	size_t cap; /* bytes the pipe holds */
};
/* want: preferred capacity; the kernel caps it at fs.pipe-max-size for non-root */
int cpipe_open(struct cpipe *p, size_t want, struct err *e);
void cpipe_close(struct cpipe *p);
/* move exactly n bytes already in the pipe to fd (at *off when off != NULL) */
int cpipe_drain(struct cpipe *p, int fd, loff_t *off, size_t n, bool more, struct err *e);
#endif

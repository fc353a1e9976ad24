/* The destination of `copy --dst`: a file copybench truncates and rewrites, so it is opened in a
 * way that can never destroy the source. */
#ifndef COPYBENCH_DSTFILE_H
#define COPYBENCH_DSTFILE_H
#include "common.h"
#include "srcfile.h"

/* Opens `path` read-write (created 0644 when absent) and truncates it to 0 bytes only once the
 * OPEN FILE is known to be a regular file that is neither the source (`src`, named `src_arg` in
 * messages) nor the file standard output or error goes to. Usage error (exit 2, one line naming
 * both paths) when it is one of those or exists and is not a regular file; nothing is created,
 * truncated or written then. Returns the fd, or -1 with e set when open/ftruncate fail. */
int dstfile_open(const char *arg, const char *path, const struct srcfile *src, const char *src_arg,
		 struct err *e);
#endif

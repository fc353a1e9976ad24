/* The destination of `copy --dst`: a new file copybench creates and rewrites, opened in a way
 * that can never destroy the source nor anything else that was there. */
#ifndef COPYBENCH_DSTFILE_H
#define COPYBENCH_DSTFILE_H
#include "common.h"
#include "srcfile.h"

/* Creates `path` (0644, O_EXCL | O_NOFOLLOW) and opens it read-write. A path that exists is a
 * usage error (exit 2, one line): the source (`src`, named `src_arg` in messages) or the file
 * standard output or error goes to, named as such; anything else that is there (a file, a
 * symbolic link, a directory, a FIFO, a device) as what it is; nothing is created, truncated or
 * written then. Returns the fd, or -1 with e set when open/ftruncate fail. */
int dstfile_open(const char *arg, const char *path, const struct srcfile *src, const char *src_arg,
		 struct err *e);
/* The file dstfile_open created is removed at exit, and on SIGINT, SIGTERM or SIGHUP (then
 * with a line on stderr, and copybench dies of the signal), unless the trial keeps it: */
void dstfile_keep(void);
/* Removes it now (a failed trial); whether there was one to remove. */
bool dstfile_discard(void);
#endif

/* The source file of file methods: a user's file, or one generated with the pattern. */
#ifndef COPYBENCH_SRCFILE_H
#define COPYBENCH_SRCFILE_H
#include "common.h"
#include "pattern.h"

struct srcfile {
	int fd;
	uint64_t size;
	char path[512];
	bool generated;   /* pattern content, without a name (O_TMPFILE) or unlinked already */
};
/* A user file: usage error (exit 2) when missing, unreadable, not regular, the file standard output
 * goes to, empty or > 1 GiB. */
void srcfile_open_user(struct srcfile *s, const char *arg, const char *path);
/* A pattern file of `size` bytes in dir, without a name (tmpfile_in) so nothing is left behind. */
int srcfile_generate(struct srcfile *s, const char *dir, uint64_t size, const struct pattern *p,
		     struct err *e);
/* A new regular file in dir that has no name (O_TMPFILE; where the file system lacks it, a
 * mkostemp file unlinked at once). path gets a description for messages. -1 with errno. */
int tmpfile_in(const char *dir, char *path, size_t len);
/* tmpfile_in with the error in e ("--dir: cannot create a file in ..."): copy's scratch destination. */
int scratch_file(const char *dir, char *path, size_t len, struct err *e);
/* cold cache: write back and drop the file's pages */
int drop_cache(int fd, struct err *e);
/* warm cache: read the file once */
int warm_cache(int fd, uint64_t size, struct err *e);
#endif

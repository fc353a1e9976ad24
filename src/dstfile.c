/* `copy --dst`: open the destination without destroying anything, decide on the open file,
 * create it (see dstfile.h).
 *
 * Opening --dst with O_TRUNC would empty it before anything could compare it with the source
 * (open(2) truncates before returning: `--src F --dst F` would lose F). The order here:
 *   1. stat() the name: refuse what exists and is not a regular file without opening it;
 *   2. open() with O_CREAT but no O_TRUNC, which changes neither the bytes nor the mtime of an
 *      existing file;
 *   3. fstat() the fd and compare (st_dev, st_ino) with the source's fd: an inode is identified
 *      by that pair however it is named (another path, `..`, a hard link, a symbolic link,
 *      /proc/PID/fd/N, a bind mount: a bind mount shares the superblock, so st_dev is equal);
 *   4. ftruncate(fd, 0): the fd pins the inode checked in 3, so a rename or symlink swap after
 *      step 2 cannot redirect the truncation to another file.
 * --dst is only ever a new file: a name that exists after the checks of 1 (a
 * file of the user's, a read-only one, a symbolic link, even one that points nowhere) is
 * refused, and the open of 2 is O_CREAT | O_EXCL | O_NOFOLLOW, so a link or file that appears
 * in between is refused too (EEXIST) instead of being written through or truncated: copybench
 * runs as root, and it never replaces what it did not create.
 *
 * What it created it also removes when the trial does not succeed (dstfile_keep was not
 * called): at exit, and on SIGINT, SIGTERM or SIGHUP, whose handler removes it and dies of the
 * signal again. Only the name as created is removed, and only while it still names the inode
 * created there: a file someone else put at the name since is left alone. */
#include "dstfile.h"
#include "args.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/* A run directory of the runner (data/raw/<run-id>/): whatever is not the run's own makes it
 * fail `verify`, so nothing but the sweep writes into one. The nearest directory above `path`
 * (links resolved) that holds one of a run's files, as rundir/outpath.py decides it for the
 * Python commands: true with `run` set, else false. */
static const char *const run_files[] = { "plan.json", "trials.jsonl", "trials.jsonl.gz", "SHA256SUMS",
					 "manifest.json", NULL };

static bool run_above(const char *path, char *run, size_t len)
{
	char buf[PATH_MAX], dir[PATH_MAX], f[PATH_MAX + 32];
	const char *parent = ".";
	char *slash;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	slash = strrchr(buf, '/');
	if (slash == buf)
		parent = "/";
	else if (slash) {
		*slash = '\0';
		parent = buf;
	}
	if (!realpath(parent, dir))
		return false; /* no such directory: the open below says so */
	for (;;) {
		for (int i = 0; run_files[i]; i++) {
			snprintf(f, sizeof(f), "%s/%s", strcmp(dir, "/") ? dir : "", run_files[i]);
			if (lstat(f, &st) == 0) {
				snprintf(run, len, "%s", dir);
				return true;
			}
		}
		if (!strcmp(dir, "/"))
			return false;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Refuses (exit 2) a destination that is the source or where our own output goes. */
static void check_identity(const char *arg, const char *path, const struct stat *st, const struct srcfile *src,
			   const char *src_arg)
{
	static const char *const stream_names[] = { NULL, "standard output (the record)", "standard error" };
	struct stat other;

	if (!S_ISREG(st->st_mode))
		die_usage("%s: '%s' exists and is %s (allowed: a regular file, or a path that does not exist)", arg,
			  path, kind_of(st->st_mode));
	if (src && src->fd >= 0 && fstat(src->fd, &other) == 0 && same_inode(st, &other)) {
		if (src->generated)
			die_usage("%s: '%s' is the same file as the generated source '%s' (device %u:%u, inode %llu); "
				  "refusing to overwrite the source", arg, path, src->path, major(st->st_dev),
				  minor(st->st_dev), (unsigned long long)st->st_ino);
		die_usage("%s: '%s' is the same file as %s '%s' (device %u:%u, inode %llu); refusing to overwrite "
			  "the source", arg, path, src_arg, src->path, major(st->st_dev), minor(st->st_dev),
			  (unsigned long long)st->st_ino);
	}
	/* copy data written into the file stdout goes to would be mixed with the JSON record */
	for (int fd = 1; fd <= 2; fd++)
		if (fstat(fd, &other) == 0 && S_ISREG(other.st_mode) && same_inode(st, &other))
			die_usage("%s: '%s' is the file %s goes to; refusing to overwrite it", arg, path,
				  stream_names[fd]);
}

/* The --dst this process created, until the trial keeps it. Read by a signal handler: set
 * while the signals are blocked, and `made` last. */
static char made_path[PATH_MAX];
static dev_t made_dev;
static ino_t made_ino;
static volatile sig_atomic_t made;
static char made_note[PATH_MAX + 96]; /* "; removed the partial --dst '...' it had created\n" */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Removes the created --dst while its name still names it; whether it did. Async-signal-safe
 * (lstat, unlink). */
static bool remove_made(void)
{
	struct stat st;
	bool removed = false;

	if (made && lstat(made_path, &st) == 0 && st.st_dev == made_dev && st.st_ino == made_ino)
		removed = unlink(made_path) == 0;
	made = 0;
	return removed;
}

static void write_str(const char *s)
{
	ssize_t rc = write(STDERR_FILENO, s, strlen(s));
	(void)rc;
}

/* SIGINT/SIGTERM/SIGHUP while a created --dst awaits the verdict: remove it, say so, and die
 * of the signal as without the handler (the caller sees the signal, not an exit status). */
static void on_stop_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;

	if (remove_made()) {
		write_str(sig == SIGINT ? "copybench: stopped by SIGINT" :
			  sig == SIGTERM ? "copybench: stopped by SIGTERM" : "copybench: stopped by SIGHUP");
		write_str(made_note);
	}
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void remove_at_exit(void)
{
	remove_made();
}

/* Blocks (or unblocks) the stop signals, so that none comes between the creation and its
 * record in made_*. */
static void block_stop_signals(bool block, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&set, stop_signals[i]);
	if (block)
		sigprocmask(SIG_BLOCK, &set, old);
	else
		sigprocmask(SIG_SETMASK, old, NULL);
}

/* From here on the file at `path`, open at fd, is ours to remove unless the trial keeps it. */
static void remember_made(const char *arg, const char *path, int fd)
{
	static bool installed;
	struct stat st;

	if (fstat(fd, &st))
		return; /* the caller's fstat fails the same way and says so */
	if (!installed) {
		struct sigaction sa = { .sa_handler = on_stop_signal };

		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
			struct sigaction old;
			/* a signal ignored by whoever started copybench (nohup) stays ignored */
			if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
				sigaction(stop_signals[i], &sa, NULL);
		}
		atexit(remove_at_exit);
		installed = true;
	}
	snprintf(made_path, sizeof(made_path), "%s", path);
	snprintf(made_note, sizeof(made_note), "; removed the partial %s '%s' it had created\n", arg, path);
	made_dev = st.st_dev;
	made_ino = st.st_ino;
	made = 1;
}

void dstfile_keep(void)
{
	made = 0;
}

bool dstfile_discard(void)
{
	return remove_made();
}

int dstfile_open(const char *arg, const char *path, const struct srcfile *src, const char *src_arg,
		 struct err *e)
{
	struct stat st;
	sigset_t old;
	int fd, fl;

	/* 1. Opening a FIFO, device or socket is not harmless (a FIFO's open may wait for a peer,
	 * a device's open runs its driver), so what exists and is not regular is refused unopened.
	 * stat() follows symbolic links, as the open below does. */
	if (stat(path, &st) == 0)
		check_identity(arg, path, &st, src, src_arg);
	/* Whatever else is at the name is not ours to replace: a symbolic link (the write would go
	 * to its target, wherever that is; lstat sees a dangling one too) or a file. */
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			die_usage("%s: '%s' is a symbolic link (never followed: copybench would write "
				  "what it points to); allowed: a path that does not exist", arg, path);
		die_usage("%s: '%s' exists (%llu bytes, mode %04o); copybench writes --dst only as a new "
			  "file and never replaces one it did not create: remove it yourself or name a "
			  "new path", arg, path, (unsigned long long)st.st_size,
			  (unsigned)(st.st_mode & 07777));
	}
	{
		char run[PATH_MAX];

		if (run_above(path, run, sizeof(run)))
			die_usage("%s: '%s' is inside the run directory %s; copybench never writes into a "
				  "run (a file added to it fails verify): name a path outside it", arg, path,
				  run);
	}
	/* 2. A new file only (O_EXCL; O_NOFOLLOW: a link put there after the lstat is not
	 * followed either). O_NONBLOCK and O_NOCTTY: nothing that appears at the name in between
	 * blocks the open or becomes our controlling terminal. */
	block_stop_signals(true, &old);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd >= 0)
		remember_made(arg, path, fd);
	block_stop_signals(false, &old);
	if (fd < 0) {
		if (errno == EEXIST || errno == ELOOP || errno == EISDIR) /* appeared after the lstat */
			die_usage("%s: '%s' appeared while copybench opened it; allowed: a path that "
				  "does not exist", arg, path);
		err_set(e, "%s: cannot open '%s': %s", arg, path, strerror(errno));
		return -1;
	}
	/* 3. The decision is taken on the open file: whatever the name points to now, fd is the
	 * inode that ftruncate and the copy will write. */
	if (fstat(fd, &st)) {
		err_set(e, "%s: fstat '%s': %s", arg, path, strerror(errno));
		close(fd);
		return -1;
	}
	check_identity(arg, path, &st, src, src_arg);
	/* O_NONBLOCK was for the open only: the methods write with the flags they always had */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		err_set(e, "%s: fcntl '%s': %s", arg, path, strerror(errno));
		close(fd);
		return -1;
	}
	/* 4. Only now is the file ours to empty: each pass rewrites it from offset 0 and the check
	 * at the end reads it back, so nothing of an older, longer content may remain. */
	if (ftruncate(fd, 0)) {
		err_set(e, "%s: truncate '%s': %s", arg, path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

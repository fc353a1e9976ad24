/* `copybench methods`: every method and whether this kernel and build can run it, probed by
 * trying the primitive on a throwaway socket, pipe or file. */
#include "args.h"
#include "json.h"
#include "method.h"
#include "srcfile.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *try_zerocopy(char *why, size_t len)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		snprintf(why, len, "setsockopt(SO_ZEROCOPY): %s (needs Linux 4.14+)", strerror(errno));
		if (fd >= 0)
			close(fd);
		return why;
	}
	close(fd);
	return NULL;
}

static const char *try_vmsplice(char *why, size_t len)
{
	int p[2];
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };

	if (pipe(p)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return why;
	}
	if (vmsplice(p[1], &iov, 1, 0) != 1)
		snprintf(why, len, "vmsplice: %s", strerror(errno));
	else
		why = NULL;
	close(p[0]);
	close(p[1]);
	return why;
}

static const char *try_copy_file_range(char *why, size_t len)
{
	/* two nameless files (tmpfile_in): nothing in /tmp is created by name or unlinked */
	char a[128], b[128];
	int fa = tmpfile_in("/tmp", a, sizeof(a)), fb = tmpfile_in("/tmp", b, sizeof(b));
	loff_t in = 0, out = 0;
	const char *res = NULL;

	if (fa < 0 || fb < 0 || write(fa, "x", 1) != 1) {
		snprintf(why, len, "cannot create probe files in /tmp: %s", strerror(errno));
		res = why;
	} else if (copy_file_range(fa, &in, fb, &out, 1, 0) != 1) {
		snprintf(why, len, "copy_file_range: %s (needs Linux 4.5+)", strerror(errno));
		res = why;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return res;
}

static const char *availability(const struct method *m, char *why, size_t len)
{
	if (m->probe)
		return m->probe(why, len);
	if (m == &m_zerocopy)
		return try_zerocopy(why, len);
	if (m == &m_vmsplice)
		return try_vmsplice(why, len);
	if (m == &m_copy_file_range)
		return try_copy_file_range(why, len);
	return NULL; /* read/write, mmap, sendfile and splice exist on every supported kernel */
}

static void kinds_text(unsigned k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", k & M_MSG ? "message->socket " : "", k & M_FILE_SOCK ? "file->socket " : "",
		 k & M_FILE_FILE ? "file->file " : "", k & M_UDP ? "(tcp,udp)" : (k & (M_MSG | M_FILE_SOCK)) ? "(tcp)" : "");
}

int cmd_methods(int argc, char **argv)
{
	bool as_json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			as_json = true;
		else if (!strcmp(argv[i], "--help")) {
			puts("usage: copybench methods [--json]\n"
			     "  Lists every method, what it moves, and whether it can run here (probed).");
			return 0;
		} else
			die_usage("methods: unknown argument '%s' (allowed: --json, --help)", argv[i]);
	}
	if (as_json) {
		struct json j;
		json_init(&j, stdout);
		json_begin_array(&j, NULL);
		for (int i = 0; all_methods[i]; i++) {
			const struct method *m = all_methods[i];
			char why[200];
			const char *no = availability(m, why, sizeof(why));
			json_begin(&j, NULL);
			json_str(&j, "name", m->name);
			json_begin_array(&j, "kinds");
			if (m->kinds & M_MSG)
				json_str(&j, NULL, "message-socket");
			if (m->kinds & M_FILE_SOCK)
				json_str(&j, NULL, "file-socket");
			if (m->kinds & M_FILE_FILE)
				json_str(&j, NULL, "file-file");
			json_end_array(&j);
			json_bool(&j, "udp", m->kinds & M_UDP);
			json_bool(&j, "available", !no);
			json_str(&j, "reason", no);
			json_str(&j, "summary", m->summary);
			json_end(&j);
		}
		json_end_array(&j);
		putchar('\n');
		return 0;
	}
	printf("%-16s %-10s %-44s %s\n", "method", "available", "moves", "what it does");
	for (int i = 0; all_methods[i]; i++) {
		const struct method *m = all_methods[i];
		char why[200], kinds[80];
		const char *no = availability(m, why, sizeof(why));
		kinds_text(m->kinds, kinds, sizeof(kinds));
		printf("%-16s %-10s %-44s %s\n", m->name, no ? "no" : "yes", kinds, m->summary);
		if (no)
			printf("%-16s   why not: %s\n", "", no);
	}
	return 0;
}

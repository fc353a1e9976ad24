/* copybench: what Linux data-movement primitives cost. A thin dispatcher; each subcommand
 * lives in its own file. */
#include "common.h"

#include <signal.h>

/* Set by the Makefile: a hash of the sources and one of the compile flags (hex). */
#ifndef COPYBENCH_SOURCE_SHA
#define COPYBENCH_SOURCE_SHA unknown
#endif
#ifndef COPYBENCH_FLAGS_SHA
#define COPYBENCH_FLAGS_SHA unknown
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

int cmd_methods(int argc, char **argv);
int cmd_sink(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_copy(int argc, char **argv);
int cmd_memcpy(int argc, char **argv);

static void usage(FILE *f)
{
	fputs("usage: copybench COMMAND [options]   (copybench COMMAND --help for each)\n"
	      "  methods   list every method and whether it can run here\n"
	      "  sink      receive for `send` (run first)\n"
	      "  send      message or file methods to a socket; prints one JSON record\n"
	      "  copy      file to file; prints one JSON record\n"
	      "  memcpy    memcpy bandwidth, the bound every figure draws\n"
	      "  --version\n"
	      "  --build-info  JSON: version, source hash, flags hash, compiler (the runner compares\n"
	      "                a remote host's copybench with the local one by it)\n", f);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
		{ "methods", cmd_methods }, { "sink", cmd_sink }, { "send", cmd_send },
		{ "copy", cmd_copy }, { "memcpy", cmd_memcpy },
	};

	signal(SIGPIPE, SIG_IGN); /* a vanished peer is an error return, not a death */
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	static const char *const alone[] = { "--help", "-h", "--version", "--build-info" };
	for (size_t i = 0; i < sizeof(alone) / sizeof(alone[0]); i++)
		if (!strcmp(argv[1], alone[i]) && argc > 2)
			die_usage("%s takes no arguments (got '%s')", argv[1], argv[2]);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("copybench " COPYBENCH_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--build-info")) {
		printf("{\"tool\":\"copybench\",\"version\":\"" COPYBENCH_VERSION "\",\"source_sha\":\"%s\","
		       "\"flags_sha\":\"%s\",\"compiler\":\"%s\",\"liburing\":%s}\n",
		       STR(COPYBENCH_SOURCE_SHA), STR(COPYBENCH_FLAGS_SHA), __VERSION__,
#ifdef HAVE_LIBURING
		       "true"
#else
		       "false"
#endif
		);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	die_usage("unknown command '%s' (allowed: methods, sink, send, copy, memcpy)", argv[1]);
}

/* `copybench send`'s own options and the checks across options (see sendopts.h). */
#include "sendopts.h"
#include "args.h"

#include <stdlib.h>

static void send_usage(FILE *f)
{
	fputs("usage: copybench send --method M --host ADDR [options]\n"
	      "  Sends to a `copybench sink` and prints one JSON record of the trial on stdout.\n"
	      "  --method M        message: send sendmsg zerocopy uring-zc vmsplice\n"
	      "                    file:    read-write mmap-write sendfile splice splice2\n"
	      "  --host ADDR       the sink's address (IPv4 or IPv6 literal, or a name)\n"
	      "  --port N          the sink's control port (default 5201)\n"
	      "  --transport P     tcp | udp (default tcp; udp: message methods but vmsplice)\n"
	      "  --mode M          stream (throughput) | pingpong (round trip per message)\n"
	      "  --size BYTES      message size, or generated file size (default 64K; 1 to 1G)\n"
	      "  --fields N        separately allocated fields per message (default 8)\n"
	      "  --threads N       connections, each with its own thread (default 1)\n"
	      "  --cpus LIST       pin sender thread i to the (i mod n)-th CPU of LIST\n"
	      "  --duration S      measured window in seconds (default 2)\n"
	      "  --warmup S        warm-up before the window (default 0.5)\n"
	      "  --verify V        full | sample | off: receiver checks every byte (default sample)\n"
	      "  --seed N          pattern seed (default 1)\n"
	      "  --counters C      full: getrusage + perf counters + syscall count (default);\n"
	      "                    rusage: getrusage only (perf events add latency; use for pingpong)\n"
	      "  --file PATH       file methods: send this file (no verification possible)\n"
	      "  --dir DIR         where a generated file goes (default /var/tmp)\n"
	      "  --cache C         file methods: warm | cold page cache (default warm)\n"
	      "  --no-sink         udp only: send to ADDR:PORT where nothing receives\n"
	      "  --grace S         give up S seconds after the window when a sending thread or the sink\n"
	      "                    has not finished (it stopped reading or answering): a failed record,\n"
	      "                    exit 1 (default 10)\n", f);
}

static const struct option send_own[] = {
	{ "host", 1, 0, 'H' }, { "port", 1, 0, 'p' }, { "transport", 1, 0, 't' }, { "mode", 1, 0, 'M' },
	{ "fields", 1, 0, 'f' }, { "threads", 1, 0, 'T' }, { "file", 1, 0, 'F' }, { "no-sink", 0, 0, 'n' },
	{ "grace", 1, 0, 'g' }, { 0 },
};

static void send_opt(int val, const char *arg, void *opts)
{
	struct send_opts *o = opts;

	switch (val) {
	case 'H': o->host = arg; break;
	case 'p': o->port = (int)parse_long("--port", arg, 1, 65535); break;
	case 't': o->proto = parse_choice("--transport", arg, proto_names); break;
	case 'M': o->mode = parse_choice("--mode", arg, mode_names); break;
	case 'f': o->fields = (int)parse_long("--fields", arg, 1, MAX_FIELDS); break;
	case 'T': o->threads = (int)parse_long("--threads", arg, 1, MAX_THREADS); break;
	case 'F': o->file = arg; break;
	case 'n': o->no_sink = true; break;
	case 'g': o->grace = parse_seconds("--grace", arg, 0.1, 3600); break;
	}
}

/* --no-sink: UDP stream only, nothing to verify */
static void check_no_sink(struct send_opts *o)
{
	if (!o->no_sink)
		return;
	if (o->proto != PROTO_UDP)
		die_usage("--no-sink: only with --transport udp (TCP needs a receiver)");
	if (o->mode == MODE_PINGPONG)
		die_usage("--no-sink: pingpong needs a sink to answer");
	if (o->t.verify_set && o->t.verify != VERIFY_OFF)
		die_usage("--verify: nothing receives with --no-sink, so only 'off' is allowed");
	o->t.verify = VERIFY_OFF;
}

/* --file, --cache and the mode, by the kind of method */
static void check_file(struct send_opts *o)
{
	if (!(o->m->kinds & M_FILE_SOCK)) {
		if (o->file)
			die_usage("--file: only for file methods (read-write, mmap-write, sendfile, splice, splice2)");
		if (o->t.cache != CACHE_UNSET)
			die_usage("--cache: only for file methods");
		return;
	}
	if (o->mode == MODE_PINGPONG)
		die_usage("--mode: file methods stream a file; pingpong is for message methods");
	if (o->t.cache == CACHE_UNSET)
		o->t.cache = 0;
	if (o->file && o->t.size_set)
		die_usage("--size: give either --file or --size (the size of a generated file), not both");
	if (o->file && o->t.verify_set && o->t.verify != VERIFY_OFF)
		die_usage("--verify: a --file of your own has no known pattern; only 'off' is allowed (or use --size)");
	if (o->file)
		o->t.verify = VERIFY_OFF;
}

void send_parse(int argc, char **argv, struct send_opts *o)
{
	const struct trial_cmd cmd = { .name = "send", .own = send_own, .own_opt = send_opt,
				       .usage = send_usage, .opts = o };
	const char *method;

	*o = (struct send_opts){ .port = 5201, .fields = 8, .threads = 1, .grace = 10 };
	trialopts_init(&o->t, 65536);
	trialopts_parse(argc, argv, &o->t, &cmd);
	method = o->t.method;
	if (!method)
		die_usage("send: --method is required (see copybench methods)");
	o->m = method_find(method);
	if (!o->m)
		die_usage("--method: unknown method '%s' (allowed: send, sendmsg, zerocopy, uring-zc, vmsplice, "
			  "read-write, mmap-write, sendfile, splice, splice2)", method);
	if (!(o->m->kinds & (M_MSG | M_FILE_SOCK)))
		die_usage("--method: %s copies file to file; use `copybench copy`", method);
	if (!o->host)
		die_usage("send: --host is required (the sink's address, e.g. 127.0.0.1)");
	if (o->proto == PROTO_UDP && !(o->m->kinds & M_UDP))
		die_usage("--transport: udp works with send, sendmsg, zerocopy, uring-zc (not %s)", method);
	check_no_sink(o);
	check_file(o);
	if (o->proto == PROTO_UDP && o->t.size > 65507)
		die_usage("--size: a UDP datagram holds at most 65507 bytes (got %llu)", (unsigned long long)o->t.size);
}

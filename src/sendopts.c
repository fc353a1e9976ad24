/* `copybench send`'s options, one table row each (optable.h), and the checks across options
 * (see sendopts.h). */
#include "sendopts.h"
#include "memroom.h"
#include "share.h"
#include "socket.h"

#include <linux/magic.h>
#include <sys/vfs.h>

#define SEND_AT(field, ctype) OPT_AT(struct send_opts, field, ctype)

static const struct optdef send_optdefs[] = {
	TRIALOPT_METHOD(struct send_opts, "message: send sendmsg zerocopy uring-zc vmsplice\n"
					  "file:    read-write mmap-write sendfile splice splice2"),
	{ .name = "host", .arg = "ADDR", .kind = OPT_STRING, .at = SEND_AT(host, const char *),
	  .help = "the sink's address (IPv4 or IPv6 literal, or a name)" },
	{ .name = "port", .arg = "N", .kind = OPT_INT, .at = SEND_AT(port, int), .min = 1, .max = 65535,
	  .help = "the sink's control port (default 5201)" },
	{ .name = "protocol", .arg = "P", .kind = OPT_CHOICE, .at = SEND_AT(proto, int),
	  .choices = proto_names, .help = "tcp | udp (default tcp; udp: message methods but vmsplice)" },
	/* once named --transport; in the runner a transport is loopback, veth or
	 * udp-forward; no recorded command line is ever run again, so the old name is refused */
	OPT_RENAMED_ROW("transport", "protocol"),
	{ .name = "mode", .arg = "M", .kind = OPT_CHOICE, .at = SEND_AT(mode, int), .choices = mode_names,
	  .help = "stream (throughput) | pingpong (round trip per message)" },
	TRIALOPT_SIZE(struct send_opts, "message size, or generated file size (default 64K; 1 to 1G)"),
	{ .name = "fields", .arg = "N", .kind = OPT_INT, .at = SEND_AT(fields, int), .min = 1,
	  .max = MAX_FIELDS, .help = "separately allocated fields per message (default 8)" },
	{ .name = "sockbuf", .arg = "BYTES", .kind = OPT_SIZE, .at = SEND_AT(sockbuf, uint64_t),
	  .min = 4096, .max = 1 << 30,
	  .help = "fix both ends' socket buffers (sender SO_SNDBUF, sink SO_RCVBUF) at\n"
		  "BYTES, which turns TCP's buffer autotuning off (default: autotuned)" },
	{ .name = "recv-size", .arg = "BYTES", .kind = OPT_SIZE, .at = SEND_AT(recv_size, uint64_t),
	  .min = RECV_SIZE_MIN, .max = RECV_SIZE_MAX,
	  .help = "the sink's bytes per recv() on each TCP stream connection (4K to 64M;\n"
		  "default: the sink's --recv-size, 64K); the record's receiver.recv_size" },
	{ .name = "alternate", .arg = "M", .kind = OPT_STRING, .at = SEND_AT(alternate, const char *),
	  .help = "switch to method M in the odd slices of the window and back in the\n"
		  "even ones (the same connection and threads): send, sendmsg or\n"
		  "zerocopy, with --method one of them, tcp stream only" },
	{ .name = "share-time", .arg = "M", .kind = OPT_STRING, .at = SEND_AT(share_time, const char *),
	  .help = "two connections, one sending --method and one M, taking turns of\n"
		  "100 ms (only one sends at a time), from the warm-up on: each method's\n"
		  "rate from its own connection's bytes at the sink (send, sendmsg or\n"
		  "zerocopy; tcp stream, --threads 1, --duration 0.2 to 6)" },
	{ .name = "share-order", .arg = "O", .kind = OPT_CHOICE, .at = SEND_AT(share_order, int),
	  .given = OPT_GIVEN(struct send_opts, share_order_set), .choices = share_order_names,
	  .help = "AB: --method's connection has the window's first turn (default); BA: M's" },
	{ .name = "threads", .arg = "N", .kind = OPT_INT, .at = SEND_AT(threads, int), .min = 1,
	  .max = MAX_THREADS, .help = "connections, each with its own thread (default 1)" },
	TRIALOPT_CPUS(struct send_opts, "pin sender thread i to the (i mod n)-th CPU of LIST"),
	TRIALOPT_DURATION(struct send_opts, "measured window in seconds (default 2)"),
	TRIALOPT_WARMUP(struct send_opts, "warm-up before the window (default 0.5)"),
	TRIALOPT_VERIFY(struct send_opts, "full | sample | off: the receiver checks the content of every chunk it reads (full), of one in 16 (sample) or none (off); over TCP it always checks that every byte sent arrived (default sample)"),
	TRIALOPT_SEED(struct send_opts, "pattern seed (default 1)"),
	TRIALOPT_COUNTERS(struct send_opts, "full: getrusage + perf counters + syscall count (default);\n"
					    "rusage: getrusage only (perf events add latency; use for pingpong)"),
	{ .name = "file", .arg = "PATH", .kind = OPT_STRING, .at = SEND_AT(file, const char *),
	  .help = "file methods: send this file (no verification possible)" },
	TRIALOPT_DIR(struct send_opts, "where a generated file goes (default /var/tmp)"),
	TRIALOPT_CACHE(struct send_opts, "file methods: warm | cold page cache (default warm)"),
	{ .name = "no-sink", .kind = OPT_FLAG, .at = SEND_AT(no_sink, bool),
	  .help = "udp only: send to ADDR:PORT where nothing receives" },
	{ .name = "grace", .arg = "S", .kind = OPT_SECONDS, .at = SEND_AT(grace, double), .min = 0.1,
	  .max = 3600, .help = "give up S seconds after the window when a sending thread or the sink\n"
			       "has not finished (it stopped reading or answering): a failed record,\n"
			       "exit 1 (default 10)" },
	OPT_HELP_ROW,
	{ 0 },
};

static const struct optcmd send_cmd = {
	.name = "send",
	.synopsis = "usage: copybench send --method M --host ADDR [options]\n"
		    "  Sends to a `copybench sink` and prints one JSON record of the trial on stdout.\n",
	.opts = send_optdefs,
};

/* --no-sink: UDP stream only, nothing to verify */
static void check_no_sink(struct send_opts *o)
{
	if (!o->no_sink)
		return;
	if (o->proto != PROTO_UDP)
		die_usage("--no-sink: only with --protocol udp (TCP needs a receiver)");
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

/* --alternate: the methods that can share one connection, switching at a slice edge. Each
 * method has its own buffers; the bytes are the same pattern either way (message i is stamped
 * the same by each), so the sink verifies one stream. zerocopy may alternate with a copying
 * method: MSG_ZEROCOPY is a per-call flag, and mixing calls with and without it on one socket
 * is allowed (Documentation/networking/msg_zerocopy.rst, "Mixing copy avoidance and
 * copying"); only calls with the flag take a notification id (the socket's counter counts
 * those alone), so zerocopy's own id bookkeeping stays right across the other method's turns,
 * and its buffers are not rewritten until their completions arrived (its ring waits per slot),
 * whoever sends in between. zerocopy with itself would need two rings reading one socket's
 * one sequence of ids and completions: refused. */
static void check_alternate(struct send_opts *o)
{
	static const char *const ok[] = { "send", "sendmsg", "zerocopy" };
	bool m_ok = false, a_ok = false;

	if (!o->alternate)
		return;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		m_ok |= !strcmp(o->m->name, ok[i]);
		a_ok |= !strcmp(o->alternate, ok[i]);
	}
	if (!a_ok)
		die_usage("--alternate: '%s' cannot alternate (allowed: send, sendmsg, zerocopy)", o->alternate);
	if (!m_ok)
		die_usage("--alternate: only with --method send, sendmsg or zerocopy (got %s)", o->m->name);
	if (o->proto != PROTO_TCP || o->mode != MODE_STREAM)
		die_usage("--alternate: only with --protocol tcp and --mode stream");
	o->alt = method_find(o->alternate);
	if (o->alt == &m_zerocopy && o->m == &m_zerocopy)
		die_usage("--alternate: zerocopy cannot alternate with itself (one socket's completion ids "
			  "cannot be split between two rings); alternate it with send or sendmsg");
}

/* --share-time: two connections to one sink session, one per method, taking turns (share.h).
 * One connection per method (--threads 1): each connection is its own socket, so zerocopy
 * may share time with itself (each socket has its own completion ids). */
static void check_share_time(struct send_opts *o)
{
	static const char *const ok[] = { "send", "sendmsg", "zerocopy" };
	bool m_ok = false, s_ok = false;

	o->conns = o->threads;
	if (!o->share_time) {
		if (o->share_order_set)
			die_usage("--share-order: only with --share-time");
		return;
	}
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		m_ok |= !strcmp(o->m->name, ok[i]);
		s_ok |= !strcmp(o->share_time, ok[i]);
	}
	if (!s_ok)
		die_usage("--share-time: '%s' cannot share time (allowed: send, sendmsg, zerocopy)", o->share_time);
	if (!m_ok)
		die_usage("--share-time: only with --method send, sendmsg or zerocopy (got %s)", o->m->name);
	if (o->proto != PROTO_TCP || o->mode != MODE_STREAM)
		die_usage("--share-time: only with --protocol tcp and --mode stream");
	if (o->alternate)
		die_usage("--share-time: not with --alternate (one trial either alternates on one "
			  "connection or shares time between two)");
	if (o->threads != 1)
		die_usage("--share-time: one connection per method (--threads 1; got %d)", o->threads);
	if (o->t.duration < SHARE_MIN_DURATION_S || o->t.duration > SHARE_MAX_DURATION_S)
		die_usage("--duration: with --share-time %g to %g s (a turn per connection at least, and "
			  "at most %d turns of 100 ms; got %g)", SHARE_MIN_DURATION_S, SHARE_MAX_DURATION_S,
			  SHARE_MAX_TURNS, o->t.duration);
	o->share = method_find(o->share_time);
	o->conns = 2;
}

/* --sockbuf is a size the kernel keeps as asked, or the option is refused here (one line): a
 * trial with it would fail every time. Asked of this kernel (sock_buffer_kept): below its
 * smallest send buffer (SOCK_MIN_SNDBUF: 2 x (2048 + sizeof(struct sk_buff)) rounded, 4608
 * bytes on x86-64) the kernel raises it; an odd size comes back one less (it keeps twice half
 * the value); without CAP_NET_ADMIN it caps it at net.core.wmem_max/rmem_max. The sink's
 * receive buffer is asked too (its floor is lower); a remote sink's kernel is its own. */
static void check_sockbuf(const struct send_opts *o)
{
	if (!o->sockbuf || o->proto != PROTO_TCP)
		return;
	for (int side = 1; side >= 0; side--) {
		int kept = sock_buffer_kept(side, o->sockbuf);
		const char *name = side ? "SO_SNDBUF" : "SO_RCVBUF";

		if (kept < 0 || (uint64_t)kept == o->sockbuf)
			continue; /* no socket to ask: the trial's own check (sock_fix_buffer) says it */
		if ((uint64_t)kept > o->sockbuf && o->sockbuf % 2 == 0)
			die_usage("--sockbuf %llu: below the smallest %s this kernel keeps (%d bytes); "
				  "allowed: an even size from %d to 1G", (unsigned long long)o->sockbuf, name,
				  kept, kept);
		if (o->sockbuf % 2)
			die_usage("--sockbuf %llu: odd; the kernel keeps twice half the size asked (%d "
				  "bytes here); allowed: an even size, e.g. %llu", (unsigned long long)o->sockbuf,
				  kept, (unsigned long long)o->sockbuf + 1);
		die_usage("--sockbuf %llu: this kernel keeps %s at %d bytes at most (net.core.%s_max, "
			  "without CAP_NET_ADMIN); allowed: up to %d", (unsigned long long)o->sockbuf, name,
			  kept, side ? "wmem" : "rmem", kept);
	}
}

/* What one connection's method allocates when it opens (its `open`), in bytes: a message
 * method's ring (msg_ring_alloc: `slots` messages of `fields` separately allocated fields,
 * plus one serialisation buffer of the message size), or a file method's user buffer. The
 * slot counts are the methods' own: send and sendmsg keep one message; zerocopy
 * (zc_ring_slots) and uring-zc 16 MiB of messages in flight, 8 to 1024. vmsplice sizes its
 * arena at open by the bytes that can be in flight on the connection (m_vmsplice.c: the send
 * buffer and the receiver's, at least net.ipv4.tcp_wmem[2] and tcp_rmem[2] or --sockbuf, a
 * pipe of at most 1 MiB and 1 MiB of overshoot); its ring's memory for that many bytes is
 * vmsplice_ring_memory's, the arena it maps (`sockbuf`: --sockbuf or 0). splice,
 * splice2 and sendfile move page references through pipes; mmap-write maps the file's page
 * cache, which the kernel can reclaim. `slots_out` gets the message count (0: not a ring). */
static uint64_t method_buffers(const struct method *m, uint64_t size, int fields, uint64_t sockbuf,
			       uint64_t *slots_out)
{
	uint64_t per_slot = 0, slots = 1;

	*slots_out = 0;
	if (m->kinds & M_FILE_SOCK)
		return m == &m_read_write ? RW_BUFFER : 0;
	if (m == &m_vmsplice) {
		/* its pipe holds at most 1 MiB (cpipe_open); past its ring's most the method
		 * refuses at open, so the ring is never larger than at that most */
		uint64_t in_flight = vmsplice_in_flight(sockbuf, 1ull << 20, NULL, NULL);

		if (in_flight > VMSPLICE_INFLIGHT_MAX)
			in_flight = VMSPLICE_INFLIGHT_MAX;
		return vmsplice_ring_memory(size, fields, in_flight);
	}
	for (int k = 0; k < fields; k++)
		per_slot += size / (uint64_t)fields + ((uint64_t)k < size % (uint64_t)fields);
	if (m == &m_zerocopy || m == &m_uring_zc) {
		slots = (16ull << 20) / size;
		slots = slots < 8 ? 8 : slots > 1024 ? 1024 : slots;
	}
	*slots_out = slots;
	return slots * per_slot + size;
}

/* Memory kept spare beside the buffers: the rest of the process (threads' stacks, meters,
 * perf buffers) and, per connection, its socket buffers (net.ipv4.tcp_wmem's default maximum
 * of 4 MiB, and as much again for the sink's side on this host). */
#define MEM_SPARE_BASE (128ull << 20)
#define MEM_SPARE_PER_CONN (8ull << 20)

/* Refuses (exit 2, before anything is allocated) buffers that do not fit in the memory this
 * process can take (memroom.h): a sender over its cgroup's limit is OOM-killed mid-trial,
 * with no record and no message. */
static void check_memory(const struct send_opts *o)
{
	const struct method *first = o->m, *second = o->share ? o->share : o->alt;
	uint64_t slots, slots2 = 0, need, per_conn, spare, file = 0;
	struct mem_room room;
	struct statfs fs;
	char a[32], b[32], c[32], d[32], what[200];

	per_conn = method_buffers(first, o->t.size, o->fields, o->sockbuf, &slots);
	if (o->alt) /* each thread opens both methods */
		per_conn += method_buffers(o->alt, o->t.size, o->fields, o->sockbuf, &slots2);
	if (o->mode == MODE_PINGPONG)
		per_conn += o->t.size + 1; /* the echo buffer */
	need = per_conn * (uint64_t)o->conns;
	if (o->share) /* two connections: --method's, and the other method's */
		need = per_conn + method_buffers(o->share, o->t.size, o->fields, o->sockbuf, &slots2);
	/* a generated file on tmpfs or ramfs is memory that cannot be reclaimed (no swap) */
	if ((first->kinds & M_FILE_SOCK) && !o->file && o->t.dir && statfs(o->t.dir, &fs) == 0 &&
	    (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
		file = o->t.size;
	need += file;
	spare = MEM_SPARE_BASE + MEM_SPARE_PER_CONN * (uint64_t)o->conns;
	mem_room(&room);
	if (room.bytes == UINT64_MAX || need + spare <= room.bytes)
		return;
	if (slots)
		snprintf(what, sizeof(what), "%d connection%s x %s: %s keeps %llu message%s of %s plus a flat buffer of that size%s%s",
			 o->conns, o->conns == 1 ? "" : "s", mem_human(per_conn, a, sizeof(a)), first->name,
			 (unsigned long long)slots, slots == 1 ? "" : "s", mem_human(o->t.size, b, sizeof(b)),
			 o->mode == MODE_PINGPONG ? " and an echo buffer" : "",
			 second ? ", as does the second method" : "");
	else
		snprintf(what, sizeof(what), "%d connection%s x %s%s%s", o->conns, o->conns == 1 ? "" : "s",
			 mem_human(per_conn, a, sizeof(a)), first == &m_vmsplice ? ": vmsplice's ring, at most twice "
			 "the bytes that can be in flight" : "", file ? ", and the generated file on tmpfs in --dir" : "");
	die_usage("send needs %s of memory for its buffers (%s) but only %s is available (%s%s%s), keeping %s "
		  "spare for socket buffers and the rest of the process; allowed: a smaller --size or fewer "
		  "--threads", mem_human(need, b, sizeof(b)), what, mem_human(room.bytes, c, sizeof(c)), room.bound,
		  room.meminfo != room.bytes && room.meminfo != UINT64_MAX ? "; MemAvailable " : "",
		  room.meminfo != room.bytes && room.meminfo != UINT64_MAX ? mem_human(room.meminfo, d, sizeof(d)) : "",
		  mem_human(spare, a, sizeof(a)));
}

void send_parse(int argc, char **argv, struct send_opts *o)
{
	const char *method;

	*o = (struct send_opts){ .port = 5201, .fields = 8, .threads = 1, .grace = 10 };
	trialopts_init(&o->t, 65536);
	optable_parse(argc, argv, &send_cmd, o);
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
		die_usage("--protocol: udp works with send, sendmsg, zerocopy, uring-zc (not %s)", method);
	if (o->sockbuf && o->proto != PROTO_TCP)
		die_usage("--sockbuf: only with --protocol tcp (a UDP socket's buffer is not autotuned)");
	check_sockbuf(o);
	if (o->recv_size && (o->proto != PROTO_TCP || o->mode != MODE_STREAM))
		die_usage("--recv-size: only with --protocol tcp --mode stream (a datagram or an echo is "
			  "received whole)");
	check_no_sink(o);
	check_file(o);
	check_alternate(o);
	check_share_time(o);
	if (o->proto == PROTO_UDP && o->t.size > 65507)
		die_usage("--size: a UDP datagram holds at most 65507 bytes (got %llu)", (unsigned long long)o->t.size);
	check_memory(o);
}

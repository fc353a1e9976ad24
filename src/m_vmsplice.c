/* `vmsplice`: vmsplice() the fields into a pipe, splice() the pipe into the socket.
 *
 * Kernel facts. vmsplice() without SPLICE_F_GIFT puts references to the user pages into the
 * pipe, and splice() to a TCP socket moves those references into the socket's skbs as page
 * fragments (MSG_SPLICE_PAGES): no copy, and no completion is ever reported. The bytes are read
 * from the user pages when they are delivered: they stay referenced in the sender's write
 * queue until acknowledged and, when the receiver is on this host (loopback, veth), in the
 * receiver's queue until its application has read them (the receiving skb shares the sender's
 * pages). A page rewritten before then changes bytes still to be delivered.
 *
 * How many bytes can be so referenced at once is bounded by the sockets' buffer accounting,
 * which charges each fragment at least its bytes: the sender's write queue takes a new skb only
 * while sk_wmem_queued < sk_sndbuf (SO_SNDBUF, autotuned up to tcp_wmem[2]); the receiver's
 * queue takes one only while sk_rmem_alloc is within sk_rcvbuf (tcp_try_rmem_schedule prunes
 * or drops beyond it; SO_RCVBUF, autotuned up to tcp_rmem[2], or fixed by `send --sockbuf`,
 * which fixes both ends at the size our SO_SNDBUF reads back). Each may overshoot by the skb
 * that crossed its limit (at most 64 KiB, 512 KiB with BIG TCP), and the pipe holds up to its
 * capacity between vmsplice and splice. So at most
 *     max(SO_SNDBUF, tcp_wmem[2]) + max(SO_SNDBUF, tcp_rmem[2]) + pipe + 2 x 512 KiB
 * bytes are in flight (tcp_rmem as this network namespace reads it: a new namespace starts
 * with the initial one's values; a receiver on another host copies the bytes off the wire, so
 * there only the sender's part counts and the bound is generous).
 *
 * The ring is sized by that bound in bytes, whatever the message size: one arena of whole
 * pages in units, each holding k >= 1 whole messages; a message's fields lie one after another
 * with one byte between them (never one contiguous range, so each field stays a fragment of
 * its own, as separately allocated fields are); all k stamps of a unit are written together
 * when its first message goes out. A unit is written again only after every other unit has
 * been sent, (units - 1) x k x size >= the bound: no page is written while any byte on it can
 * still be in flight. Memory (vmsplice_ring_memory): at most twice the bound (1-byte fields: a
 * byte of gap each) plus two units, with the bound at most VMS_INFLIGHT_MAX (1 GiB); a
 * connection whose buffers allow more is refused, naming them. With the default sysctls
 * (tcp_wmem[2] 4 MiB, tcp_rmem[2] 32 MiB) the bound is 37 MiB, the ring 42 MiB at 64 B and
 * 74 MiB at 1 to 8 B.
 * Measured here (kernel 6.18, loopback, a receiver that read for 0.5 s and then stopped): 35.4
 * MiB in flight at 64 KiB messages (4 MiB queued at the sender, 31.5 MiB unread at the
 * receiver), 0.8 MiB at 64 B: more than a ring of 8192 messages holds there (512 KiB). */
#include "method.h"
#include "pipe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define VMS_PAGE 4096u
/* an skb over each side's limit: 64 KiB GSO, 512 KiB with BIG TCP */
#define VMS_SKB_OVERSHOOT (512u << 10)
/* the most bytes in flight a ring is sized for (its memory: up to twice that) */
#define VMS_INFLIGHT_MAX VMSPLICE_INFLIGHT_MAX
/* a unit spans at least 8 messages' worth of pages below this span (padding < 1/8) */
#define VMS_UNIT_SPAN (64u << 10)

struct vms_state {
	struct cpipe pipe;
	uint8_t *arena;
	size_t arena_len;
	int nfields;
	size_t field_off[MAX_FIELDS], field_len[MAX_FIELDS]; /* within a message */
	size_t span;               /* a message's bytes in the arena, gaps included */
	size_t unit_len;           /* whole pages */
	int per_unit, nunits;
	int unit, pos;             /* the next message: its unit and place in it */
	uint64_t first;            /* the index stamped into the current unit's first message */
};

/* The third (maximum) value of a tcp_wmem/tcp_rmem sysctl; 0 when unreadable. */
static uint64_t sysctl_max(const char *path)
{
	unsigned long long lo, def, max;
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu %llu", &lo, &def, &max);
	fclose(f);
	return n == 3 ? max : 0;
}

uint64_t vmsplice_in_flight(uint64_t sndbuf, uint64_t pipe_cap, uint64_t *snd, uint64_t *rcv)
{
	uint64_t wmem = sysctl_max("/proc/sys/net/ipv4/tcp_wmem"), rmem = sysctl_max("/proc/sys/net/ipv4/tcp_rmem");
	uint64_t s, r, in_flight;

	if (!wmem || !rmem)
		return 0;
	/* the send buffer autotunes up to tcp_wmem[2] and the receiver's up to tcp_rmem[2];
	 * a set SO_SNDBUF above them (--sockbuf) is the bound on both sides instead */
	s = sndbuf > wmem ? sndbuf : wmem;
	r = sndbuf > rmem ? sndbuf : rmem;
	in_flight = s + r + pipe_cap + 2ull * VMS_SKB_OVERSHOOT;
	if (snd)
		*snd = s;
	if (rcv)
		*rcv = r;
	return in_flight;
}

/* The bytes that can be in flight on the connection (see the top), into c->ring. */
static int vms_bound(struct mctx *c, size_t pipe_cap)
{
	int sndbuf = 0;
	socklen_t len = sizeof(sndbuf);
	uint64_t s = 0, r = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len)) {
		err_sys(c->err, "vmsplice: getsockopt(SO_SNDBUF)");
		return -1;
	}
	c->ring.in_flight = vmsplice_in_flight((uint64_t)sndbuf, pipe_cap, &s, &r);
	if (!c->ring.in_flight) {
		err_set(c->err, "vmsplice: cannot read net.ipv4.tcp_wmem/tcp_rmem in /proc/sys: the bytes "
				"that can be in flight, which size its ring, are unknown");
		return -1;
	}
	c->ring.sndbuf = s;
	c->ring.rcvbuf = r;
	if (c->ring.in_flight > VMS_INFLIGHT_MAX) {
		err_set(c->err, "vmsplice: up to %llu MiB can be in flight on this connection (send buffer "
				"%llu MiB, the receiver's up to %llu MiB): more than the %llu MiB its ring is "
				"sized for; use a smaller --sockbuf",
			(unsigned long long)(c->ring.in_flight >> 20), (unsigned long long)(c->ring.sndbuf >> 20),
			(unsigned long long)(c->ring.rcvbuf >> 20), VMS_INFLIGHT_MAX >> 20);
		return -1;
	}
	return 0;
}

/* Message `pos` of unit `unit`, as iovecs over its fields. */
static void vms_iov(const struct vms_state *v, int unit, int pos, struct iovec *iov)
{
	uint8_t *base = v->arena + (size_t)unit * v->unit_len + (size_t)pos * v->span;

	for (int k = 0; k < v->nfields; k++)
		iov[k] = (struct iovec){ .iov_base = base + v->field_off[k], .iov_len = v->field_len[k] };
}

/* The geometry: each field's place in a message (a byte between fields), the unit (whole
 * pages, k messages, k x size at least half of it, so the memory stays within twice the
 * payload), and enough units that (units - 1) x k x size >= in_flight. */
static void vms_geometry(struct vms_state *v, uint64_t size, int fields, uint64_t in_flight)
{
	uint64_t span = 0, unit, unit_payload, n;

	v->nfields = fields;
	for (int k = 0; k < fields; k++) {
		/* sizes differ by at most one byte; the first fields take the remainder (as msg.c) */
		v->field_len[k] = (size_t)(size / (uint64_t)fields + ((uint64_t)k < size % (uint64_t)fields));
		v->field_off[k] = (size_t)span;
		span += v->field_len[k] ? v->field_len[k] + 1 : 0;
	}
	/* span <= 2 x size (a byte of gap per byte at worst); the loop ends at the latest where
	 * the unit is a multiple of span (1-byte fields: span = 2 x size <= 128, 128 pages) */
	n = span >= VMS_UNIT_SPAN ? span : 8 * span;
	unit = (n + VMS_PAGE - 1) / VMS_PAGE * VMS_PAGE;
	while (unit / span * size * 2 < unit)
		unit += VMS_PAGE;
	unit_payload = unit / span * size;
	n = (in_flight + unit_payload - 1) / unit_payload + 1;
	v->span = (size_t)span;
	v->unit_len = (size_t)unit;
	v->per_unit = (int)(unit / span);
	v->nunits = (int)(n < 2 ? 2 : n);
	v->arena_len = (size_t)v->nunits * v->unit_len;
}

uint64_t vmsplice_ring_memory(uint64_t size, int fields, uint64_t in_flight)
{
	struct vms_state v;

	vms_geometry(&v, size, fields, in_flight);
	return v.arena_len;
}

/* The arena: mapped, every message's pattern written (its stamps at send time). */
static int vms_layout(struct vms_state *v, struct mctx *c)
{
	vms_geometry(v, c->size, c->fields, c->ring.in_flight);
	c->ring.ring_bytes = (uint64_t)(v->nunits - 1) * (uint64_t)v->per_unit * c->size;
	c->ring.memory = v->arena_len;
	v->arena = mmap(NULL, v->arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->arena == MAP_FAILED) {
		v->arena = NULL;
		err_set(c->err, "vmsplice: out of memory for its ring of %llu MiB (%llu MiB can be in flight)",
			(unsigned long long)(v->arena_len >> 20), (unsigned long long)(c->ring.in_flight >> 20));
		return -1;
	}
	for (int u = 0; u < v->nunits; u++)
		for (int p = 0; p < v->per_unit; p++) {
			struct iovec iov[MAX_FIELDS];
			uint64_t pos = 0;

			vms_iov(v, u, p, iov);
			for (int k = 0; k < v->nfields; k++) {
				pattern_fill(c->pat, pos, iov[k].iov_base, iov[k].iov_len);
				pos += iov[k].iov_len;
			}
		}
	return 0;
}

static void vms_free(struct vms_state *v)
{
	cpipe_close(&v->pipe);
	if (v->arena)
		munmap(v->arena, v->arena_len);
	free(v);
}

static int vms_open(struct mctx *c)
{
	struct vms_state *v = calloc(1, sizeof(*v));

	if (!v) {
		err_set(c->err, "out of memory");
		return -1;
	}
	v->pipe.r = v->pipe.w = -1;
	if (cpipe_open(&v->pipe, c->size, c->err) || vms_bound(c, v->pipe.cap) || vms_layout(v, c)) {
		vms_free(v);
		return -1;
	}
	c->ring_used = true;
	c->priv = v;
	return 0;
}

/* Stamp message `pos` of the current unit with `index`. */
static void vms_stamp(struct vms_state *v, const struct pattern *pat, int pos, uint64_t index)
{
	struct iovec iov[MAX_FIELDS];

	vms_iov(v, v->unit, pos, iov);
	pattern_stamp(pat, index, iov, v->nfields);
}

static int vms_send_msg(struct mctx *c, uint64_t index)
{
	struct vms_state *v = c->priv;
	struct iovec iov[MAX_FIELDS];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)v->nfields };
	size_t left = c->size;

	if (v->pos == 0) { /* a unit's first message: every stamp of the unit, while none is in flight */
		for (int p = 0; p < v->per_unit; p++)
			vms_stamp(v, c->pat, p, index + (uint64_t)p);
		v->first = index;
	} else if (index != v->first + (uint64_t)v->pos) { /* not the index foreseen: its own stamp */
		vms_stamp(v, c->pat, v->pos, index);
		v->first = index - (uint64_t)v->pos;
	}
	vms_iov(v, v->unit, v->pos, iov);
	while (left) {
		/* skip empty fields: vmsplice wants at least one byte */
		while (mh.msg_iovlen && mh.msg_iov->iov_len == 0) {
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		ssize_t n = vmsplice(v->pipe.w, mh.msg_iov, mh.msg_iovlen, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_sys(c->err, "vmsplice");
			return -1;
		}
		left -= (size_t)n;
		iov_advance(&mh, (size_t)n);
		/* SPLICE_F_MORE while the message continues, like MSG_MORE */
		if (cpipe_drain(&v->pipe, c->fd, NULL, (size_t)n, left > 0, c->err))
			return -1;
	}
	if (++v->pos == v->per_unit) {
		v->pos = 0;
		v->unit = (v->unit + 1) % v->nunits;
	}
	return 0;
}

static void vms_close(struct mctx *c)
{
	if (!c->priv)
		return;
	vms_free(c->priv);
	c->priv = NULL;
}

const struct method m_vmsplice = {
	.name = "vmsplice",
	.kinds = M_MSG,
	.summary = "vmsplice() the fields into a pipe, splice() the pipe into the socket",
	.open = vms_open,
	.send_msg = vms_send_msg,
	.close = vms_close,
};

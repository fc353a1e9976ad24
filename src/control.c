/* Control-connection framing and the session greeting (see control.h). */
#include "control.h"
#include "counters.h"
#include "pattern.h"

#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

const char *const mode_names[] = { "stream", "pingpong", NULL };
const char *const proto_names[] = { "tcp", "udp", NULL };

void ctl_init(struct ctl *c, int fd)
{
	c->fd = fd;
	c->have = 0;
}

int ctl_send(struct ctl *c, struct err *e, const char *fmt, ...)
{
	char line[sizeof(c->buf)];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1) {
		err_set(e, "control: line too long");
		return -1;
	}
	line[n++] = '\n';
	return write_full(c->fd, line, (size_t)n, e);
}

int ctl_recv(struct ctl *c, char *line, size_t len, int timeout_ms, struct err *e)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		char *nl = memchr(c->buf, '\n', c->have);
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		int64_t left;
		ssize_t n;

		if (nl) {
			size_t l = (size_t)(nl - c->buf);
			if (l >= len) {
				err_set(e, "control: line of %zu bytes is too long", l);
				return -1;
			}
			memcpy(line, c->buf, l);
			line[l] = 0;
			if (l && line[l - 1] == '\r')
				line[l - 1] = 0;
			c->have -= l + 1;
			memmove(c->buf, nl + 1, c->have);
			return 1;
		}
		if (c->have == sizeof(c->buf)) {
			err_set(e, "control: no newline in %zu bytes (not a copybench peer?)", c->have);
			return -1;
		}
		/* past the deadline (timeout_ms 0: at once) one last look reads what has arrived */
		left = (int64_t)(deadline - now_ns());
		if (poll(&pfd, 1, left > 0 ? (int)(left / 1000000 + 1) : 0) == 0) {
			err_set(e, "control: no answer within %d ms", timeout_ms);
			return CTL_TIMEOUT;
		}
		/* never blocks: a wait is poll's (interrupted, it is taken again until the deadline) */
		n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
				if (left <= 0) {
					err_set(e, "control: no answer within %d ms", timeout_ms);
					return CTL_TIMEOUT;
				}
				continue;
			}
			err_sys(e, "control: recv");
			return -1;
		}
		c->have += (size_t)n;
	}
}

int session_format(const struct session *s, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s proto=%s mode=%s threads=%d size=%llu record=%llu stamped=%d verify=%s seed=%llu counters=%s",
			 CTL_MAGIC, proto_names[s->proto], mode_names[s->mode], s->threads,
			 (unsigned long long)s->size, (unsigned long long)s->record, s->stamped ? 1 : 0,
			 verify_names[s->verify], (unsigned long long)s->seed, counter_set_names[s->counters]);
	/* optional, so a sink older than it still understands every other greeting */
	if (s->sockbuf && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " sockbuf=%llu", (unsigned long long)s->sockbuf);
	if (s->recv_size && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " recv=%llu", (unsigned long long)s->recv_size);
	return n;
}

bool token_valid(const char *t)
{
	size_t n = strlen(t);

	if (n < TOKEN_MIN || n > TOKEN_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
			return false;
	return true;
}

static int pick(const char *v, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static bool num(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	if (*v < '0' || *v > '9')
		return false;
	n = strtoull(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return false;
	*out = n;
	return true;
}

int session_parse(const char *line, struct session *s, char *why, size_t len)
{
	char copy[1024], *save = NULL, *tok;
	unsigned seen = 0;
	uint64_t n;

	if (strncmp(line, CTL_MAGIC " ", strlen(CTL_MAGIC) + 1)) {
		snprintf(why, len, "not a copybench greeting");
		return -1;
	}
	if (strlen(line) >= sizeof(copy)) {
		snprintf(why, len, "greeting too long");
		return -1;
	}
	strcpy(copy, line + strlen(CTL_MAGIC) + 1);
	memset(s, 0, sizeof(*s));
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		int v;
		if (!eq)
			goto bad;
		*eq++ = 0;
		if (!strcmp(tok, "proto") && (v = pick(eq, proto_names)) >= 0)
			s->proto = v, seen |= 1;
		else if (!strcmp(tok, "mode") && (v = pick(eq, mode_names)) >= 0)
			s->mode = v, seen |= 2;
		else if (!strcmp(tok, "threads") && num(eq, 1, MAX_THREADS, &n))
			s->threads = (int)n, seen |= 4;
		else if (!strcmp(tok, "size") && num(eq, 1, MAX_SIZE, &n))
			s->size = n, seen |= 8;
		else if (!strcmp(tok, "record") && num(eq, 1, MAX_SIZE, &n))
			s->record = n, seen |= 16;
		else if (!strcmp(tok, "stamped") && num(eq, 0, 1, &n))
			s->stamped = n, seen |= 32;
		else if (!strcmp(tok, "verify") && (v = pick(eq, verify_names)) >= 0)
			s->verify = v, seen |= 64;
		else if (!strcmp(tok, "seed") && num(eq, 0, UINT64_MAX, &n))
			s->seed = n, seen |= 128;
		else if (!strcmp(tok, "counters") && (v = pick(eq, counter_set_names)) >= 0)
			s->counters = v, seen |= 256;
		else if (!strcmp(tok, "sockbuf") && num(eq, 4096, 1 << 30, &n))
			s->sockbuf = n; /* optional: --sockbuf */
		else if (!strcmp(tok, "recv") && num(eq, RECV_SIZE_MIN, RECV_SIZE_MAX, &n))
			s->recv_size = n; /* optional: --recv-size */
		else if (!strcmp(tok, "token") && token_valid(eq))
			strcpy(s->token, eq); /* optional: only in runner-token mode */
		else
			goto bad;
		continue;
bad:
		snprintf(why, len, "bad greeting field '%.40s'", tok);
		return -1;
	}
	if (seen != 511) {
		snprintf(why, len, "greeting lacks fields (have mask 0x%x)", seen);
		return -1;
	}
	return 0;
}

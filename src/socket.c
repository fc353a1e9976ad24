/* Socket helpers (see socket.h). */
#include "socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

int sock_resolve(const char *arg, const char *host, int port, int socktype, struct sockaddr_storage *ss,
		 socklen_t *len, struct err *e)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = socktype }, *res;
	char portstr[16];
	int rc;

	snprintf(portstr, sizeof(portstr), "%d", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc) {
		err_set(e, "%s: cannot resolve '%s': %s", arg, host, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int sock_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
						((struct sockaddr_in *)&ss)->sin_port);
}

const char *sock_family_name(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &len) && getsockname(fd, (struct sockaddr *)&ss, &len))
		return "unknown";
	if (ss.ss_family == AF_INET6) {
		const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
		return IN6_IS_ADDR_V4MAPPED(a) ? "ipv4" : "ipv6";
	}
	return "ipv4";
}

/* what --bind may be, for its errors */
#define BIND_ALLOWED "(allowed: an IPv4 or IPv6 address of this host, e.g. :: (the default: every " \
	"address, IPv4 too), 0.0.0.0, 127.0.0.1 or ::1, or a name that resolves to one)"

int tcp_listen_on(const char *bind_host, int port, struct err *e)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct err re = { "" };
	int fd, one = 1, zero = 0;

	if (sock_resolve("--bind", bind_host, port, SOCK_STREAM, &ss, &len, &re)) {
		err_set(e, "%s %s", re.msg, BIND_ALLOWED);
		return LISTEN_BAD_BIND;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_sys(e, "socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6) /* "::" serves IPv4 too */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		int bad_bind = errno == EADDRNOTAVAIL; /* no local interface has this address */

		if (bad_bind)
			err_set(e, "--bind: %s is not an address of this host (bind: %s) %s", bind_host,
				strerror(errno), BIND_ALLOWED);
		else
			err_set(e, "--port: cannot bind %s port %d: %s", bind_host, port, strerror(errno));
		close(fd);
		return bad_bind ? LISTEN_BAD_BIND : -1;
	}
	if (listen(fd, 128)) {
		err_sys(e, "listen");
		close(fd);
		return -1;
	}
	return fd;
}

int sock_fix_buffer(int fd, bool send_side, uint64_t bytes, struct err *e)
{
	/* The kernel keeps twice the value set (the other half pays for sk_buff overhead) and
	 * reads that back, so half is asked for. Setting it sets SOCK_SNDBUF_LOCK/SOCK_RCVBUF_LOCK:
	 * TCP then never grows the buffer (tcp_sndbuf_expand, tcp_rcv_space_adjust check the
	 * lock). The FORCE option (CAP_NET_ADMIN) is not capped at net.core.wmem_max/rmem_max; the
	 * plain one, tried when it is refused, is, and the read-back check below says so. */
	int half = (int)(bytes / 2), got = 0;
	socklen_t len = sizeof(got);
	const char *name = send_side ? "SO_SNDBUF" : "SO_RCVBUF";

	if (setsockopt(fd, SOL_SOCKET, send_side ? SO_SNDBUFFORCE : SO_RCVBUFFORCE, &half, sizeof(half)) &&
	    (errno != EPERM ||
	     setsockopt(fd, SOL_SOCKET, send_side ? SO_SNDBUF : SO_RCVBUF, &half, sizeof(half)))) {
		err_sys(e, send_side ? "setsockopt(SO_SNDBUF)" : "setsockopt(SO_RCVBUF)");
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, send_side ? SO_SNDBUF : SO_RCVBUF, &got, &len)) {
		err_sys(e, send_side ? "getsockopt(SO_SNDBUF)" : "getsockopt(SO_RCVBUF)");
		return -1;
	}
	if ((uint64_t)got != bytes) { /* an odd size comes back one less: not what was asked */
		err_set(e, "--sockbuf %llu: the kernel kept %s at %d bytes (without CAP_NET_ADMIN it is "
			   "capped at net.core.%s_max)", (unsigned long long)bytes, name, got,
			send_side ? "wmem" : "rmem");
		return -1;
	}
	return 0;
}

int sock_buffer_kept(bool send_side, uint64_t bytes)
{
	struct err e = { 0 };
	int got = -1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(got);

	if (fd < 0)
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (sock_fix_buffer(fd, send_side, bytes, &e) == 0)
		got = (int)bytes;
	else if (getsockopt(fd, SOL_SOCKET, send_side ? SO_SNDBUF : SO_RCVBUF, &got, &len))
		got = -1;
	close(fd);
	return got;
}

int listen_like(int ref, int socktype, uint64_t rcvbuf, int *port_out, struct err *e)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd;

	if (getsockname(ref, (struct sockaddr *)&ss, &len)) {
		err_sys(e, "getsockname");
		return -1;
	}
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	else
		((struct sockaddr_in *)&ss)->sin_port = 0;
	fd = socket(ss.ss_family, socktype | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_sys(e, "socket");
		return -1;
	}
	/* before listen(): the window scale a connection offers is chosen from the receive
	 * buffer at its SYN, and accepted sockets inherit the listener's size and lock */
	if (rcvbuf && sock_fix_buffer(fd, false, rcvbuf, e)) {
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) || (socktype == SOCK_STREAM && listen(fd, MAX_THREADS))) {
		err_sys(e, "bind/listen data socket");
		close(fd);
		return -1;
	}
	*port_out = sock_port(fd);
	return fd;
}

int tcp_connect_to(const char *host, int port, int timeout_ms, struct err *e)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct pollfd pfd;
	int fd, rc, soerr = 0;
	socklen_t sl = sizeof(soerr);

	if (sock_resolve("--host", host, port, SOCK_STREAM, &ss, &len, e))
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err_sys(e, "socket");
		return -1;
	}
	rc = connect(fd, (struct sockaddr *)&ss, len);
	if (rc && errno == EINPROGRESS) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		rc = poll(&pfd, 1, timeout_ms);
		if (rc == 0) {
			err_set(e, "connect %s port %d: timed out after %d ms", host, port, timeout_ms);
			close(fd);
			return -1;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		rc = soerr ? -1 : 0;
		errno = soerr;
	}
	if (rc) {
		err_set(e, "connect %s port %d: %s", host, port, strerror(errno));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int udp_connect_to(const char *host, int port, struct err *e)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	if (sock_resolve("--host", host, port, SOCK_DGRAM, &ss, &len, e))
		return -1;
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_sys(e, "socket");
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		err_set(e, "connect udp %s port %d: %s", host, port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int set_timeout_ms(int fd, int which, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, which, &tv, sizeof(tv));
}

int write_full(int fd, const void *buf, size_t len, struct err *e)
{
	const char *p = buf;

	while (len) {
		/* write(), not send(): files too; main ignores SIGPIPE, so a gone peer is EPIPE */
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_sys(e, "write");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int read_full(int fd, void *buf, size_t len, struct err *e)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_sys(e, "recv");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

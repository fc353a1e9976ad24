/* Socket set-up and whole-buffer I/O. */
#ifndef COPYBENCH_SOCKET_H
#define COPYBENCH_SOCKET_H
#include "common.h"

#include <sys/socket.h>

enum proto { PROTO_TCP, PROTO_UDP };

/* getaddrinfo; its failure is named after the option `arg` that gave `host` */
int sock_resolve(const char *arg, const char *host, int port, int socktype, struct sockaddr_storage *ss,
		 socklen_t *len, struct err *e);
/* The sink's control listener on `bind_host` (--bind) and port (--port): the fd; -1 with e set;
 * LISTEN_BAD_BIND when --bind itself is wrong (not resolvable, or no address of this host),
 * e naming --bind and what it may be. */
#define LISTEN_BAD_BIND (-2)
int tcp_listen_on(const char *bind_host, int port, struct err *e);
/* listener on an ephemeral port at the local address of an existing socket; rcvbuf > 0: its
 * receive buffer fixed at that size before listen(), which accepted sockets inherit */
int listen_like(int fd, int socktype, uint64_t rcvbuf, int *port_out, struct err *e);
/* Fixes fd's send (SO_SNDBUF) or receive (SO_RCVBUF) buffer at `bytes` as getsockopt reads it
 * back, which turns TCP's autotuning of it off; -1 with e set when the kernel kept another size. */
int sock_fix_buffer(int fd, bool send_side, uint64_t bytes, struct err *e);
/* What this kernel keeps when a TCP socket's send (or receive) buffer is fixed at `bytes`, asked
 * of a socket made for the question (sock_fix_buffer's own setsockopt and read-back): `bytes`
 * when it honours it; its smallest buffer (SOCK_MIN_SNDBUF, 4608 bytes on x86-64) or, without
 * CAP_NET_ADMIN, net.core.{w,r}mem_max when not; -1 when no socket could be made to ask. */
int sock_buffer_kept(bool send_side, uint64_t bytes);
int tcp_connect_to(const char *host, int port, int timeout_ms, struct err *e);
int udp_connect_to(const char *host, int port, struct err *e);
int sock_port(int fd);
const char *sock_family_name(int fd); /* "ipv4" | "ipv6" */
int set_timeout_ms(int fd, int which, int ms);   /* SO_RCVTIMEO / SO_SNDTIMEO */
int write_full(int fd, const void *buf, size_t len, struct err *e); /* socket or file */
/* 1 = filled, 0 = EOF before len bytes, -1 = error */
int read_full(int fd, void *buf, size_t len, struct err *e);
#endif

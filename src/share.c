/* `send --share-time`: the sender's turn-taking between its two connections (share.h). The
 * timing thread moves the turn at each edge; a sender thread checks it before each message,
 * so the message in flight at an edge completes in the turn it began in, and the next turn's
 * thread starts only once the previous one has released (only one connection sends at a
 * time). The waiting thread sleeps on a condition variable, not a spin: on a 2-CPU machine a
 * spinning thread would take the CPU its own receiver or the other sender needs. */
#include "share.h"
#include "counters.h"

#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

const char *const share_order_names[] = { "AB", "BA", NULL };

void share_init(struct share *sh, int first, int64_t k0)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&sh->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh->cv, &ca);
	pthread_condattr_destroy(&ca);
	sh->first = first;
	sh->k = k0;
	sh->holder = -1;
	atomic_init(&sh->turn, share_conn_of(k0, first));
}

void share_switch(struct share *sh, int64_t k, uint64_t now)
{
	pthread_mutex_lock(&sh->mu);
	sh->k = k;
	if (k >= 0 && k < SHARE_MAX_TURNS)
		sh->edge_ns[k] = now;
	atomic_store_explicit(&sh->turn, share_conn_of(k, sh->first), memory_order_relaxed);
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
}

void share_wake(struct share *sh)
{
	pthread_mutex_lock(&sh->mu);
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
}

static int64_t cwnd_now(int fd, int64_t *unacked)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) || len < offsetof(struct tcp_info, tcpi_snd_cwnd) + 4) {
		if (unacked)
			*unacked = -1;
		return -1;
	}
	if (unacked)
		*unacked = ti.tcpi_unacked;
	return ti.tcpi_snd_cwnd;
}

/* SIOCOUTQ: bytes in the send queue not yet acknowledged (sent or not); SIOCOUTQNSD: not yet
 * sent (tcp(7)) */
static int64_t queued(int fd, unsigned long req)
{
	int n;

	return ioctl(fd, req, &n) ? -1 : n;
}

static void open_turn(struct share_conn *c, uint64_t t, uint64_t bytes, int64_t k)
{
	struct share_turn *tr;

	if (c->nturns >= SHARE_MAX_TURNS || k < 0)
		return;
	tr = &c->turn[c->nturns];
	*tr = (struct share_turn){ .k = (int)k, .start_ns = t, .start_bytes = bytes, .cwnd_resume = -1,
				   .cwnd_first = -1, .cwnd_release = -1, .outq_resume = -1,
				   .outq_release = -1, .notsent_release = -1, .unacked_release = -1 };
	c->open = true;
}

static void close_turn(struct share_conn *c, uint64_t t, uint64_t bytes)
{
	if (!c->open)
		return;
	c->turn[c->nturns].end_ns = t;
	c->turn[c->nturns].end_bytes = bytes;
	c->nturns++;
	c->open = false;
}

void share_window_start(struct share_conn *c, const struct meter *m)
{
	if (c->window_seen || !m->have_start)
		return;
	c->window_seen = true;
	/* the window opened while this thread held the turn (its start snapshot was taken at
	 * its first message boundary after the start signal): its turn from there. A turn that
	 * moved before that snapshot is released at once, with none of the window's bytes. */
	if (share_mine(c)) {
		pthread_mutex_lock(&c->sh->mu);
		open_turn(c, m->start.t_ns, m->start.bytes, c->sh->k);
		pthread_mutex_unlock(&c->sh->mu);
	}
}

void share_after_message(struct share_conn *c)
{
	if (!c->cwnd_first_due)
		return;
	c->cwnd_first_due = false;
	if (c->open)
		c->turn[c->nturns].cwnd_first = cwnd_now(c->fd, NULL);
}

int share_wait(struct share_conn *c, struct meter *m, const _Atomic int *phase)
{
	struct share *sh = c->sh;

	if (c->holding) {
		/* its turn ended: what it leaves queued, read before it lets the other send */
		if (c->open) {
			struct share_turn *tr = &c->turn[c->nturns];
			tr->outq_release = queued(c->fd, SIOCOUTQ);
			tr->notsent_release = queued(c->fd, SIOCOUTQNSD);
			tr->cwnd_release = cwnd_now(c->fd, &tr->unacked_release);
			close_turn(c, now_ns(), meter_bytes(m));
		}
		pthread_mutex_lock(&sh->mu);
		c->holding = false;
		sh->holder = -1;
		pthread_cond_broadcast(&sh->cv);
		pthread_mutex_unlock(&sh->mu);
	}
	for (;;) {
		bool mine;

		if (meter_tick(m, phase)) /* the stop signal: the end snapshot is taken */
			return 1;
		if (m->have_start)
			c->window_seen = true; /* the window opened while it waited: nothing to record */
		pthread_mutex_lock(&sh->mu);
		while (atomic_load(phase) == m->seen &&
		       !(atomic_load_explicit(&sh->turn, memory_order_relaxed) == c->index && sh->holder < 0))
			pthread_cond_wait(&sh->cv, &sh->mu);
		mine = atomic_load(phase) == m->seen && sh->holder < 0 &&
		       atomic_load_explicit(&sh->turn, memory_order_relaxed) == c->index;
		if (mine) {
			sh->holder = c->index;
			c->holding = true;
			c->k_held = sh->k;
		}
		pthread_mutex_unlock(&sh->mu);
		if (mine)
			return 0;
		/* woken by a phase change: take its snapshot (above), then wait on */
	}
}

void share_resumed(struct share_conn *c, struct meter *m, const _Atomic int *phase,
		   uint64_t reaped)
{
	if (atomic_load(phase) != PHASE_MEASURE || !m->have_start)
		return; /* the warm-up's turns are not recorded (share_window_start opens one) */
	open_turn(c, now_ns(), meter_bytes(m), c->k_held);
	if (!c->open)
		return;
	c->turn[c->nturns].zc_reaped = reaped;
	/* after a pause of the other's turn: its window (a restart after idle would show here,
	 * and after the first message) and what is left of its own last turn's queue */
	c->turn[c->nturns].cwnd_resume = cwnd_now(c->fd, NULL);
	c->turn[c->nturns].outq_resume = queued(c->fd, SIOCOUTQ);
	c->cwnd_first_due = true;
}

void share_done(struct share_conn *c, const struct meter *m)
{
	if (c->open && m->have_end) {
		struct share_turn *tr = &c->turn[c->nturns];
		tr->outq_release = queued(c->fd, SIOCOUTQ);
		tr->notsent_release = queued(c->fd, SIOCOUTQNSD);
		tr->cwnd_release = cwnd_now(c->fd, &tr->unacked_release);
		close_turn(c, m->end.t_ns, m->end.bytes);
	}
}

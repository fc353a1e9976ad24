/* `splice2` ("dual pipe", claim C14): two threads, two pipes, each thread moving half of
 * the file. File -> file: each thread splices its own contiguous half, at explicit offsets,
 * in parallel. File -> socket: a stream must stay in order, so the file is cut into 1 MiB
 * chunks taken alternately; a thread fills its pipe from its next chunk while the other
 * thread's pipe drains into the socket, and pipes drain strictly in chunk order. */
#include "method.h"
#include "pipe.h"

#include <pthread.h>
#include <stdlib.h>

struct sp2 {
	struct mctx *c;
	struct cpipe pipe[2];
	pthread_t helper;
	bool helper_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t gen, done_gen;   /* pass generation started / finished by the helper */
	uint64_t turn;            /* socket: the chunk whose pipe may drain next */
	_Atomic bool stop;
	bool quit, failed;
	struct pass *pass;
	struct err herr;          /* the helper's error */
};

/* One thread's share of a pass: worker 0 (caller) or 1 (helper). */
static int sp2_share(struct sp2 *s, int w, struct meter *m, struct err *e)
{
	struct mctx *c = s->c;
	struct cpipe *pp = &s->pipe[w];
	uint64_t size = c->file_size;

	if (c->dst_file) { /* file -> file: contiguous halves, in parallel */
		uint64_t half = size / 2, lo = w ? half : 0, hi = w ? size : half;
		loff_t in = (loff_t)lo, out = (loff_t)lo;

		while ((uint64_t)in < hi && !s->stop) {
			ssize_t n = splice(c->src_fd, &in, pp->w, NULL, chunk_at((uint64_t)in, hi, pp->cap),
					   SPLICE_F_MOVE);
			if (n <= 0) {
				err_set(e, "splice(%s -> pipe %d): %s", c->src_path, w, n ? strerror(errno) : "no progress");
				return -1;
			}
			if (cpipe_drain(pp, c->fd, &out, (size_t)n, false, e))
				return -1;
			if (s->pass->progress(s->pass, m, (uint64_t)n))
				s->stop = true;
		}
		return 0;
	}
	/* file -> socket: chunks w, w+2, w+4, ... drained in order */
	for (uint64_t k = (uint64_t)w;; k += 2) {
		loff_t in = (loff_t)(k * pp->cap);
		size_t len;
		ssize_t n;

		if ((uint64_t)in >= size)
			break;
		len = chunk_at((uint64_t)in, size, pp->cap);
		for (size_t got = 0; got < len; got += (size_t)n) {
			n = splice(c->src_fd, &in, pp->w, NULL, len - got, SPLICE_F_MOVE);
			if (n <= 0) {
				err_set(e, "splice(%s -> pipe %d): %s", c->src_path, w, n ? strerror(errno) : "no progress");
				return -1;
			}
		}
		pthread_mutex_lock(&s->mu);
		while (s->turn != k && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		pthread_mutex_unlock(&s->mu);
		if (s->stop)
			break;
		if (cpipe_drain(pp, c->fd, NULL, len, (uint64_t)in < size, e))
			return -1;
		pthread_mutex_lock(&s->mu);
		s->turn = k + 1;
		if (s->pass->progress(s->pass, m, len))
			s->stop = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return 0;
}

static void fail(struct sp2 *s)
{
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	s->failed = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void *helper_main(void *arg)
{
	struct sp2 *s = arg;
	struct meter *m = s->c->helper_meter;
	uint64_t seen = 0;

	meter_open(m, s->c->counters);
	meter_set_socket(m, -1, false, "splice2's second thread: a socket's state is its first thread's");
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->gen == seen && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		seen = s->gen;
		pthread_mutex_unlock(&s->mu);
		if (s->quit)
			break;
		if (sp2_share(s, 1, m, &s->herr))
			fail(s);
		pthread_mutex_lock(&s->mu);
		s->done_gen = seen;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	meter_transition(m, PHASE_STOP); /* close this thread's window before it ends */
	return NULL;
}

static int sp2_open(struct mctx *c)
{
	struct sp2 *s = calloc(1, sizeof(*s));
	int rc;

	if (!s) {
		err_set(c->err, "out of memory");
		return -1;
	}
	s->c = c;
	s->pipe[0].r = s->pipe[0].w = s->pipe[1].r = s->pipe[1].w = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	c->priv = s;
	if (cpipe_open(&s->pipe[0], FILE_CHUNK, c->err) || cpipe_open(&s->pipe[1], FILE_CHUNK, c->err))
		return -1;
	if (s->pipe[0].cap != s->pipe[1].cap) {
		err_set(c->err, "splice2: the two pipes got different sizes");
		return -1;
	}
	rc = pthread_create(&s->helper, NULL, helper_main, s);
	if (rc) {
		err_set(c->err, "pthread_create: %s", strerror(rc));
		return -1;
	}
	s->helper_started = true;
	return 0;
}

static int sp2_pass(struct mctx *c, struct pass *p)
{
	struct sp2 *s = c->priv;
	int rc;

	pthread_mutex_lock(&s->mu);
	s->pass = p;
	s->stop = false;
	s->turn = 0;
	s->gen++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);

	rc = sp2_share(s, 0, p->meter, c->err);
	if (rc)
		fail(s);
	pthread_mutex_lock(&s->mu);
	while (s->done_gen != s->gen)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	if (s->failed) {
		if (!rc)
			err_set(c->err, "%s", s->herr.msg);
		return -1;
	}
	return 0;
}

static void sp2_close(struct mctx *c)
{
	struct sp2 *s = c->priv;

	if (!s)
		return;
	if (s->helper_started) {
		pthread_mutex_lock(&s->mu);
		s->quit = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->helper, NULL);
		meter_close(c->helper_meter);
	}
	cpipe_close(&s->pipe[0]);
	cpipe_close(&s->pipe[1]);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
	c->priv = NULL;
}

const struct method m_splice2 = {
	.name = "splice2",
	.kinds = M_FILE_SOCK | M_FILE_FILE,
	.summary = "two threads, two pipes, each moving half of the file (\"dual pipe\")",
	.open = sp2_open,
	.pass = sp2_pass,
	.close = sp2_close,
};

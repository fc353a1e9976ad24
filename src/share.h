/* `send --share-time M`: two connections to one sink session, one per method (connection 0
 * sends --method, connection 1 sends M), each with its own sender thread and receiving thread,
 * taking turns of a fixed period (SHARE_PERIOD_NS, whatever the window) through the warm-up
 * and the measured window. Only the connection whose turn it is sends; the other waits on a
 * condition variable (share.c). The sink slices each connection's received bytes on its own
 * clock and credits each method only its own connection's bytes, outside a guard interval
 * after every switch that it measures (sharesum.c). src/README.md, "Shared time". */
#ifndef COPYBENCH_SHARE_H
#define COPYBENCH_SHARE_H
#include "common.h"
#include "json.h"

#include <pthread.h>
#include <stdatomic.h>

#define SHARE_CONNS 2
#define SHARE_PERIOD_NS 100000000ull  /* one turn: 100 ms, whatever the window */
/* The sink samples each connection's running total every grain: 50 per turn, so a guard is
 * measured to 2 ms (src/README.md, "Shared time") */
#define SHARE_GRAIN_NS 2000000ull
#define SHARE_GRAINS_PER_TURN ((int)(SHARE_PERIOD_NS / SHARE_GRAIN_NS))
/* The measured window holds at most this many turns (its per-turn figures are bounded, as
 * the sink's control line is); the window is at least two turns long, one per connection */
#define SHARE_MAX_TURNS 60
#define SHARE_MIN_DURATION_S 0.2
#define SHARE_MAX_DURATION_S 6.0
#define SHARE_MAX_GRAINS (SHARE_MAX_TURNS * SHARE_GRAINS_PER_TURN)

/* which connection has the window's first turn: AB = --method's (0), BA = M's (1) */
enum share_order { SHARE_AB, SHARE_BA };
extern const char *const share_order_names[]; /* "AB", "BA" */

/* The connection whose turn j is: the window's turns are j = 0, 1, ...; the warm-up's are
 * counted back from the window's start (j = -1, -2, ...), so the two alternate without a
 * break from the warm-up into the window. `first` holds the even turns. */
static inline int share_conn_of(int64_t j, int first)
{
	return (int)(((j % 2) + 2) % 2) ^ first;
}

/* The turn-taking both sender threads and the timing thread share (share.c). */
struct share {
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a switch, a phase change, a release */
	_Atomic int turn;           /* the connection whose turn it is (the workers' hot check) */
	int holder;                 /* the connection sending now; -1: none (under mu) */
	int first;                  /* the window's first turn's connection */
	int64_t k;                  /* the turn now (window-relative; < 0 in the warm-up; under mu) */
	uint64_t edge_ns[SHARE_MAX_TURNS]; /* when the timing thread began window turn k */
};

/* One of a connection's own turns in the measured window, as its sender thread saw it. The
 * socket fields are read by the thread itself (-1: could not be read): at its resume (before
 * its first message) and just after its first message, and at its release (after its last). */
struct share_turn {
	int k;                          /* the window's turn */
	uint64_t start_ns, end_ns;      /* resume (or the window's start), release (or its end) */
	uint64_t start_bytes, end_bytes;/* the thread's running total then */
	int64_t cwnd_resume, cwnd_first, cwnd_release;  /* tcpi_snd_cwnd (segments) */
	int64_t outq_resume, outq_release;              /* SIOCOUTQ: queued, not yet acknowledged */
	int64_t notsent_release;                        /* SIOCOUTQNSD: queued, not yet sent */
	int64_t unacked_release;                        /* tcpi_unacked (segments) */
	uint64_t zc_reaped;             /* MSG_ZEROCOPY completions read at its resume */
};

/* One connection's part (its sender thread writes it; read after the join). */
struct share_conn {
	int index;                      /* 0: --method, 1: M */
	struct share *sh;
	int fd;
	bool holding;                   /* this thread holds the turn (may send) */
	bool window_seen;               /* it has acted on the window's start */
	bool open;                      /* turn[nturns] is being recorded */
	bool cwnd_first_due;            /* read snd_cwnd after the turn's first message */
	int64_t k_held;                 /* the turn it took last */
	int nturns;
	struct share_turn turn[SHARE_MAX_TURNS];
};

void share_init(struct share *sh, int first, int64_t k0);
/* The timing thread: turn k begins now (k >= 0: a window turn, its edge recorded). */
void share_switch(struct share *sh, int64_t k, uint64_t now);
/* A phase change or a failure: wake a waiting thread so it sees it. */
void share_wake(struct share *sh);

/* A worker, before each message: whether it may send now (the hot check: one relaxed load). */
static inline bool share_mine(const struct share_conn *c)
{
	return c->holding && atomic_load_explicit(&c->sh->turn, memory_order_relaxed) == c->index;
}
struct meter;
/* A worker that may not send: release the turn if it held it (its turn record closed, the
 * socket read), then wait for its next turn or the stop signal, taking the meter's snapshots
 * at the phase changes it wakes for. 0: it holds the turn now (the caller reaps MSG_ZEROCOPY
 * completions and then calls share_resumed); 1: the trial stopped. */
int share_wait(struct share_conn *c, struct meter *m, const _Atomic int *phase);
/* After taking the turn and reaping `reaped` completions: open its turn record. */
void share_resumed(struct share_conn *c, struct meter *m, const _Atomic int *phase,
		   uint64_t reaped);
/* After each meter_tick: the window's start while holding the turn opens a record. */
void share_window_start(struct share_conn *c, const struct meter *m);
/* After each message: the turn's first message reads snd_cwnd. */
void share_after_message(struct share_conn *c);
/* The thread is done (stopped): close a record still open at its end snapshot. */
void share_done(struct share_conn *c, const struct meter *m);

/* The sink's side: each connection's running received total sampled every grain from MEASURE
 * (sharesum.c). t[i] the sample times, bytes[c][i] the totals; grain i runs from sample i to
 * i + 1 and belongs to turn i / SHARE_GRAINS_PER_TURN; the last sample is STOP's. */
struct share_series {
	int n;                          /* samples (grains + 1) */
	int first;
	uint64_t t[SHARE_MAX_GRAINS + 1];
	uint64_t bytes[SHARE_CONNS][SHARE_MAX_GRAINS + 1];
	/* each connection's unread bytes (SIOCINQ) at each turn's first sample; -1: unknown */
	int64_t inq[SHARE_CONNS][SHARE_MAX_TURNS];
};

struct share_rate {                 /* one connection's window at the sink */
	uint64_t bytes;                 /* received in the window (every grain) */
	uint64_t own_bytes;             /* ... in its own turns */
	uint64_t other_bytes;           /* ... in the other's turns: what was queued at a switch */
	uint64_t guarded_bytes;         /* ... in its own turns' guards (counted for neither) */
	uint64_t counted_bytes;         /* ... in its own turns after the guard: its rate's bytes */
	double own_s, counted_s;
	double gbit_per_s;              /* counted_bytes over counted_s; NaN without rates */
};

struct share_summary {
	int turns;                      /* turns the window reached (the last may be partial) */
	int first;
	int conn[SHARE_MAX_TURNS];      /* each turn's connection */
	double turn_s[SHARE_MAX_TURNS]; /* each turn's length on the sink's clock */
	uint64_t turn_bytes[SHARE_CONNS][SHARE_MAX_TURNS]; /* each connection's bytes in each turn */
	/* the other connection's bytes in turn k: at its start, the previous turn's queue still
	 * arriving (drain_s: to the end of its last such grain in the turn's first half); at
	 * its end, the next turn's first bytes arriving before the sink's edge (lead_s: from the
	 * start of the first such grain in its second half). 0: none. */
	double drain_s[SHARE_MAX_TURNS], lead_s[SHARE_MAX_TURNS];
	int64_t inq[SHARE_CONNS][SHARE_MAX_TURNS]; /* unread at the turn's start (the series') */
	/* the guard, in whole grains: the longest drain at every turn's start and the longest
	 * lead at every switched turn's end, counted for neither method */
	int guard_start_grains, guard_end_grains;
	double guard_start_s, guard_end_s, grain_s, period_s;
	bool have_rates;
	char why[160];                  /* !have_rates: why */
	struct share_rate c[SHARE_CONNS];
};

/* Each connection's figures from a series (pure: unit-tested). */
void share_summarize(const struct share_series *s, struct share_summary *out);
void share_summary_json(struct json *j, const char *key, const struct share_summary *s);
#endif

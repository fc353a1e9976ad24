/* `send --share-time` at the sink: each connection's rate from its own received bytes, sliced
 * on the sink's own clock (share.h). The turns are the sender's period counted from MEASURE
 * as the sink read it. The other connection may receive inside a turn at both of its ends:
 * at its start, what it had queued when its own turn ended (its receive queue, mostly, on
 * one host); at its end, its next turn's first bytes, which arrive before the sink reads its
 * edge (the sink's edges lag the sender's switches by the control line's transit and the
 * sampling's lateness). The longest of each over the window, in whole grains, is the guard:
 * every turn's start and every switched turn's end are counted for neither method, so a
 * method's rate is its own connection's bytes while the other received nothing. Bytes are
 * never moved between connections: what a connection receives in the other's turns is
 * recorded (other_bytes) and credited to no rate. */
#include "share.h"

#include <math.h>

static int grain_turn(int i)
{
	return i / SHARE_GRAINS_PER_TURN;
}

/* turn k's grains: [k * per, min((k + 1) * per, grains)) */
static int turn_end(int k, int grains)
{
	int e = (k + 1) * SHARE_GRAINS_PER_TURN;
	return e < grains ? e : grains;
}

static bool received_in(const struct share_series *s, int c, int i)
{
	return s->bytes[c][i + 1] > s->bytes[c][i];
}

/* The grains of a run of connection c's receiving from grain `from` toward `to` (exclusive;
 * dir 1 forward, -1 back): it goes on over grains with bytes, grains of no time and single
 * empty grains between two with bytes, and ends at the last grain with bytes. */
static int run_from(const struct share_series *s, int c, int from, int to, int dir)
{
	int len = 0;

	for (int i = from; i != to; i += dir) {
		if (received_in(s, c, i))
			len = (i - from) * dir + 1;
		else if (s->t[i + 1] != s->t[i] && !(i + dir != to && received_in(s, c, i + dir)))
			break;
	}
	return len;
}

void share_summarize(const struct share_series *s, struct share_summary *out)
{
	int grains = s->n - 1;

	memset(out, 0, sizeof(*out));
	out->first = s->first;
	out->grain_s = (double)SHARE_GRAIN_NS / 1e9;
	out->period_s = (double)SHARE_PERIOD_NS / 1e9;
	for (int c = 0; c < SHARE_CONNS; c++)
		out->c[c].gbit_per_s = NAN;
	if (grains < 1) {
		snprintf(out->why, sizeof(out->why), "the sink sampled no grain of the window");
		return;
	}
	out->turns = grain_turn(grains - 1) + 1;
	for (int i = 0; i < grains; i++) {
		int k = grain_turn(i), own = share_conn_of(k, s->first);
		double dt = (double)(s->t[i + 1] - s->t[i]) / 1e9;

		out->conn[k] = own;
		out->turn_s[k] += dt;
		for (int c = 0; c < SHARE_CONNS; c++) {
			uint64_t b = s->bytes[c][i + 1] - s->bytes[c][i];
			out->turn_bytes[c][k] += b;
			out->c[c].bytes += b;
			if (c == own) {
				out->c[c].own_bytes += b;
				out->c[c].own_s += dt;
			} else {
				out->c[c].other_bytes += b;
			}
		}
	}
	/* the other connection's bytes in each turn: from its start, a drain (what it had
	 * queued); to its end, a lead (its next turn's first bytes, which arrive before the sink
	 * reads its edge: the control line's transit and the sampling's lateness). Each is the run
	 * of grains in which the other received, from the turn's start or back from its end (a
	 * grain of no time, a late sample's, and one empty grain do not end a run), and any
	 * other byte left between the two runs joins the nearer one, so no grain outside the
	 * guards holds one. */
	for (int k = 0; k < out->turns; k++) {
		int other = !share_conn_of(k, s->first), start = k * SHARE_GRAINS_PER_TURN;
		int end = turn_end(k, grains), head = run_from(s, other, start, end, 1);
		int tail = end - start > head ? run_from(s, other, end - 1, start + head - 1, -1) : 0;
		int mid = start + head + (end - start - head - tail + 1) / 2;

		for (int i = start + head; i < end - tail; i++)
			if (s->bytes[other][i + 1] > s->bytes[other][i]) {
				if (i < mid)
					head = i - start + 1;
				else
					tail = tail > end - i ? tail : end - i;
			}
		if (head + tail > end - start)
			tail = end - start - head;
		out->drain_s[k] = head ? (double)(s->t[start + head] - s->t[start]) / 1e9 : 0;
		out->lead_s[k] = tail ? (double)(s->t[end] - s->t[end - tail]) / 1e9 : 0;
		if (head > out->guard_start_grains)
			out->guard_start_grains = head;
		if (tail > out->guard_end_grains)
			out->guard_end_grains = tail;
		for (int c = 0; c < SHARE_CONNS; c++)
			out->inq[c][k] = s->inq[c][k];
	}
	out->guard_start_s = out->guard_start_grains * out->grain_s;
	out->guard_end_s = out->guard_end_grains * out->grain_s;
	if (out->guard_start_grains + out->guard_end_grains >= SHARE_GRAINS_PER_TURN) {
		snprintf(out->why, sizeof(out->why), "the other connection received in every part of a "
			 "turn (guards %.0f + %.0f ms of a %.0f ms turn): no part of a turn is one method's "
			 "alone", out->guard_start_s * 1e3, out->guard_end_s * 1e3, out->period_s * 1e3);
		return;
	}
	for (int i = 0; i < grains; i++) {
		int k = grain_turn(i), own = share_conn_of(k, s->first), at = i - k * SHARE_GRAINS_PER_TURN;
		uint64_t b = s->bytes[own][i + 1] - s->bytes[own][i];
		/* a turn cut by the window's end has no switch after it: no end guard */
		bool switched = turn_end(k, grains) - k * SHARE_GRAINS_PER_TURN == SHARE_GRAINS_PER_TURN;

		if (at < out->guard_start_grains ||
		    (switched && at >= SHARE_GRAINS_PER_TURN - out->guard_end_grains)) {
			out->c[own].guarded_bytes += b;
			continue;
		}
		out->c[own].counted_bytes += b;
		out->c[own].counted_s += (double)(s->t[i + 1] - s->t[i]) / 1e9;
	}
	for (int c = 0; c < SHARE_CONNS; c++)
		if (!(out->c[c].counted_s > 0)) {
			snprintf(out->why, sizeof(out->why), "connection %d had no time of its own after the "
				 "guard (a window of %d turns)", c, out->turns);
			return;
		}
	for (int c = 0; c < SHARE_CONNS; c++)
		out->c[c].gbit_per_s = (double)out->c[c].counted_bytes * 8 / out->c[c].counted_s / 1e9;
	out->have_rates = true;
}

static void doubles(struct json *j, const char *key, const double *v, int n)
{
	json_begin_array(j, key);
	for (int i = 0; i < n; i++)
		json_double(j, NULL, v[i]);
	json_end_array(j);
}

void share_summary_json(struct json *j, const char *key, const struct share_summary *s)
{
	json_begin(j, key);
	json_double(j, "period_s", s->period_s);
	json_double(j, "grain_s", s->grain_s);
	json_i64(j, "turns", s->turns);
	json_begin_array(j, "turn_connections");
	for (int k = 0; k < s->turns; k++)
		json_i64(j, NULL, s->conn[k]);
	json_end_array(j);
	doubles(j, "turn_s", s->turn_s, s->turns);
	json_begin_array(j, "turn_bytes");
	for (int c = 0; c < SHARE_CONNS; c++) {
		json_begin_array(j, NULL);
		for (int k = 0; k < s->turns; k++)
			json_u64(j, NULL, s->turn_bytes[c][k]);
		json_end_array(j);
	}
	json_end_array(j);
	doubles(j, "drain_s", s->drain_s, s->turns);
	doubles(j, "lead_s", s->lead_s, s->turns);
	json_begin_array(j, "inq_bytes");
	for (int c = 0; c < SHARE_CONNS; c++) {
		json_begin_array(j, NULL);
		for (int k = 0; k < s->turns; k++)
			s->inq[c][k] >= 0 ? json_i64(j, NULL, s->inq[c][k]) : json_null(j, NULL);
		json_end_array(j);
	}
	json_end_array(j);
	json_double(j, "guard_start_s", s->guard_start_s);
	json_double(j, "guard_end_s", s->guard_end_s);
	json_begin_array(j, "connections");
	for (int c = 0; c < SHARE_CONNS; c++) {
		const struct share_rate *r = &s->c[c];
		json_begin(j, NULL);
		json_u64(j, "bytes", r->bytes);
		json_u64(j, "own_bytes", r->own_bytes);
		json_u64(j, "other_bytes", r->other_bytes);
		json_u64(j, "guarded_bytes", r->guarded_bytes);
		json_u64(j, "counted_bytes", r->counted_bytes);
		json_double(j, "own_s", r->own_s);
		json_double(j, "counted_s", r->counted_s);
		json_double(j, "gbit_per_s", s->have_rates ? r->gbit_per_s : NAN);
		json_end(j);
	}
	json_end_array(j);
	json_str(j, "rates_unavailable", s->have_rates ? NULL : s->why);
	json_end(j);
}

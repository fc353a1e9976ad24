/* Printing of the trial record and its one-line summary. */
#include "record.h"

static void print_config(struct json *j, const struct record *r)
{
	json_begin(j, "config");
	json_str(j, "command", r->command);
	json_str(j, "method", r->method);
	json_str(j, "mode", r->mode);
	json_str(j, "protocol", r->protocol);
	json_str(j, "host", r->host);
	if (r->port)
		json_i64(j, "port", r->port);
	else
		json_null(j, "port");
	json_str(j, "family", r->family);
	json_u64(j, "size", r->size);
	if (r->file_size)
		json_u64(j, "file_size", r->file_size);
	else
		json_null(j, "file_size");
	json_i64(j, "fields", r->fields);
	if (r->sockbuf) /* both ends' buffers fixed (autotuning off); null: the kernel autotunes */
		json_u64(j, "sockbuf", r->sockbuf);
	else
		json_null(j, "sockbuf");
	json_str(j, "alternate", r->alternate); /* null: one method for the whole window */
	json_str(j, "share_time", r->share_time); /* null: one connection per method's trial */
	json_str(j, "share_order", r->share_order);
	json_i64(j, "threads", r->threads);
	json_begin_array(j, "cpus_sender");
	for (int i = 0; r->cpus_sender && i < r->cpus_sender->n; i++)
		json_i64(j, NULL, r->cpus_sender->cpu[i]);
	json_end_array(j);
	json_double(j, "duration_s", r->duration_s);
	json_double(j, "warmup_s", r->warmup_s);
	json_str(j, "verify", r->verify);
	json_str(j, "counters", r->counters);
	json_u64(j, "seed", r->seed);
	json_str(j, "cache", r->cache);
	json_str(j, "file", r->file);
	json_bool(j, "no_sink", r->no_sink);
	json_end(j);
}

static void print_rtt(struct json *j, const struct histo *h)
{
	if (!h || !h->count) {
		json_null(j, "rtt_ns");
		return;
	}
	json_begin(j, "rtt_ns");
	json_u64(j, "p50", histo_quantile(h, 0.50));
	json_u64(j, "p90", histo_quantile(h, 0.90));
	json_u64(j, "p99", histo_quantile(h, 0.99));
	json_u64(j, "p999", histo_quantile(h, 0.999));
	json_u64(j, "max", h->max);
	json_double(j, "mean", (double)h->sum / (double)h->count);
	json_u64(j, "count", h->count);
	json_end(j);
}

static void print_window(struct json *j, const struct window_check *w)
{
	if (!w->judged) {
		json_null(j, "window");
		return;
	}
	json_begin(j, "window");
	json_double(j, "asked_s", w->asked_s);
	json_double(j, "measured_s", w->measured_s);
	json_double(j, "min_s", w->asked_s * WINDOW_MIN_RATIO);
	json_double(j, "max_s", w->asked_s * WINDOW_MAX_RATIO);
	json_bool(j, "missed", w->missed);
	json_str(j, "why", w->missed ? w->why : NULL);
	json_end(j);
}

/* "17 µs", "3.2 ms", "1.25 s" */
static void fmt_seconds(char *buf, size_t len, double s)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0f µs", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else
		snprintf(buf, len, "%.3g s", s);
}

void record_judge_window(struct record *r, struct err *e)
{
	struct window_check *w = &r->window;
	const struct side_totals *s = &r->sender;
	char got[32], asked[32], lo[32], hi[32];

	*w = (struct window_check){ 0 };
	if (!r->have_result)
		return;
	w->judged = true;
	w->asked_s = r->duration_s;
	w->measured_s = s->threads ? (double)(s->t_last_ns - s->t_first_ns) / 1e9 : 0;
	fmt_seconds(got, sizeof(got), w->measured_s);
	fmt_seconds(asked, sizeof(asked), w->asked_s);
	fmt_seconds(lo, sizeof(lo), w->asked_s * WINDOW_MIN_RATIO);
	fmt_seconds(hi, sizeof(hi), w->asked_s * WINDOW_MAX_RATIO);
	if (!s->threads)
		snprintf(w->why, sizeof(w->why), "window missed: no thread measured a window of the %s asked", asked);
	else if (!s->bytes)
		snprintf(w->why, sizeof(w->why), "window missed: measured %s of the %s asked and 0 bytes moved in it "
			 "(stalled or descheduled)", got, asked);
	else if (w->measured_s < w->asked_s * WINDOW_MIN_RATIO || w->measured_s > w->asked_s * WINDOW_MAX_RATIO)
		snprintf(w->why, sizeof(w->why), "window missed: measured %s of the %s asked (allowed %s to %s; "
			 "stalled, stopped or descheduled)", got, asked, lo, hi);
	else
		return;
	w->missed = true;
	if (!e->msg[0]) {
		err_set(e, "%s", w->why);
		w->is_error = true;
	}
}

int record_exit_code(const struct record *r)
{
	if (!r->error)
		return 0;
	return r->window.missed && r->window.is_error ? EXIT_WINDOW_MISSED : 1;
}

/* send --alternate: which method each slice of the window sent (even slices --method, odd
 * ones --alternate) and each method's bytes, seconds and throughput over its slices (the
 * sender's slices: null when it has none). */
static void print_alternate(struct json *j, const struct record *r)
{
	const struct side_totals *s = &r->sender;
	const char *name[2] = { r->method, r->alternate };
	uint64_t bytes[2] = { 0, 0 };
	double secs[2] = { 0, 0 };

	if (!r->alternate) {
		json_null(j, "alternate");
		return;
	}
	json_begin(j, "alternate");
	json_begin_array(j, "methods");
	json_str(j, NULL, name[0]);
	json_str(j, NULL, name[1]);
	json_end_array(j);
	json_begin_array(j, "slice_methods");
	for (int k = 0; k < SLICES; k++)
		json_str(j, NULL, name[k & 1]);
	json_end_array(j);
	if (!s->have_slices) {
		json_null(j, "bytes");
		json_null(j, "seconds");
		json_null(j, "gbit_per_s");
		json_end(j);
		return;
	}
	for (int k = 0; k < SLICES; k++) {
		bytes[k & 1] += s->slice_bytes[k];
		secs[k & 1] += s->slice_secs[k];
	}
	json_begin_array(j, "bytes");
	json_u64(j, NULL, bytes[0]);
	json_u64(j, NULL, bytes[1]);
	json_end_array(j);
	json_begin_array(j, "seconds");
	json_double(j, NULL, secs[0]);
	json_double(j, NULL, secs[1]);
	json_end_array(j);
	json_begin_array(j, "gbit_per_s");
	for (int m = 0; m < 2; m++)
		json_double(j, NULL, secs[m] > 0 ? (double)bytes[m] * 8 / secs[m] / 1e9 : 0.0 / 0.0);
	json_end_array(j);
	json_end(j);
}

static void i64_or_null(struct json *j, const char *key, int64_t v)
{
	if (v >= 0)
		json_i64(j, key, v);
	else
		json_null(j, key);
}

/* --share-time: one connection's window turns, its method's figures */
static void print_share_method(struct json *j, const struct share_record *sr, int c)
{
	const struct share_conn *sc = sr->conn[c];
	const struct side_totals *t = &sr->side[c];
	double own_s = 0;

	for (int i = 0; i < sc->nturns; i++)
		own_s += (double)(sc->turn[i].end_ns - sc->turn[i].start_ns) / 1e9;
	json_begin(j, NULL);
	json_str(j, "method", sr->methods[c]);
	json_i64(j, "connection", c);
	/* its rate at the sink: its own connection's bytes outside the guards of its turns */
	json_double(j, "gbit_per_s", sr->sink_known ? sr->gbit[c] : 0.0 / 0.0);
	json_u64(j, "sent", sr->sent[c]);
	if (sr->sink_known)
		json_u64(j, "received", sr->received[c]);
	else
		json_null(j, "received");
	json_u64(j, "bytes", t->bytes); /* sent in the window (its turns) */
	json_i64(j, "turns", sc->nturns);
	json_double(j, "turns_s", own_s);
	/* what its thread wrote over its turns' time: not a delivery rate (a turn's first
	 * writes fill the socket buffer the pause emptied) */
	json_double(j, "sender_gbit_per_s", own_s > 0 ? (double)t->bytes * 8 / own_s / 1e9 : 0.0 / 0.0);
	side_totals_json(j, "sender", t);
	if (sr->rx_json[c])
		json_raw(j, "receiver", sr->rx_json[c]);
	else
		json_null(j, "receiver");
	if (sr->zc_used[c]) {
		json_begin(j, "zerocopy");
		json_u64(j, "sends", sr->zc[c].sends);
		json_u64(j, "completions", sr->zc[c].completions);
		json_u64(j, "copied", sr->zc[c].copied);
		json_u64(j, "enobufs", sr->zc[c].enobufs);
		json_end(j);
	} else {
		json_null(j, "zerocopy");
	}
	json_end(j);
}

/* --share-time: every window turn (both connections', in order) as its sender thread saw it */
static void print_share_turns(struct json *j, const struct record *r, const struct share_record *sr)
{
	int at[SHARE_CONNS] = { 0, 0 };
	uint64_t t0 = r->sender.t_first_ns;

	json_begin_array(j, "turns");
	for (;;) {
		const struct share_turn *tr = NULL;
		int c = -1;

		for (int x = 0; x < SHARE_CONNS; x++) {
			const struct share_conn *sc = sr->conn[x];
			if (at[x] < sc->nturns && (!tr || sc->turn[at[x]].k < tr->k))
				tr = &sc->turn[at[x]], c = x;
		}
		if (!tr)
			break;
		at[c]++;
		json_begin(j, NULL);
		json_i64(j, "k", tr->k);
		json_i64(j, "connection", c);
		json_double(j, "start_s", (double)(int64_t)(tr->start_ns - t0) / 1e9);
		json_double(j, "end_s", (double)(int64_t)(tr->end_ns - t0) / 1e9);
		json_u64(j, "bytes", tr->end_bytes - tr->start_bytes);
		/* from the timing thread's switch to this thread's first message: the previous
		 * connection's message in flight at the edge, and this thread's wake-up */
		if (tr->k > 0 && sr->edge_ns[tr->k] && tr->start_ns >= sr->edge_ns[tr->k])
			json_double(j, "handoff_s", (double)(tr->start_ns - sr->edge_ns[tr->k]) / 1e9);
		else
			json_null(j, "handoff_s");
		i64_or_null(j, "snd_cwnd_resume", tr->cwnd_resume);
		i64_or_null(j, "snd_cwnd_first", tr->cwnd_first);
		i64_or_null(j, "snd_cwnd_release", tr->cwnd_release);
		i64_or_null(j, "outq_resume", tr->outq_resume);
		i64_or_null(j, "outq_release", tr->outq_release);
		i64_or_null(j, "notsent_release", tr->notsent_release);
		i64_or_null(j, "unacked_release", tr->unacked_release);
		json_u64(j, "zerocopy_reaped", tr->zc_reaped);
		json_end(j);
	}
	json_end_array(j);
}

static void print_share(struct json *j, const struct record *r)
{
	const struct share_record *sr = r->share;

	if (!sr) {
		json_null(j, "share_time");
		return;
	}
	json_begin(j, "share_time");
	json_begin_array(j, "methods");
	json_str(j, NULL, sr->methods[0]);
	json_str(j, NULL, sr->methods[1]);
	json_end_array(j);
	json_str(j, "order", sr->order);
	json_i64(j, "first", sr->first);
	json_double(j, "period_s", (double)SHARE_PERIOD_NS / 1e9);
	i64_or_null(j, "slow_start_after_idle", sr->slow_start_after_idle);
	json_str(j, "congestion_control", sr->congestion[0] ? sr->congestion : NULL);
	json_begin_array(j, "per_method");
	for (int c = 0; c < SHARE_CONNS; c++)
		print_share_method(j, sr, c);
	json_end_array(j);
	print_share_turns(j, r, sr);
	if (sr->sink_json)
		json_raw(j, "sink", sr->sink_json);
	else
		json_null(j, "sink");
	json_str(j, "sink_unavailable", sr->sink_known ? NULL : sr->sink_unavailable);
	json_end(j);
}

static void print_result(struct json *j, const struct record *r)
{
	const struct side_totals *s = &r->sender;
	double secs = (double)(s->t_last_ns - s->t_first_ns) / 1e9;

	json_begin(j, "result");
	json_u64(j, "bytes", s->bytes);
	json_u64(j, "messages", s->messages);
	json_double(j, "seconds", secs);
	json_double(j, "gbit_per_s", secs > 0 ? (double)s->bytes * 8 / secs / 1e9 : 0.0 / 0.0);
	json_double(j, "msgs_per_s", secs > 0 ? (double)s->messages / secs : 0.0 / 0.0);
	print_rtt(j, r->rtt);
	side_totals_json(j, "sender", s);
	if (r->receiver_json)
		json_raw(j, "receiver", r->receiver_json);
	else {
		json_null(j, "receiver");
		json_str(j, "receiver_unavailable", r->receiver_unavailable);
	}
	if (r->zc_used) {
		json_begin(j, "zerocopy");
		json_u64(j, "sends", r->zc.sends);
		json_u64(j, "completions", r->zc.completions);
		json_u64(j, "copied", r->zc.copied);
		json_u64(j, "enobufs", r->zc.enobufs);
		json_double(j, "copied_fraction",
			    r->zc.completions ? (double)r->zc.copied / (double)r->zc.completions : 0.0 / 0.0);
		json_end(j);
	} else {
		json_null(j, "zerocopy");
	}
	if (r->ring_used) { /* vmsplice: its ring against the bytes that can be in flight */
		json_begin(j, "vmsplice");
		json_u64(j, "in_flight_bound", r->ring.in_flight);
		json_u64(j, "ring_bytes", r->ring.ring_bytes);
		json_u64(j, "ring_memory", r->ring.memory);
		json_end(j);
	}
	if (r->udp) {
		json_begin(j, "datagrams");
		json_u64(j, "sent", r->datagrams_sent);
		if (r->no_sink) {
			json_null(j, "received");
			json_null(j, "lost");
		} else {
			json_u64(j, "received", r->datagrams_received);
			json_u64(j, "lost", r->datagrams_sent - r->datagrams_received);
		}
		if (r->rtt)
			json_u64(j, "reply_timeouts", r->reply_timeouts);
		json_end(j);
	}
	print_alternate(j, r);
	print_share(j, r);
	print_window(j, &r->window);
	interference_json(j, r->interference);
	if (r->verify_known) {
		json_begin(j, "verify");
		json_u64(j, "bytes_checked", r->verify_checked);
		json_u64(j, "mismatches", r->verify_mismatches);
		json_str(j, "first_mismatch", r->first_mismatch && *r->first_mismatch ? r->first_mismatch : NULL);
		json_end(j);
	} else {
		json_null(j, "verify");
	}
	json_end(j);
}

void record_print(FILE *f, const struct record *r)
{
	struct json j;

	json_init(&j, f);
	json_begin(&j, NULL);
	json_i64(&j, "schema_version", SCHEMA_VERSION);
	json_str(&j, "tool", "copybench");
	json_str(&j, "tool_version", COPYBENCH_VERSION);
	print_config(&j, r);
	json_str(&j, "status", r->error ? "failed" : "ok");
	json_str(&j, "error", r->error);
	if (r->have_result)
		print_result(&j, r);
	else
		json_null(&j, "result");
	json_end(&j);
	fputc('\n', f);
	fflush(f);
}

void record_summary(FILE *f, const struct record *r)
{
	const struct side_totals *s = &r->sender;
	double secs = (double)(s->t_last_ns - s->t_first_ns) / 1e9;

	if (r->error) {
		fprintf(f, "copybench %s %s: FAILED: %s\n", r->command, r->method, r->error);
		return;
	}
	fprintf(f, "copybench %s %s %s size=%llu threads=%d: %.3f Gbit/s, %.0f msg/s over %.2f s",
		r->command, r->method, r->mode ? r->mode : "", (unsigned long long)r->size, r->threads,
		secs > 0 ? (double)s->bytes * 8 / secs / 1e9 : 0.0, secs > 0 ? (double)s->messages / secs : 0.0, secs);
	if (r->rtt && r->rtt->count)
		fprintf(f, ", rtt p50 %.1f us p99 %.1f us", histo_quantile(r->rtt, 0.5) / 1e3,
			histo_quantile(r->rtt, 0.99) / 1e3);
	if (r->zc_used)
		fprintf(f, ", zerocopy %llu/%llu completions copied",
			(unsigned long long)r->zc.copied, (unsigned long long)r->zc.completions);
	if (r->ring_used)
		fprintf(f, ", ring of %.1f MiB sent between rewrites for %.1f MiB in flight at most",
			(double)r->ring.ring_bytes / 1048576, (double)r->ring.in_flight / 1048576);
	if (r->verify_known)
		fprintf(f, ", verified %llu bytes", (unsigned long long)r->verify_checked);
	fputc('\n', f);
}

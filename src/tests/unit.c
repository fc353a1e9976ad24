/* Unit tests of the pieces with exact answers: the verification pattern must catch
 * corruption, loss, duplication and reordering; the histogram's quantiles must be within
 * its bucket precision; the control greeting must round-trip and reject garbage. */
#include "../control.h"
#include "../counters.h"
#include "../histo.h"
#include "../memroom.h"
#include "../pattern.h"
#include "../procstat.h"
#include "../record.h"
#include "../share.h"

#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		checks++;                                                 \
		if (!(cond)) {                                            \
			failures++;                                       \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
		}                                                         \
	} while (0)

/* Build `count` records of a stream into buf via the sender's own stamping. */
static void make_stream(const struct pattern *p, uint8_t *buf, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++) {
		struct iovec iov = { .iov_base = buf + i * p->record, .iov_len = p->record };
		pattern_fill(p, 0, iov.iov_base, p->record);
		if (p->stamped)
			pattern_stamp(p, i, &iov, 1);
	}
}

static uint64_t mismatches_of(const struct pattern *p, const uint8_t *buf, size_t len, size_t piece)
{
	struct verifier v;

	verifier_init(&v, p, VERIFY_FULL);
	for (size_t off = 0; off < len; off += piece)
		verify_stream(&v, buf + off, len - off < piece ? len - off : piece);
	return v.mismatches;
}

static void test_pattern(void)
{
	static struct pattern p;
	const uint64_t sizes[] = { 1, 7, 8, 63, 4096, 65537, 200000 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t rec = sizes[s], n = rec < 64 ? 64 : 4;
		size_t len = (size_t)(rec * n);
		uint8_t *buf = malloc(len), *alt = malloc(len);

		pattern_init(&p, 42, rec, true);
		make_stream(&p, buf, n);
		CHECK(mismatches_of(&p, buf, len, 1000) == 0, "clean stream of %llu-byte records", (unsigned long long)rec);
		CHECK(mismatches_of(&p, buf, len, 1) == 0, "clean stream fed byte by byte (%llu)", (unsigned long long)rec);

		memcpy(alt, buf, len);
		alt[len / 2] ^= 0x40;
		CHECK(mismatches_of(&p, alt, len, 4096) > 0, "one flipped bit caught (%llu)", (unsigned long long)rec);

		/* duplicate record 1 in place of record 2 */
		memcpy(alt, buf, len);
		memcpy(alt + 2 * rec, buf + rec, rec);
		CHECK(mismatches_of(&p, alt, len, 4096) > 0, "duplicated record caught (%llu)", (unsigned long long)rec);

		/* swap records 1 and 2 */
		memcpy(alt, buf, len);
		memcpy(alt + rec, buf + 2 * rec, rec);
		memcpy(alt + 2 * rec, buf + rec, rec);
		CHECK(mismatches_of(&p, alt, len, 4096) > 0, "reordered records caught (%llu)", (unsigned long long)rec);

		/* lose record 1: everything after it shifts */
		CHECK(mismatches_of(&p, buf + rec, len - rec, 4096) > 0 || rec < 8,
		      "lost record caught (%llu)", (unsigned long long)rec);
		{
			struct pattern q;
			pattern_init(&q, 43, rec, true);
			CHECK(mismatches_of(&q, buf, len, 4096) > 0, "wrong seed caught (%llu)", (unsigned long long)rec);
		}
		free(buf);
		free(alt);
	}
	/* a file stream: no stamps, the file repeated; a lost byte shifts everything after it */
	{
		uint64_t rec = 10007;
		uint8_t *buf = malloc(rec * 3);
		pattern_init(&p, 7, rec, false);
		for (int i = 0; i < 3; i++)
			pattern_fill(&p, 0, buf + i * rec, rec);
		CHECK(mismatches_of(&p, buf, rec * 3, 999) == 0, "clean file stream");
		CHECK(mismatches_of(&p, buf + 1, rec * 3 - 1, 999) > 0, "file stream missing its first byte");
		free(buf);
	}
	/* stamps invert */
	pattern_init(&p, 99, 64, true);
	for (uint64_t i = 0; i < 100000; i += 997)
		CHECK(pattern_unstamp(&p, pattern_stamp_value(&p, i)) == i, "stamp %llu inverts", (unsigned long long)i);
}

static void test_datagrams(void)
{
	static struct pattern p;
	struct verifier v;
	uint8_t d[3][100];
	uint64_t next = 0, lost = 0;

	pattern_init(&p, 5, 100, true);
	make_stream(&p, &d[0][0], 3);
	verifier_init(&v, &p, VERIFY_FULL);
	verify_datagram(&v, d[0], 100, &next, &lost);
	verify_datagram(&v, d[2], 100, &next, &lost); /* datagram 1 lost: allowed, counted */
	CHECK(v.mismatches == 0 && lost == 1 && next == 3, "a lost datagram is counted, not a mismatch");
	verify_datagram(&v, d[1], 100, &next, &lost); /* late: reordered */
	CHECK(v.mismatches == 1, "a reordered datagram is a mismatch");
	verify_datagram(&v, d[2], 99, &next, &lost);
	CHECK(v.mismatches == 2, "a short datagram is a mismatch");
}

static void test_histo(void)
{
	static struct histo h;
	uint64_t v[] = { 0, 5, 127, 128, 1000, 65537, 1234567, 987654321 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&h, 0, sizeof(h));
		histo_add(&h, v[i]);
		uint64_t q = histo_quantile(&h, 0.5);
		double err = v[i] ? ((double)q - (double)v[i]) / (double)v[i] : (double)q;
		CHECK(err < 0.016 && err > -0.016, "single value %llu comes back as %llu", (unsigned long long)v[i],
		      (unsigned long long)q);
	}
	memset(&h, 0, sizeof(h));
	for (uint64_t i = 1; i <= 100000; i++)
		histo_add(&h, i * 10);
	CHECK(llabs((long long)histo_quantile(&h, 0.5) - 500000) < 500000 * 0.016, "p50 of a uniform ramp");
	CHECK(llabs((long long)histo_quantile(&h, 0.99) - 990000) < 990000 * 0.016, "p99 of a uniform ramp");
	CHECK(histo_quantile(&h, 1.0) == 1000000 && h.max == 1000000, "max is exact");
	CHECK(h.sum == 10ull * 100000 * 100001 / 2, "sum is exact");
}

static void test_greeting(void)
{
	struct session s = { .proto = PROTO_UDP, .mode = MODE_PINGPONG, .threads = 3, .size = 63, .record = 63,
			     .stamped = true, .verify = VERIFY_FULL, .seed = 12345678901234ull,
			     .counters = COUNTERS_RUSAGE }, t;
	char line[512], why[160];

	session_format(&s, line, sizeof(line));
	CHECK(session_parse(line, &t, why, sizeof(why)) == 0 && t.proto == s.proto && t.mode == s.mode &&
		      t.threads == s.threads && t.size == s.size && t.record == s.record && t.stamped == s.stamped &&
		      t.verify == s.verify && t.seed == s.seed && t.counters == s.counters,
	      "greeting round-trips: %s", line);
	CHECK(session_parse("GET / HTTP/1.1", &t, why, sizeof(why)) == -1, "HTTP is not a greeting");
	CHECK(session_parse(CTL_MAGIC " proto=tcp", &t, why, sizeof(why)) == -1, "incomplete greeting rejected");
	CHECK(session_parse(CTL_MAGIC " proto=tcp mode=stream threads=0 size=1 record=1 stamped=1 verify=full seed=1 counters=full",
			    &t, why, sizeof(why)) == -1, "threads=0 rejected");
	CHECK(session_parse(CTL_MAGIC " proto=tcp mode=stream threads=1 size=99999999999 record=1 stamped=1 verify=full seed=1 counters=full",
			    &t, why, sizeof(why)) == -1, "size above 1 GiB rejected");
	/* the receive size per recv(): optional, carried when set, refused outside its range */
	CHECK(session_parse(line, &t, why, sizeof(why)) == 0 && t.recv_size == 0 && !strstr(line, "recv="),
	      "a greeting without recv= leaves the sink's own size: %s", line);
	s.proto = PROTO_TCP, s.mode = MODE_STREAM, s.recv_size = 256 << 10;
	session_format(&s, line, sizeof(line));
	CHECK(session_parse(line, &t, why, sizeof(why)) == 0 && t.recv_size == 256u << 10,
	      "recv= round-trips: %s", line);
	CHECK(session_parse(CTL_MAGIC " proto=tcp mode=stream threads=1 size=1 record=1 stamped=1 verify=full seed=1 counters=full recv=4095",
			    &t, why, sizeof(why)) == -1, "recv below 4096 rejected");
	CHECK(session_parse(CTL_MAGIC " proto=tcp mode=stream threads=1 size=1 record=1 stamped=1 verify=full seed=1 counters=full recv=67108865",
			    &t, why, sizeof(why)) == -1, "recv above 64 MiB rejected");
}

/* /proc/stat: parsing, differencing, and the reasons instead of fake zeros */
static const char stat_a[] =
	"cpu  100 5 50 1000 20 3 7 10 4 0\n"
	"cpu0 60 5 30 400 10 2 3 10 4 0\n"
	"cpu1 40 0 20 600 10 1 4 0 0 0\n"
	"intr 12345 0 0 0\n"
	"ctxt 999\n"
	"cpu9 this line is not in the cpu block and is never read\n";
static const char stat_b[] = /* 1 s later at USER_HZ 100: cpu0 fully busy with 10 ticks stolen, cpu1 idle */
	"cpu  190 5 50 1100 15 3 7 20 4 0\n" /* iowait went down 5 (it may): idle+iowait still +95 */
	"cpu0 150 5 30 400 10 2 3 20 4 0\n"
	"cpu1 40 0 20 700 5 1 4 0 0 0\n"
	"intr 12400 0 0 0\n";

static bool near(double a, double b)
{
	return a > b - 1e-9 && a < b + 1e-9;
}

/* /proc/stat parsing and the difference of two readings */
static void test_procstat(void)
{
	static struct procstat a, b, bad;
	static struct interference d;

	CHECK(procstat_parse(stat_a, &a) == 0 && a.ok, "parse: %s", a.why);
	CHECK(a.n == 2 && a.all.cpu == -1 && a.cpu[0].cpu == 0 && a.cpu[1].cpu == 1, "two CPUs and the aggregate");
	CHECK(a.all.f[PS_USER] == 100 && a.all.f[PS_STEAL] == 10 && a.cpu[1].f[PS_IDLE] == 600,
	      "fields in proc(5) order");
	CHECK(procstat_parse(stat_b, &b) == 0, "parse b: %s", b.why);

	CHECK(interference_diff(&a, &b, 100, &d) == 0 && d.ok, "diff: %s", d.why);
	/* aggregate: user +90, idle+iowait +95, steal +10 -> cpu 195 ticks, busy 90 */
	CHECK(near(d.all.cpu_s, 1.95) && near(d.all.busy_s, 0.90) && near(d.all.steal_s, 0.10) &&
		      near(d.all.idle_s, 0.95), "aggregate %g %g %g %g", d.all.cpu_s, d.all.busy_s, d.all.steal_s,
	      d.all.idle_s);
	CHECK(near(d.all.steal_frac, 10.0 / 195), "steal_frac of all elapsed CPU time: %g", d.all.steal_frac);
	CHECK(d.n == 2 && d.cpu[0].cpu == 0 && near(d.cpu[0].busy_s, 0.9) && near(d.cpu[0].steal_s, 0.1) &&
		      near(d.cpu[0].busy_frac, 0.9) && near(d.cpu[0].cpu_s, 1.0), "cpu0 busy %g frac %g",
	      d.cpu[0].busy_s, d.cpu[0].busy_frac);
	CHECK(near(d.cpu[1].busy_s, 0) && near(d.cpu[1].busy_frac, 0) && near(d.cpu[1].idle_s, 0.95),
	      "cpu1 idle: busy %g idle %g", d.cpu[1].busy_s, d.cpu[1].idle_s);

	/* no tick in between: fractions are undefined (null), not 0 */
	CHECK(interference_diff(&a, &a, 100, &d) == 0 && d.all.cpu_s == 0 && d.all.busy_frac != d.all.busy_frac,
	      "0/0 is NaN (printed as null)");
	/* a counter that goes backwards is a reason, not a negative or a clamped number */
	CHECK(interference_diff(&b, &a, 100, &d) == -1 && !d.ok && strstr(d.why, "backwards"), "backwards: %s", d.why);
	CHECK(interference_diff(&a, &b, 0, &d) == -1 && strstr(d.why, "_SC_CLK_TCK"), "bad USER_HZ: %s", d.why);

	/* malformed or missing lines */
	CHECK(procstat_parse("", &bad) == -1 && strstr(bad.why, "aggregate"), "empty: %s", bad.why);
	CHECK(procstat_parse("cpu  1 2 3 4\n", &bad) == -1 && strstr(bad.why, "fields"), "old kernel: %s", bad.why);
	CHECK(procstat_parse("cpu  1 2 3 4 5 6 7 x\n", &bad) == -1 && strstr(bad.why, "malformed"), "junk: %s", bad.why);
	CHECK(interference_diff(&bad, &b, 100, &d) == -1 && !strcmp(d.why, bad.why), "a failed reading's reason carries");

	/* CPUs matched by number: one missing at the end is left out */
	CHECK(procstat_parse("cpu  1 0 0 1 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0\n", &b) == 0 &&
		      interference_diff(&a, &b, 100, &d) == -1, "fewer ticks in the aggregate: backwards");
	CHECK(procstat_parse("cpu  200 5 50 1100 20 3 7 10 4 0\ncpu1 40 0 20 700 10 1 4 0 0 0\n", &b) == 0 &&
		      interference_diff(&a, &b, 100, &d) == 0 && d.n == 1 && d.cpu[0].cpu == 1, "cpu0 went offline");
}

/* reading a file; and a path that cannot be read gives the reason */
static void test_procstat_read(void)
{
	static struct procstat b;
	char path[] = "/tmp/copybench-unit-stat.XXXXXX";
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, stat_a, sizeof(stat_a) - 1) == (ssize_t)(sizeof(stat_a) - 1), "temp file");
	close(fd);
	CHECK(procstat_read(&b, path) == 0 && b.n == 2 && b.t_ns > 0, "read a file: %s", b.why);
	unlink(path);
	CHECK(procstat_read(&b, path) == -1 && strstr(b.why, "No such file"), "missing file: %s", b.why);
	CHECK(procstat_read(&b, NULL) == 0 && b.n >= 1, "this machine's /proc/stat: %s", b.why);
}

/* interference as JSON: the sink's selection, and null with the reason */
static void test_procstat_json(void)
{
	static struct procstat a, b;
	static struct interference d;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	struct json j;

	/* the sink's selection: only its CPUs, at most `max`, and says when it left some out */
	{
		struct cpulist one = { .n = 1, .cpu = { 1 } };

		CHECK(procstat_parse(stat_a, &a) == 0 && procstat_parse(stat_b, &b) == 0 &&
		      interference_diff(&a, &b, 100, &d) == 0, "diff again: %s", d.why);
		mem = open_memstream(&text, &len);
		json_init(&j, mem);
		json_begin(&j, NULL);
		interference_json_sel(&j, &d, &one, 16);
		json_end(&j);
		fclose(mem);
		CHECK(strstr(text, "\"cpus\":[{\"cpu\":1,") && !strstr(text, "\"cpu\":0") && !strstr(text, "truncated"),
		      "only cpu1: %s", text);
		free(text);
		mem = open_memstream(&text, &len);
		json_init(&j, mem);
		json_begin(&j, NULL);
		interference_json_sel(&j, &d, NULL, 1);
		json_end(&j);
		fclose(mem);
		CHECK(strstr(text, "\"cpu\":0") && !strstr(text, "\"cpu\":1") && strstr(text, "\"cpus_truncated\":true"),
		      "at most one CPU: %s", text);
		free(text);
		text = NULL;
	}

	/* JSON: null with the reason when unavailable */
	d.ok = false;
	snprintf(d.why, sizeof(d.why), "/proc/stat: nope");
	mem = open_memstream(&text, &len);
	json_init(&j, mem);
	json_begin(&j, NULL);
	interference_json(&j, &d);
	json_end(&j);
	fclose(mem);
	CHECK(!strcmp(text, "{\"interference\":null,\"interference_unavailable\":\"/proc/stat: nope\","
			    "\"softirqs\":null,\"softirqs_unavailable\":\"\"}"), "%s", text);
	free(text);
}

/* /proc/softirqs: NET_RX/NET_TX per CPU, differenced modulo 2^32; reasons, never zeros */
static const char softirqs_a[] =
	"                    CPU0       CPU1       CPU3\n"
	"          HI:          0          1          0\n"
	"      NET_TX:         10          2          0\n"
	"      NET_RX: 4294967290        100          7\n"
	"       TIMER:        999        999        999\n";
static const char softirqs_b[] =
	"                    CPU0       CPU1       CPU3\n"
	"          HI:          0          1          0\n"
	"      NET_TX:         15          2          1\n"
	"      NET_RX:          4        350          7\n";

static void test_softirqs(void)
{
	static struct softirqs a, b, bad;
	static struct softirq_delta d;
	static struct interference itf;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	struct json j;
	struct cpulist one = { .n = 1, .cpu = { 3 } };

	CHECK(softirqs_parse(softirqs_a, &a) == 0 && a.ok && a.n == 3 && a.cpu[2] == 3 && a.net_rx[0] == 4294967290u &&
		      a.net_tx[0] == 10, "parse: %s", a.why);
	CHECK(softirqs_parse(softirqs_b, &b) == 0, "parse b: %s", b.why);
	a.t_ns = 1000000000ull, b.t_ns = 2000000000ull;
	CHECK(softirqs_diff(&a, &b, &d) == 0 && d.ok && d.n == 3 && near(d.window_s, 1.0), "diff: %s", d.why);
	/* CPU0's NET_RX wrapped (unsigned int in the kernel): 6 + 4 runs, not a huge or negative number */
	CHECK(d.cpu[0].net_rx == 10 && d.cpu[1].net_rx == 250 && d.cpu[2].cpu == 3 && d.cpu[2].net_tx == 1,
	      "per CPU: %llu %llu", (unsigned long long)d.cpu[0].net_rx, (unsigned long long)d.cpu[1].net_rx);
	CHECK(d.net_rx == 260 && d.net_tx == 6, "totals %llu %llu", (unsigned long long)d.net_rx,
	      (unsigned long long)d.net_tx);

	CHECK(softirqs_parse("", &bad) == -1 && strstr(bad.why, "header"), "empty: %s", bad.why);
	CHECK(softirqs_parse("  CPU0\n  NET_TX: 1\n", &bad) == -1 && strstr(bad.why, "no NET_RX"), "no NET_RX: %s", bad.why);
	CHECK(softirqs_parse("  CPU0 CPU1\n  NET_TX: 1 2\n  NET_RX: 1\n", &bad) == -1 && strstr(bad.why, "column 2"),
	      "short row: %s", bad.why);
	CHECK(softirqs_parse("cpu  1 2 3\n", &bad) == -1 && strstr(bad.why, "header"), "not softirqs: %s", bad.why);
	CHECK(softirqs_diff(&bad, &b, &d) == -1 && !d.ok && !strcmp(d.why, bad.why), "a failed reading's reason carries");
	CHECK(softirqs_read(&b, "/nonexistent/softirqs") == -1 && strstr(b.why, "No such file"), "missing: %s", b.why);
	CHECK(softirqs_read(&b, NULL) == 0 && b.n >= 1, "this machine's /proc/softirqs: %s", b.why);

	/* JSON beside the interference: the sink's CPU selection; null with the reason */
	CHECK(softirqs_diff(&a, &a, &itf.sq) == 0, "diff of itself");
	itf.ok = false;
	snprintf(itf.why, sizeof(itf.why), "/proc/stat: nope");
	mem = open_memstream(&text, &len);
	json_init(&j, mem);
	json_begin(&j, NULL);
	interference_json_sel(&j, &itf, &one, 16);
	json_end(&j);
	fclose(mem);
	CHECK(strstr(text, "\"interference\":null") && strstr(text, "\"softirqs\":{\"source\":\"/proc/softirqs\"") &&
		      strstr(text, "\"cpus\":[{\"cpu\":3,\"net_rx\":0,\"net_tx\":0}]") && !strstr(text, "\"cpu\":0") &&
		      strstr(text, "\"softirqs_unavailable\":null"), "/proc/stat unreadable, softirqs still there: %s", text);
	free(text);
}

/* Slices: each thread's running total at the edges, clamped into its own window, adds up to
 * the side's bytes and seconds; an edge missing (window stopped early) makes them null. */
static void test_slices(void)
{
	static struct meter m[2];
	static struct slicer sl[2];
	static struct side_totals t;
	struct meter *mp[2] = { &m[0], &m[1] };
	struct slicer *sp[2] = { &sl[0], &sl[1] };
	const uint64_t t0 = 5000000000ull, slice = 100000000ull;

	memset(m, 0, sizeof(m));
	memset(sl, 0, sizeof(sl));
	for (int i = 0; i < 2; i++) {
		m[i].have_start = m[i].have_end = true;
		m[i].start.t_ns = t0 + (uint64_t)i * 1000000; /* thread 1 starts 1 ms later */
		m[i].end.t_ns = t0 + 10 * slice + 2000000;
		m[i].start.bytes = 1000;
		m[i].end.bytes = 1000 + 10 * 500;
		m[i].start.cpu = m[i].end.cpu = i;
		sl[i].n = SLICE_EDGES;
		for (int k = 0; k < SLICE_EDGES; k++) {
			sl[i].t_ns[k] = t0 + (uint64_t)(k + 1) * slice;
			sl[i].bytes[k] = 1000 + (uint64_t)(k + 1) * 500;
		}
	}
	sl[1].bytes[0] = 900;   /* thread 1 had not taken its start snapshot at edge 1: 0 bytes */
	sl[1].bytes[8] = 99999; /* a sample past the end snapshot counts up to the end only */
	side_totals(&t, mp, sp, 2, 0.1, NULL);
	CHECK(t.have_slices && t.bytes == 10000, "slices: %s", t.slices_why);
	{
		uint64_t sum = 0;
		double secs = 0;
		for (int k = 0; k < SLICES; k++)
			sum += t.slice_bytes[k], secs += t.slice_secs[k];
		CHECK(sum == t.bytes, "slices add up to the side's bytes: %llu", (unsigned long long)sum);
		CHECK(near(secs, (double)(t.t_last_ns - t.t_first_ns) / 1e9), "and its seconds: %g", secs);
	}
	CHECK(t.slice_bytes[0] == 500 && t.slice_bytes[1] == 500 + 1000 && t.slice_bytes[8] == 500 + 1000 &&
		      t.slice_bytes[9] == 500 + 0, "clamped: %llu %llu %llu %llu", (unsigned long long)t.slice_bytes[0],
	      (unsigned long long)t.slice_bytes[1], (unsigned long long)t.slice_bytes[8],
	      (unsigned long long)t.slice_bytes[9]);
	CHECK(near(t.slice_secs[0], 0.1) && near(t.slice_secs[9], 0.102), "first and last slices: %g %g",
	      t.slice_secs[0], t.slice_secs[9]);
	CHECK(t.nm == 2 && t.m[1] == &m[1], "the threads are listed for their edges");

	sl[1].n = 4; /* the window ended early: no slices, the reason */
	side_totals(&t, mp, sp, 2, 0.1, NULL);
	CHECK(!t.have_slices && strstr(t.slices_why, "only 4 of the window's 9"), "stopped early: %s", t.slices_why);
	side_totals(&t, mp, NULL, 2, 0, "the sender gave no slice length");
	CHECK(!t.have_slices && !strcmp(t.slices_why, "the sender gave no slice length"), "none asked: %s", t.slices_why);
}

/* The threads' edges as JSON: CPUs, buffers, TCP_INFO fields the kernel filled (a shorter
 * struct: the rest null), and a socket-less thread's reason. */
static void test_edges_json(void)
{
	static struct meter m[2];
	static struct side_totals t;
	struct meter *mp[2] = { &m[0], &m[1] };
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	struct json j;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 2; i++) {
		m[i].have_start = m[i].have_end = true;
		m[i].end.t_ns = 1000;
		m[i].start.cpu = i;
		m[i].end.cpu = i ? -1 : 0;
	}
	m[0].start.sock = (struct sockstate){ .have_buf = true, .have_tcp = true, .sndbuf = 4096, .rcvbuf = 8192,
					      .ti_len = offsetof(struct tcp_info, tcpi_rcv_space) };
	m[0].start.sock.ti.tcpi_snd_cwnd = 10;
	m[0].start.sock.ti.tcpi_rtt = 25;
	m[0].end.sock = m[0].start.sock;
	m[0].end.sock.ti_len = sizeof(struct tcp_info);
	m[0].end.sock.ti.tcpi_total_retrans = 3;
	snprintf(m[1].start.sock.why, sizeof(m[1].start.sock.why), "no socket here");
	m[1].end.sock = m[1].start.sock;
	side_totals(&t, mp, NULL, 2, 0, "not sliced");
	mem = open_memstream(&text, &len);
	json_init(&j, mem);
	side_totals_json(&j, NULL, &t);
	fclose(mem);
	CHECK(strstr(text, "\"slice_s\":null,\"slices_bytes\":null,\"slices_s\":null,\"slices_unavailable\":\"not sliced\""),
	      "slices null with the reason: %s", text);
	CHECK(strstr(text, "\"cpu_start\":[0,1],\"cpu_end\":[0,null],\"sndbuf_start\":[4096,null]"), "CPUs, buffers: %s", text);
	CHECK(strstr(text, "\"rcvbuf_end\":[8192,null]"), "rcvbuf: %s", text);
	CHECK(strstr(text, "\"tcp_info_start\":[{\"snd_cwnd\":10,\"rtt_us\":25,\"rttvar_us\":0,\"rcv_space\":null,"
			   "\"total_retrans\":null,"), "a kernel's shorter tcp_info: %s", text);
	CHECK(strstr(text, "\"total_retrans\":3,") && strstr(text, "\"sockets_unavailable\":\"no socket here\""),
	      "end, and the reason: %s", text);
	CHECK(!strstr(text, "threads_truncated"), "all listed: %s", text);
	free(text);
	text = NULL;
	t.list_max = 1;
	mem = open_memstream(&text, &len);
	json_init(&j, mem);
	side_totals_json(&j, NULL, &t);
	fclose(mem);
	CHECK(strstr(text, "\"cpu_start\":[0],") && strstr(text, "\"threads_truncated\":true"), "at most one: %s", text);
	free(text);
}

/* The window rule: inside [0.9, 1.5] x asked with bytes moved is ok; anything else is missed,
 * and becomes the error (exit 3) only when nothing else went wrong. */
static void test_window(void)
{
	static struct record r;
	struct err e;
	const struct { double measured; uint64_t bytes; bool missed; } cases[] = {
		{ 0.150, 1000, false }, { 0.136, 1000, false }, { 0.224, 1000, false },
		{ 17e-6, 0, true },     { 0.134, 1000, true },  { 1.25, 1000, true }, { 0.15, 0, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		memset(&e, 0, sizeof(e));
		r.have_result = true;
		r.duration_s = 0.15;
		r.sender.threads = 1;
		r.sender.bytes = cases[i].bytes;
		r.sender.t_first_ns = 1000000000ull;
		r.sender.t_last_ns = r.sender.t_first_ns + (uint64_t)(cases[i].measured * 1e9);
		record_judge_window(&r, &e);
		r.error = e.msg[0] ? e.msg : NULL;
		CHECK(r.window.judged && r.window.missed == cases[i].missed, "%g s, %llu bytes: missed=%d",
		      cases[i].measured, (unsigned long long)cases[i].bytes, r.window.missed);
		CHECK(record_exit_code(&r) == (cases[i].missed ? EXIT_WINDOW_MISSED : 0), "exit code %d",
		      record_exit_code(&r));
		if (cases[i].missed)
			CHECK(!strncmp(e.msg, "window missed: ", 15), "error: %s", e.msg);
	}
	/* a wrong result outranks a missed window: its error stays, exit 1, the window still recorded */
	memset(&r, 0, sizeof(r));
	memset(&e, 0, sizeof(e));
	r.have_result = true;
	r.duration_s = 0.15;
	err_set(&e, "verification failed: 3 mismatches");
	record_judge_window(&r, &e);
	r.error = e.msg;
	CHECK(r.window.missed && !strncmp(e.msg, "verification", 12) && record_exit_code(&r) == 1,
	      "verification failure keeps exit 1: %s", e.msg);
	/* no result, no judgement */
	memset(&r, 0, sizeof(r));
	memset(&e, 0, sizeof(e));
	record_judge_window(&r, &e);
	CHECK(!r.window.judged && !e.msg[0], "no result: not judged");
}

/* --share-time's turns: the two connections alternate from the warm-up into the window with
 * no break; AB gives --method's connection the window's even turns, BA the odd ones, so over
 * two trials of opposite orders each method holds every turn index once (a balanced order). */
static void test_share_turns(void)
{
	int held[2][8] = { { 0 } };

	for (int first = 0; first < 2; first++)
		for (int64_t j = -5; j < 8; j++) {
			CHECK(share_conn_of(j, first) != share_conn_of(j + 1, first), "turn %lld and the next alternate",
			      (long long)j);
			if (j >= 0)
				held[share_conn_of(j, first)][j]++;
		}
	CHECK(share_conn_of(0, 0) == 0 && share_conn_of(0, 1) == 1, "AB: --method first; BA: M first");
	CHECK(share_conn_of(-1, 0) == 1, "the warm-up's last turn is the other connection's");
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < 8; k++)
			CHECK(held[c][k] == 1, "connection %d holds turn %d once over AB and BA", c, k);
	CHECK(SHARE_PERIOD_NS == 100000000ull, "the period is 100 ms (no option changes it)");
}

/* A synthetic series: `turns` turns of 50 grains of exactly 2 ms; the turn's connection
 * receives `rate` bytes a grain; the other one `drain` grains of `rate` at each turn's start
 * (its queue) and `lead` grains at each switched turn's end (its next turn, early). */
static void share_series_make(struct share_series *x, int turns, int first, int drain, int lead,
			      uint64_t rate, int last_grains)
{
	uint64_t tot[2] = { 0, 0 };
	int grains = (turns - 1) * SHARE_GRAINS_PER_TURN + last_grains;

	memset(x, 0, sizeof(*x));
	x->first = first;
	x->n = grains + 1;
	for (int i = 0; i <= grains; i++) {
		x->t[i] = 1000000000ull + (uint64_t)i * SHARE_GRAIN_NS;
		x->bytes[0][i] = tot[0];
		x->bytes[1][i] = tot[1];
		if (i == grains)
			break;
		int k = i / SHARE_GRAINS_PER_TURN, at = i % SHARE_GRAINS_PER_TURN, own = share_conn_of(k, first);
		bool last_turn = k == turns - 1;
		tot[own] += rate;
		if (at < drain && k > 0)
			tot[!own] += rate / 2;
		if (!last_turn && at >= SHARE_GRAINS_PER_TURN - lead)
			tot[!own] += rate / 4;
	}
}

static void test_share_summary(void)
{
	static struct share_series x;
	static struct share_summary s;
	const uint64_t rate = 1000000; /* bytes a 2 ms grain: 4 Gbit/s */

	/* a connection that drains 3 grains into the other's turn and leads by 1: guards of 3
	 * and 1 grains at every turn; each method's rate is its own bytes in the rest, exactly */
	share_series_make(&x, 10, 0, 3, 1, rate, SHARE_GRAINS_PER_TURN);
	share_summarize(&x, &s);
	CHECK(s.have_rates && s.turns == 10, "rates over 10 turns: %s", s.why);
	CHECK(s.guard_start_grains == 3 && s.guard_end_grains == 1, "guards %d and %d grains",
	      s.guard_start_grains, s.guard_end_grains);
	for (int c = 0; c < 2; c++) {
		/* never another connection's bytes: each rate is its own rate (4 Gbit/s), though
		 * the other received in its turns */
		CHECK(fabs(s.c[c].gbit_per_s - 4.0) < 1e-9, "connection %d: %.6f Gbit/s", c, s.c[c].gbit_per_s);
		CHECK(s.c[c].other_bytes > 0, "connection %d received in the other's turns", c);
		CHECK(s.c[c].own_bytes + s.c[c].other_bytes == s.c[c].bytes, "own + other = all (connection %d)", c);
		CHECK(s.c[c].counted_bytes + s.c[c].guarded_bytes == s.c[c].own_bytes, "counted + guarded = own");
		CHECK(s.c[c].counted_bytes == 5 * (SHARE_GRAINS_PER_TURN - 4) * rate, "connection %d: %llu counted",
		      c, (unsigned long long)s.c[c].counted_bytes);
	}
	CHECK(fabs(s.drain_s[3] - 0.006) < 1e-9 && fabs(s.lead_s[3] - 0.002) < 1e-9 && s.lead_s[9] == 0,
	      "drain %.4f and lead %.4f of turn 3; none after the last", s.drain_s[3], s.lead_s[3]);
	/* naively crediting each turn's bytes to its method would give the other's drain to it:
	 * the rate above is not that */
	CHECK(s.turn_bytes[0][1] > 0 && s.conn[1] == 1, "connection 0's drain is in turn 1, connection 1's");
	/* BA: connection 1 first; a window cut in its last turn (20 of its 50 grains) */
	share_series_make(&x, 5, 1, 2, 0, rate, 20);
	share_summarize(&x, &s);
	CHECK(s.have_rates && s.turns == 5 && s.conn[0] == 1 && s.conn[4] == 1, "BA: connection 1 first");
	CHECK(fabs(s.turn_s[4] - 0.040) < 1e-9, "the last turn is cut at the window's end: %.4f", s.turn_s[4]);
	CHECK(fabs(s.c[0].gbit_per_s - 4.0) < 1e-9 && fabs(s.c[1].gbit_per_s - 4.0) < 1e-9, "BA rates");
	/* the other connection receives through whole turns: no rate, with the reason */
	share_series_make(&x, 4, 0, 30, 25, rate, SHARE_GRAINS_PER_TURN);
	share_summarize(&x, &s);
	CHECK(!s.have_rates && strstr(s.why, "every part of a turn") && isnan(s.c[0].gbit_per_s),
	      "no rates when the guards fill a turn: %s", s.why);
}

/* memroom: the least of MemAvailable and each cgroup's room (limit - usage + file cache), from a
 * fake /proc and cgroup tree */
static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_memroom(void)
{
	char root[] = "/tmp/copybench-unit-XXXXXX", proc[64], self[80], cg[64], a[80], ab[96], line[512];
	struct mem_room r;

	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(self, sizeof(self), "%s/self", proc);
	snprintf(cg, sizeof(cg), "%s/cg", root);
	snprintf(a, sizeof(a), "%s/a", cg);
	snprintf(ab, sizeof(ab), "%s/b", a);
	mkdir(proc, 0700), mkdir(self, 0700), mkdir(cg, 0700), mkdir(a, 0700), mkdir(ab, 0700);
	put(proc, "meminfo", "MemTotal:       16777216 kB\nMemFree:         1000 kB\nMemAvailable:    8388608 kB\n");

	/* nothing but meminfo */
	mem_room_at(proc, &r);
	CHECK(r.bytes == 8ull << 30 && r.meminfo == 8ull << 30, "MemAvailable: %llu", (unsigned long long)r.bytes);
	CHECK(strstr(r.bound, "MemAvailable"), "bound: %s", r.bound);

	/* v2: /a/b limited to 2 GiB with 1 GiB in use, half of it file cache: 1.5 GiB of room */
	put(self, "cgroup", "0::/a/b\n");
	snprintf(line, sizeof(line), "30 20 0:26 / %s rw,nosuid - cgroup2 cgroup2 rw\n", cg);
	put(self, "mountinfo", line);
	put(ab, "memory.max", "2147483648\n");
	put(ab, "memory.current", "1073741824\n");
	put(ab, "memory.stat", "anon 536870912\nfile 536870912\nactive_file 268435456\ninactive_file 268435456\n");
	put(a, "memory.max", "max\n");
	mem_room_at(proc, &r);
	CHECK(r.bytes == 3ull << 29, "v2 room: %llu", (unsigned long long)r.bytes);
	CHECK(strstr(r.bound, "cgroup /a/b") && strstr(r.bound, "memory.max 2.0 GiB"), "bound: %s", r.bound);

	/* the cgroup above is tighter: 1 GiB limit, 960 MiB in use, no cache */
	put(a, "memory.max", "1073741824\n");
	put(a, "memory.current", "1006632960\n");
	mem_room_at(proc, &r);
	CHECK(r.bytes == 64ull << 20, "v2 parent room: %llu", (unsigned long long)r.bytes);
	CHECK(strstr(r.bound, "cgroup /a:"), "bound: %s", r.bound);

	/* over its limit: no room, never a wrapped-around huge number */
	put(a, "memory.current", "2147483648\n");
	mem_room_at(proc, &r);
	CHECK(r.bytes == 0, "over the limit: %llu", (unsigned long long)r.bytes);

	/* "max" everywhere: MemAvailable bounds */
	put(a, "memory.max", "max\n");
	put(ab, "memory.max", "max\n");
	mem_room_at(proc, &r);
	CHECK(r.bytes == 8ull << 30, "v2 no limit: %llu", (unsigned long long)r.bytes);

	/* v1: memory among other controllers; "no limit" is a page counter's maximum */
	put(self, "cgroup", "5:cpu,memory:/a/b\n0::/\n");
	snprintf(line, sizeof(line), "31 20 0:27 / %s rw - cgroup cgroup rw,cpu,memory\n", cg);
	put(self, "mountinfo", line);
	put(ab, "memory.limit_in_bytes", "9223372036854771712\n");
	put(a, "memory.limit_in_bytes", "1073741824\n");
	put(a, "memory.usage_in_bytes", "536870912\n");
	put(a, "memory.stat", "cache 0\ntotal_active_file 134217728\ntotal_inactive_file 134217728\n");
	mem_room_at(proc, &r);
	CHECK(r.bytes == 3ull << 28, "v1 room: %llu", (unsigned long long)r.bytes);
	CHECK(strstr(r.bound, "cgroup /a (v1)"), "bound: %s", r.bound);

	snprintf(line, sizeof(line), "rm -rf '%s'", root);
	CHECK(system(line) == 0, "cleanup");
}

int main(void)
{
	test_pattern();
	test_datagrams();
	test_histo();
	test_greeting();
	test_procstat();
	test_procstat_read();
	test_procstat_json();
	test_window();
	test_softirqs();
	test_slices();
	test_edges_json();
	test_share_turns();
	test_share_summary();
	test_memroom();
	printf("unit: %d passed, %d failed\n", checks - failures, failures);
	return failures ? 1 : 0;
}

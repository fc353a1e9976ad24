/* Unit tests of the pieces with exact answers: the verification pattern must catch
 * corruption, loss, duplication and reordering; the histogram's quantiles must be within
 * its bucket precision; the control greeting must round-trip and reject garbage. */
#include "../control.h"
#include "../counters.h"
#include "../histo.h"
#include "../pattern.h"

#include <stdlib.h>

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
}

int main(void)
{
	test_pattern();
	test_datagrams();
	test_histo();
	test_greeting();
	printf("unit: %d passed, %d failed\n", checks - failures, failures);
	return failures ? 1 : 0;
}

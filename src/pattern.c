/* Verification pattern and checker (see pattern.h). Checking compares against a table with
 * memcmp, so full verification runs near memory speed. */
#include "pattern.h"

const char *const verify_names[] = { "off", "sample", "full", NULL };

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void pattern_init(struct pattern *p, uint64_t seed, uint64_t record, bool stamped)
{
	uint64_t s = seed, inv;

	p->seed = seed;
	p->record = record;
	p->stamped = stamped;
	for (size_t i = 0; i < PATTERN_PERIOD; i += 8) {
		uint64_t w = splitmix64(&s);
		for (size_t b = 0; b < 8 && i + b < PATTERN_PERIOD; b++)
			p->table[i + b] = (uint8_t)(w >> (8 * b));
	}
	memcpy(p->table + PATTERN_PERIOD, p->table, PATTERN_PERIOD);
	p->stamp_key = splitmix64(&s) | 1; /* odd: invertible modulo 2^64 */
	p->stamp_mask = splitmix64(&s);
	inv = p->stamp_key; /* Newton's iteration doubles the correct low bits each step */
	for (int i = 0; i < 6; i++)
		inv *= 2 - p->stamp_key * inv;
	p->stamp_inv = inv;
}

uint64_t pattern_stamp_value(const struct pattern *p, uint64_t index)
{
	return (index * p->stamp_key) ^ p->stamp_mask;
}

uint64_t pattern_unstamp(const struct pattern *p, uint64_t stamp)
{
	return (stamp ^ p->stamp_mask) * p->stamp_inv;
}

void pattern_fill(const struct pattern *p, uint64_t pos, uint8_t *dst, size_t len)
{
	while (len) {
		size_t at = (size_t)(pos % PATTERN_PERIOD);
		size_t n = len < PATTERN_PERIOD ? len : PATTERN_PERIOD;

		memcpy(dst, p->table + at, n);
		dst += n;
		pos += n;
		len -= n;
	}
}

void pattern_stamp(const struct pattern *p, uint64_t index, const struct iovec *iov, int n)
{
	uint64_t v = pattern_stamp_value(p, index);
	size_t want = p->record < STAMP_BYTES ? (size_t)p->record : STAMP_BYTES, done = 0;

	for (int k = 0; k < n && done < want; k++) {
		uint8_t *base = iov[k].iov_base;
		for (size_t b = 0; b < iov[k].iov_len && done < want; b++, done++)
			base[b] = (uint8_t)(v >> (8 * done));
	}
}

void verifier_init(struct verifier *v, const struct pattern *p, enum verify_mode mode)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->mode = mode;
}

static void mismatch(struct verifier *v, uint64_t offset, uint8_t got, uint8_t want)
{
	if (!v->mismatches++)
		snprintf(v->first, sizeof(v->first),
			 "stream offset %llu (record %llu, byte %llu): got 0x%02x, expected 0x%02x",
			 (unsigned long long)offset, (unsigned long long)(offset / v->p->record),
			 (unsigned long long)(offset % v->p->record), got, want);
}

/* Compare buf against the expected bytes at stream offset off, counting mismatches. */
static void check_range(struct verifier *v, uint64_t off, const uint8_t *buf, size_t len)
{
	const struct pattern *p = v->p;

	while (len) {
		uint64_t pos = off % p->record;
		uint64_t rec_left = p->record - pos;
		size_t n;

		if (p->stamped && pos < STAMP_BYTES) {
			uint64_t st = pattern_stamp_value(p, off / p->record);
			uint8_t want = (uint8_t)(st >> (8 * pos));
			if (*buf != want)
				mismatch(v, off, *buf, want);
			n = 1;
		} else {
			size_t at = (size_t)(pos % PATTERN_PERIOD);
			n = len;
			if (n > rec_left)
				n = (size_t)rec_left;
			if (n > PATTERN_PERIOD)
				n = PATTERN_PERIOD;
			if (memcmp(buf, p->table + at, n)) {
				for (size_t i = 0; i < n; i++)
					if (buf[i] != p->table[at + i]) {
						mismatch(v, off + i, buf[i], p->table[at + i]);
						break; /* one per run of bytes is enough */
					}
			}
		}
		buf += n;
		off += n;
		len -= n;
	}
}

void verify_stream(struct verifier *v, const uint8_t *buf, size_t len)
{
	/* sample: one chunk in 16 is checked byte for byte; offsets always advance, so a
	 * checked chunk after a loss or duplication still mismatches */
	if (v->mode == VERIFY_FULL || (v->mode == VERIFY_SAMPLE && (v->chunks & 15) == 0)) {
		check_range(v, v->offset, buf, len);
		v->bytes_checked += len;
	}
	v->chunks++;
	v->offset += len;
}

uint64_t verify_datagram(struct verifier *v, const uint8_t *buf, size_t len,
			 uint64_t *next_expected, uint64_t *lost)
{
	const struct pattern *p = v->p;
	uint64_t st = 0, idx;

	if (v->mode == VERIFY_OFF)
		return 0;
	if (len != p->record) {
		if (!v->mismatches++)
			snprintf(v->first, sizeof(v->first), "datagram of %zu bytes, expected %llu", len,
				 (unsigned long long)p->record);
		return UINT64_MAX;
	}
	if (len < STAMP_BYTES) /* too short to carry a whole stamp: length checked only */
		return UINT64_MAX;
	for (unsigned b = 0; b < STAMP_BYTES; b++)
		st |= (uint64_t)buf[b] << (8 * b);
	idx = pattern_unstamp(p, st);
	if (idx < *next_expected || idx > *next_expected + (1ull << 40)) {
		if (!v->mismatches++)
			snprintf(v->first, sizeof(v->first),
				 "datagram index %llu arrived after %llu (duplicate, reordered or corrupt)",
				 (unsigned long long)idx, (unsigned long long)*next_expected);
		return idx;
	}
	*lost += idx - *next_expected;
	*next_expected = idx + 1;
	if (v->mode == VERIFY_FULL || (v->chunks & 15) == 0) {
		check_range(v, idx * p->record, buf, len);
		v->bytes_checked += len;
	}
	v->chunks++;
	return idx;
}

/* The verification pattern: the expected byte at every stream offset, from a per-run seed.
 * A stream is a sequence of records (a message, or one pass over a file). Byte p of a record
 * is table[p % PERIOD]; in message streams the first min(8, record) bytes of record i are
 * instead a stamp of i, so lost, duplicated or reordered messages are caught too. */
#ifndef COPYBENCH_PATTERN_H
#define COPYBENCH_PATTERN_H
#include "common.h"

#include <sys/uio.h>

#define PATTERN_PERIOD 65521u /* prime, so a shifted stream never lines up with itself */
#define STAMP_BYTES 8u

struct pattern {
	uint64_t seed;
	uint64_t record;      /* bytes per record */
	bool stamped;
	uint64_t stamp_key;   /* odd multiplier: stamp(i) = i * key ^ mask, invertible */
	uint64_t stamp_inv;
	uint64_t stamp_mask;
	uint8_t table[2 * PATTERN_PERIOD];
};

void pattern_init(struct pattern *p, uint64_t seed, uint64_t record, bool stamped);
/* Expected bytes of record positions [pos, pos+len) excluding the stamp (record-independent). */
void pattern_fill(const struct pattern *p, uint64_t pos, uint8_t *dst, size_t len);
/* Write record index i's stamp into the first bytes of a message laid out over iov. */
void pattern_stamp(const struct pattern *p, uint64_t index, const struct iovec *iov, int n);
uint64_t pattern_stamp_value(const struct pattern *p, uint64_t index);
uint64_t pattern_unstamp(const struct pattern *p, uint64_t stamp);

enum verify_mode { VERIFY_OFF, VERIFY_SAMPLE, VERIFY_FULL };
extern const char *const verify_names[]; /* "off", "sample", "full" */

/* A byte-stream checker: feed it what arrives, in order. */
struct verifier {
	const struct pattern *p;
	enum verify_mode mode;
	uint64_t offset;        /* stream offset of the next byte */
	uint64_t chunks;
	uint64_t bytes_checked;
	uint64_t mismatches;
	char first[200];        /* first mismatch, described */
};
void verifier_init(struct verifier *v, const struct pattern *p, enum verify_mode mode);
void verify_stream(struct verifier *v, const uint8_t *buf, size_t len);
/* One datagram (UDP): checks content and that its index increases; returns the index or
 * UINT64_MAX when it cannot be read (short record). */
uint64_t verify_datagram(struct verifier *v, const uint8_t *buf, size_t len,
			 uint64_t *next_expected, uint64_t *lost);
#endif

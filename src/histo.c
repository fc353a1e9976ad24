/* Log-bucketed histogram (see histo.h). */
#include "histo.h"

static unsigned bucket_of(uint64_t v)
{
	unsigned msb, shift;

	if (v < 2 * HISTO_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - 6; /* keep the top 7 bits: 64 sub-buckets per octave */
	if (shift > 56)
		return HISTO_BUCKETS - 1;
	return HISTO_SUB * (shift + 1) + (unsigned)((v >> shift) - HISTO_SUB);
}

/* midpoint of bucket b's value range */
static uint64_t value_of(unsigned b)
{
	unsigned shift;
	uint64_t lo;

	if (b < 2 * HISTO_SUB)
		return b;
	shift = b / HISTO_SUB - 1;
	lo = ((uint64_t)(b % HISTO_SUB) + HISTO_SUB) << shift;
	return lo + ((1ull << shift) >> 1);
}

void histo_add(struct histo *h, uint64_t ns)
{
	h->bucket[bucket_of(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns > h->max)
		h->max = ns;
}

void histo_merge(struct histo *into, const struct histo *from)
{
	for (unsigned b = 0; b < HISTO_BUCKETS; b++)
		into->bucket[b] += from->bucket[b];
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
}

uint64_t histo_quantile(const struct histo *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	for (unsigned b = 0; b < HISTO_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen > rank) {
			uint64_t v = value_of(b);
			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

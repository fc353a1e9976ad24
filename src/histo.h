/* Log-bucketed latency histogram: exact below 128 ns, then 64 buckets per power of two
 * (under 1.6% relative error), so percentiles need no stored samples. */
#ifndef COPYBENCH_HISTO_H
#define COPYBENCH_HISTO_H
#include "common.h"

#define HISTO_SUB 64
#define HISTO_BUCKETS (HISTO_SUB * 2 + HISTO_SUB * 57)

struct histo {
	uint64_t count, max, sum;
	uint64_t bucket[HISTO_BUCKETS];
};
void histo_add(struct histo *h, uint64_t ns);
void histo_merge(struct histo *into, const struct histo *from);
/* q in [0,1]: the representative value of the bucket holding the q-quantile */
uint64_t histo_quantile(const struct histo *h, double q);
#endif

/* Shared options of `send` and `copy` (see trialopts.h). */
#include "trialopts.h"

const char *const cache_names[] = { "warm", "cold", NULL };

void trialopts_init(struct trial_opts *t, uint64_t size)
{
	*t = (struct trial_opts){ .dir = "/var/tmp", .size = size, .seed = 1, .cache = CACHE_UNSET,
				  .verify = VERIFY_SAMPLE, .duration = 2, .warmup = 0.5 };
}

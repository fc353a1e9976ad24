/* `copybench memcpy`: memcpy bandwidth between two buffers larger than the caches, the upper
 * bound a copying method cannot beat and every figure draws. */
#include "optable.h"

#include <stdlib.h>

struct memcpy_opts {
	uint64_t size;
	double duration;
	struct cpulist cpus;
};

#define MEMCPY_AT(field, ctype) OPT_AT(struct memcpy_opts, field, ctype)

static const struct optdef memcpy_optdefs[] = {
	{ .name = "size", .arg = "BYTES", .kind = OPT_SIZE, .at = MEMCPY_AT(size, uint64_t), .min = 4096,
	  .max = MAX_SIZE, .help = "each of the two buffers (default 64M; 4K to 1G)" },
	{ .name = "duration", .arg = "S", .kind = OPT_SECONDS, .at = MEMCPY_AT(duration, double),
	  .min = 0.01, .max = 600, .help = "how long to copy (default 1)" },
	{ .name = "cpus", .arg = "LIST", .kind = OPT_CPULIST, .at = MEMCPY_AT(cpus, struct cpulist),
	  .help = "pin the copying thread to the first CPU of LIST" },
	OPT_HELP_ROW,
	{ 0 },
};

static const struct optcmd memcpy_cmd = {
	.name = "memcpy",
	.synopsis = "usage: copybench memcpy [--size 64M] [--duration 1] [--cpus LIST]\n"
		    "  Prints {\"memcpy_gbit_per_s\": X, ...}: copy bandwidth between two buffers.\n",
	.opts = memcpy_optdefs,
};

int cmd_memcpy(int argc, char **argv)
{
	struct memcpy_opts o = { .size = 64u << 20, .duration = 1 };
	uint64_t size, bytes = 0;
	struct err e = { "" };
	uint8_t *a, *b;
	uint64_t t0, t;

	optable_parse(argc, argv, &memcpy_cmd, &o);
	size = o.size;
	if (pin_to_cpu(&o.cpus, 0, &e)) {
		fprintf(stderr, "copybench: memcpy: %s\n", e.msg);
		return 1;
	}
	a = malloc(size);
	b = malloc(size);
	if (!a || !b) {
		fprintf(stderr, "copybench: memcpy: cannot allocate 2 x %llu bytes\n", (unsigned long long)size);
		return 1;
	}
	memset(a, 1, size); /* fault every page in before timing */
	memset(b, 2, size);
	t0 = now_ns();
	do {
		memcpy(b, a, size);
		__asm__ __volatile__("" : : "r"(b) : "memory"); /* keep the copy */
		bytes += size;
		t = now_ns();
	} while (t - t0 < (uint64_t)(o.duration * 1e9));
	printf("{\"memcpy_gbit_per_s\": %.4f, \"size\": %llu, \"seconds\": %.4f}\n",
	       (double)bytes * 8 / ((double)(t - t0) / 1e9) / 1e9, (unsigned long long)size, (double)(t - t0) / 1e9);
	free(a);
	free(b);
	return 0;
}

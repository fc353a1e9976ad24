/* `copybench memcpy`: memcpy bandwidth between two buffers larger than the caches, the upper
 * bound a copying method cannot beat and every figure draws. */
#include "args.h"

#include <getopt.h>
#include <stdlib.h>

int cmd_memcpy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", 1, 0, 's' }, { "duration", 1, 0, 'd' }, { "cpus", 1, 0, 'c' }, { "help", 0, 0, 'h' }, { 0 },
	};
	uint64_t size = 64u << 20, bytes = 0;
	double duration = 1;
	struct cpulist cpus = { 0 };
	struct err e = { "" };
	uint8_t *a, *b;
	uint64_t t0, t;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': size = parse_size("--size", optarg, 4096, MAX_SIZE); break;
		case 'd': duration = parse_seconds("--duration", optarg, 0.01, 600); break;
		case 'c': parse_cpulist("--cpus", optarg, &cpus); break;
		case 'h':
			puts("usage: copybench memcpy [--size 64M] [--duration 1] [--cpus LIST]\n"
			     "  Prints {\"memcpy_gbit_per_s\": X, ...}: copy bandwidth between two buffers.");
			return 0;
		default:
			die_usage("memcpy: unknown or incomplete option '%s' (allowed: --size, --duration, --cpus)",
				  argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("memcpy: unexpected argument '%s'", argv[optind]);
	if (pin_to_cpu(&cpus, 0, &e)) {
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
	} while (t - t0 < (uint64_t)(duration * 1e9));
	printf("{\"memcpy_gbit_per_s\": %.4f, \"size\": %llu, \"seconds\": %.4f}\n",
	       (double)bytes * 8 / ((double)(t - t0) / 1e9) / 1e9, (unsigned long long)size, (double)(t - t0) / 1e9);
	free(a);
	free(b);
	return 0;
}

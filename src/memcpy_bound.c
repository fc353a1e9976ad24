/* `copybench memcpy`: copy bandwidth between two buffers of a working-set size, the upper bound a
 * copying method cannot beat and every figure draws: the faster of glibc's memcpy and the
 * `rep movsb` the kernel copies with (both printed). */
#include "optable.h"

#include <stdlib.h>

/* Where the destination starts relative to the source, modulo the 4 KiB page. The bound must not
 * depend on where malloc happened to put the buffers: glibc's memcpy copies sizes between its
 * rep_movsb_threshold and rep_movsb_stop_threshold (2112 B and 512 KiB on this project's AMD EPYC,
 * `ld.so --list-diagnostics`) with `rep movsb`, and on AMD Zen 3 `rep movsb` runs ~20x slower when
 * the destination is a few bytes past the source modulo 4096 (glibc bug 30994; measured here with
 * page-aligned buffers: 1..31 bytes past read 8-23 Gbit/s at 64 KiB, 0 and 32..4095 read
 * 110-360 Gbit/s). Two consecutive mallocs of 64 KiB come from the heap 16 bytes apart modulo 4096
 * (the chunk header), which is that slow case; mallocs from 128 KiB up are mmap'd, each 16 bytes
 * into its own page, which is offset 0. Offset 0 is also the fast case on Intel: glibc avoids
 * `rep movsb` there only for a distance of 1..63 bytes (Avoid_Short_Distance_REP_MOVSB), and a
 * vector copy loop stalls on 4K aliasing only where a load's page offset matches an earlier,
 * still-buffered store's, i.e. where the destination is a little past the source. */
#define DST_OFFSET_MOD_4096 0
#define PAGE 4096

typedef void (*copy_fn)(void *dst, const void *src, size_t n);

static void copy_memcpy(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

/* The kernel copies page-cache and socket data with `rep movsb` (copy_user_generic and memcpy on
 * CPUs with ERMS/FSRM), which keeps the destination in the cache. glibc's memcpy switches to
 * non-temporal stores above its non_temporal_threshold (3/4 of the shared cache per thread:
 * some MiB), which write around the cache: at 16 MiB on the AMD EPYC here the kernel's file
 * copies then read faster (~30 Gbit/s) than glibc's memcpy (~20). The bound is the faster of the
 * two ways a CPU copies, so a kernel copy cannot beat it by using the other one. */
static void copy_rep_movsb(void *dst, const void *src, size_t n)
{
	__asm__ __volatile__("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* bytes copied per second by `fn` from a to b, over at least `duration` seconds */
static double copy_rate(copy_fn fn, uint8_t *b, const uint8_t *a, uint64_t size, double duration, double *secs)
{
	uint64_t t0, t, bytes = 0;

	fn(b, a, size); /* one untimed copy: caches and TLB as they are in the loop */
	t0 = now_ns();
	do {
		fn(b, a, size);
		__asm__ __volatile__("" : : "r"(b) : "memory"); /* keep the copy */
		bytes += size;
		t = now_ns();
	} while (t - t0 < (uint64_t)(duration * 1e9));
	*secs = (double)(t - t0) / 1e9;
	return (double)bytes / *secs;
}

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
		    "  Prints {\"memcpy_gbit_per_s\": X, \"rep_movsb_gbit_per_s\": Y, \"bound_gbit_per_s\": max(X, Y), ...}:\n"
		    "  copy bandwidth between two page-aligned buffers (glibc memcpy, then rep movsb).\n",
	.opts = memcpy_optdefs,
};

int cmd_memcpy(int argc, char **argv)
{
	struct memcpy_opts o = { .size = 64u << 20, .duration = 1 };
	uint64_t size;
	double duration;
	struct err e = { "" };
	uint8_t *a = NULL, *bbase = NULL, *b;

	optable_parse(argc, argv, &memcpy_cmd, &o);
	size = o.size;
	duration = o.duration;
	if (pin_to_cpu(&o.cpus, 0, &e)) {
		fprintf(stderr, "copybench: memcpy: %s\n", e.msg);
		return 1;
	}
	/* posix_memalign returns page-aligned blocks (alignment 4096), so the destination's offset
	 * from the source modulo 4096 is DST_OFFSET_MOD_4096 whatever the allocator's heap looks like */
	if (posix_memalign((void **)&a, PAGE, size) || posix_memalign((void **)&bbase, PAGE, size + DST_OFFSET_MOD_4096)) {
		fprintf(stderr, "copybench: memcpy: cannot allocate 2 x %llu bytes\n", (unsigned long long)size);
		free(a);
		return 1;
	}
	b = bbase + DST_OFFSET_MOD_4096;
	memset(a, 1, size); /* fault every page in before timing */
	memset(b, 2, size);
	/* half the window each: glibc's memcpy, then `rep movsb` */
	double s1, s2, r1 = copy_rate(copy_memcpy, b, a, size, duration / 2, &s1),
		       r2 = copy_rate(copy_rep_movsb, b, a, size, duration / 2, &s2);
	/* the offsets are read from the pointers the copy used, not from the constant */
	printf("{\"memcpy_gbit_per_s\": %.4f, \"rep_movsb_gbit_per_s\": %.4f, \"bound_gbit_per_s\": %.4f, "
	       "\"size\": %llu, \"seconds\": %.4f, \"src_offset_mod_4096\": %u, \"dst_offset_mod_4096\": %u}\n",
	       r1 * 8 / 1e9, r2 * 8 / 1e9, (r1 > r2 ? r1 : r2) * 8 / 1e9, (unsigned long long)size, s1 + s2,
	       (unsigned)((uintptr_t)a % PAGE), (unsigned)(((uintptr_t)b - (uintptr_t)a) % PAGE));
	free(a);
	free(bbase);
	return 0;
}

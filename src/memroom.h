/* How much memory this process can still take before the kernel's OOM killer takes it: the
 * least of the system's MemAvailable (/proc/meminfo) and, for each memory cgroup the process
 * is in and every cgroup above it, the room under its limit. A trial whose buffers would not
 * fit is refused before it allocates (sendopts.c), instead of being killed midway with no
 * record. */
#ifndef COPYBENCH_MEMROOM_H
#define COPYBENCH_MEMROOM_H
#include "common.h"

struct mem_room {
	uint64_t bytes;       /* the least bound; UINT64_MAX when none could be read */
	uint64_t meminfo;     /* MemAvailable; UINT64_MAX when unreadable */
	char bound[300];      /* the least bound in words, e.g. "MemAvailable" or "cgroup /a: ..." */
};

/* A cgroup's room: limit - usage + its file-backed page cache (active_file + inactive_file),
 * which the kernel reclaims within the cgroup before it OOM-kills (as MemAvailable counts
 * the system's reclaimable cache); shmem/tmpfs pages are not on those lists and stay counted
 * as used. v2: memory.max ("max": no limit), memory.current, memory.stat; v1 (a hierarchy
 * mounted with the memory controller): memory.limit_in_bytes, memory.usage_in_bytes,
 * memory.stat's total_* counts. */
void mem_room(struct mem_room *r);
/* The same, with /proc at `proc` (meminfo, self/cgroup, self/mountinfo; the mount points
 * mountinfo names are used as they are): for tests. */
void mem_room_at(const char *proc, struct mem_room *r);
/* "1.5 GiB", "12.0 MiB", "512 bytes" */
const char *mem_human(uint64_t bytes, char *buf, size_t len);
#endif

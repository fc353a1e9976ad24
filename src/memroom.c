/* The memory this process can still take (see memroom.h). */
#include "memroom.h"

#include <limits.h>
#include <stdlib.h>

/* v1 reports "no limit" as PAGE_COUNTER_MAX pages (9223372036854771712 on x86-64): any value
 * this large is none */
#define NO_LIMIT_FROM (1ull << 60)

const char *mem_human(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 1ull << 30)
		snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(1ull << 30));
	else if (bytes >= 1ull << 20)
		snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(1ull << 20));
	else if (bytes >= 1ull << 10)
		snprintf(buf, len, "%.1f KiB", (double)bytes / (double)(1ull << 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	return buf;
}

/* The first line of a small file, without its newline; false when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;

	if (!read_line(path, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && !*end;
}

/* The value of `key` in a "key value" file (memory.stat) or "Key: value kB" (meminfo,
 * multiplied by 1024); 0 when absent. */
static uint64_t keyed_value(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	char line[256];
	size_t klen = strlen(key);
	uint64_t v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != ':'))
			continue;
		v = strtoull(line + klen + 1, NULL, 10);
		if (strstr(line, " kB"))
			v *= 1024;
		break;
	}
	fclose(f);
	return v;
}

/* mountinfo writes a space, tab, newline and backslash in a path as \ooo */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The mount point (and its root within the hierarchy) of the cgroup2 file system (v2) or of a
 * cgroup file system mounted with the memory controller (v1). */
static bool cgroup_mount(const char *proc, bool v2, char *mnt, size_t mlen, char *root, size_t rlen)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "%s/self/mountinfo", proc);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), *save, *fields[5], *fstype, *opts;
		int n = 0;

		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
			fields[n++] = t;
		fstype = strtok_r(sep + 3, " ", &save);
		strtok_r(NULL, " ", &save); /* the source */
		opts = strtok_r(NULL, " \n", &save);
		if (n < 5 || !fstype || !opts)
			continue;
		if (v2 ? strcmp(fstype, "cgroup2") != 0 : strcmp(fstype, "cgroup") != 0)
			continue;
		if (!v2) {
			bool memory = false;
			for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
				memory |= !strcmp(o, "memory");
			if (!memory)
				continue;
		}
		unescape(fields[3]);
		unescape(fields[4]);
		snprintf(root, rlen, "%s", fields[3]);
		snprintf(mnt, mlen, "%s", fields[4]);
		found = true;
	}
	fclose(f);
	return found;
}

/* The process's cgroup path in the v2 hierarchy ("0::/a/b") or in v1's memory hierarchy
 * ("4:memory:/a/b", the controller maybe one of several). */
static bool cgroup_path(const char *proc, bool v2, char *out, size_t len)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "%s/self/cgroup", proc);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *save;

		if (!c2)
			continue;
		*c1 = *c2 = '\0'; /* line: the hierarchy's id; c1 + 1: its controllers */
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (v2) {
			found = !strcmp(line, "0") && c1 + 1 == c2;
		} else {
			for (char *o = strtok_r(c1 + 1, ",", &save); o; o = strtok_r(NULL, ",", &save))
				found |= !strcmp(o, "memory");
		}
		if (found)
			snprintf(out, len, "%s", c2 + 1);
	}
	fclose(f);
	return found;
}

/* One cgroup directory's room; false when it has no limit (or no memory files). */
static bool dir_room(const char *dir, bool v2, uint64_t *room, uint64_t *limit, uint64_t *used)
{
	char path[2 * PATH_MAX + 64], buf[64];
	uint64_t cache;

	snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
	if (!read_line(path, buf, sizeof(buf)) || !strcmp(buf, "max"))
		return false;
	if (!read_u64(path, limit) || *limit >= NO_LIMIT_FROM)
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "memory.current" : "memory.usage_in_bytes");
	if (!read_u64(path, used))
		*used = 0;
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	cache = v2 ? keyed_value(path, "active_file") + keyed_value(path, "inactive_file")
		   : keyed_value(path, "total_active_file") + keyed_value(path, "total_inactive_file");
	cache = cache < *used ? cache : *used;
	*room = *used - cache >= *limit ? 0 : *limit - (*used - cache);
	return true;
}

/* The least room of the process's cgroup and those above it, in one hierarchy. */
static void hierarchy_room(const char *proc, bool v2, struct mem_room *r)
{
	char mnt[PATH_MAX], root[PATH_MAX], cg[PATH_MAX], dir[2 * PATH_MAX + 2];
	const char *rel;
	size_t rootlen;

	if (!cgroup_mount(proc, v2, mnt, sizeof(mnt), root, sizeof(root)) ||
	    !cgroup_path(proc, v2, cg, sizeof(cg)))
		return;
	/* a mount of a sub-tree (a container's) shows the paths below its root */
	rootlen = strlen(root);
	rel = strcmp(root, "/") && !strncmp(cg, root, rootlen) && (cg[rootlen] == '/' || !cg[rootlen])
		      ? cg + rootlen : cg;
	snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
	for (;;) {
		uint64_t room, limit, used;
		size_t dl = strlen(dir);

		while (dl > 1 && dir[dl - 1] == '/')
			dir[--dl] = '\0';
		if (dir_room(dir, v2, &room, &limit, &used) && room < r->bytes) {
			char l[32], u[32];
			const char *name = dir + strlen(mnt);

			r->bytes = room;
			snprintf(r->bound, sizeof(r->bound), "cgroup %.200s%s: %s %s, %s in use",
				 *name ? name : "/", v2 ? "" : " (v1)", v2 ? "memory.max" : "memory.limit_in_bytes",
				 mem_human(limit, l, sizeof(l)), mem_human(used, u, sizeof(u)));
		}
		if (strlen(dir) <= strlen(mnt))
			break;
		*strrchr(dir, '/') = '\0'; /* the cgroup above */
		if (strlen(dir) < strlen(mnt))
			snprintf(dir, sizeof(dir), "%s", mnt);
	}
}

void mem_room_at(const char *proc, struct mem_room *r)
{
	char path[PATH_MAX];
	uint64_t avail;

	r->bytes = r->meminfo = UINT64_MAX;
	r->bound[0] = '\0';
	snprintf(path, sizeof(path), "%s/meminfo", proc);
	avail = keyed_value(path, "MemAvailable");
	if (avail) {
		r->bytes = r->meminfo = avail;
		snprintf(r->bound, sizeof(r->bound), "MemAvailable in %.200s/meminfo", proc);
	}
	hierarchy_room(proc, true, r);
	hierarchy_room(proc, false, r);
}

void mem_room(struct mem_room *r)
{
	mem_room_at("/proc", r);
}

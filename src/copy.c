/* `copybench copy`: file -> file with one method, passes repeated over a measured window.
 * The destination (--dst, or a nameless scratch file in --dir) is rewritten from offset 0 each
 * pass and checked against the pattern at the end; a --dst is never truncated before it is known
 * not to be the source (dstfile.c).
 *
 * cmd_copy runs one trial in phases, each a function: options -> files (source, destination)
 * -> setup (the copying thread) -> window (the passes) -> report; a phase that fails sets the
 * trial's error and skips the rest but the report, which always prints the one record. */
#include "dstfile.h"
#include "method.h"
#include "record.h"
#include "srcfile.h"
#include "trialopts.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

struct copy_opts {
	struct trial_opts t;       /* shared with send (trialopts.h) */
	const struct method *m;
	const char *src, *dst;
};

/* No timer thread: the copying thread advances the phase itself from the clock, and samples
 * the slice edges itself (at its first chunk boundary after each). */
struct copier {
	_Atomic int phase;
	uint64_t measure_at_ns, stop_at_ns, slice_ns;
	struct window_probe *wp;  /* /proc/stat read as the window opens (interference) */
	struct meter *m[2];       /* the copying thread's, splice2's second thread's */
	struct slicer sl[2];      /* written by the copying thread only */
};

/* sampler: the copying thread (splice2's second thread also reports progress: it only moves
 * the phase, so each slicer has one writer) */
static void copier_clock(struct copier *cp, bool sampler)
{
	uint64_t now = now_ns();

	if (sampler && atomic_load(&cp->phase) == PHASE_MEASURE && cp->sl[0].n < SLICE_EDGES &&
	    now >= cp->measure_at_ns + (uint64_t)(cp->sl[0].n + 1) * cp->slice_ns && now < cp->stop_at_ns) {
		struct slicer *sl[2] = { &cp->sl[0], &cp->sl[1] };
		slicer_sample(sl, cp->m, 2);
	}
	if (now >= cp->stop_at_ns)
		atomic_store(&cp->phase, PHASE_STOP);
	else if (now >= cp->measure_at_ns) {
		if (atomic_load(&cp->phase) == PHASE_WARMUP) /* before meter_tick's start snapshot */
			window_probe_start(cp->wp);
		atomic_store(&cp->phase, PHASE_MEASURE);
	}
}

#define COPY_AT(field) OPT_AT(struct copy_opts, field, const char *)

static const struct optdef copy_optdefs[] = {
	TRIALOPT_METHOD(struct copy_opts, "read-write sendfile splice splice2 copy_file_range"),
	TRIALOPT_SIZE(struct copy_opts, "generate a pattern file of this size (default 1M; 1 to 1G)"),
	{ .name = "src", .arg = "PATH", .kind = OPT_STRING, .at = COPY_AT(src),
	  .help = "copy this file instead (no verification possible)" },
	{ .name = "dst", .arg = "PATH", .kind = OPT_STRING, .at = COPY_AT(dst),
	  .help = "destination: a new path, created (default: a nameless scratch file in --dir);\n"
		  "removed again when the trial fails or is stopped by SIGINT/SIGTERM/SIGHUP" },
	TRIALOPT_DIR(struct copy_opts, "where generated and scratch files go (default /var/tmp)"),
	TRIALOPT_CACHE(struct copy_opts, "warm | cold: source pages cached or dropped before each pass"),
	TRIALOPT_CPUS(struct copy_opts, "pin the copying thread (splice2's second thread: next CPU)"),
	TRIALOPT_DURATION(struct copy_opts, "measured window (default 2)"),
	TRIALOPT_WARMUP(struct copy_opts, "warm-up before the window (default 0.5)"),
	TRIALOPT_VERIFY(struct copy_opts, "full | sample | off (default sample)"),
	TRIALOPT_SEED(struct copy_opts, "pattern seed (default 1)"),
	TRIALOPT_COUNTERS(struct copy_opts, "full (getrusage + perf counters + syscalls, default) | rusage"),
	OPT_HELP_ROW,
	{ 0 },
};

static const struct optcmd copy_cmd = {
	.name = "copy",
	.synopsis = "usage: copybench copy --method M [--size BYTES | --src PATH] [options]\n"
		    "  Copies a file to a file for a measured window; prints one JSON record on stdout.\n",
	.opts = copy_optdefs,
};

static void parse(int argc, char **argv, struct copy_opts *o)
{
	const char *method;

	*o = (struct copy_opts){ 0 };
	trialopts_init(&o->t, 1u << 20);
	optable_parse(argc, argv, &copy_cmd, o);
	if (o->t.cache == CACHE_UNSET)
		o->t.cache = 0; /* warm */
	method = o->t.method;
	if (!method)
		die_usage("copy: --method is required (read-write, sendfile, splice, splice2, copy_file_range)");
	o->m = method_find(method);
	if (!o->m || !(o->m->kinds & M_FILE_FILE))
		die_usage("--method: '%s' cannot copy file to file (allowed: read-write, sendfile, splice, splice2, "
			  "copy_file_range)", method);
	if (o->src && o->t.size_set)
		die_usage("--size: give either --src or --size, not both");
	if (o->src && o->t.verify_set && o->t.verify != VERIFY_OFF)
		die_usage("--verify: a --src of your own has no known pattern; only 'off' is allowed (or use --size)");
	if (o->src)
		o->t.verify = VERIFY_OFF;
}

static int copy_progress(struct pass *p, struct meter *m, uint64_t bytes)
{
	struct copier *cp = p->arg;

	meter_add(m, bytes);
	copier_clock(cp, m == cp->m[0]);
	return meter_tick(m, &cp->phase);
}

static int never_stop(struct pass *p, struct meter *m, uint64_t bytes)
{
	(void)p, (void)m, (void)bytes;
	return 0;
}

/* Compare the destination with the pattern (sample: 1 MiB in 16). */
static void verify_dst(int fd, uint64_t size, const struct pattern *pat, enum verify_mode mode,
		       struct record *r, char *first, size_t first_len, struct err *e)
{
	struct verifier v;
	const size_t chunk = 1u << 20;
	uint8_t *buf = malloc(chunk);

	if (!buf) {
		err_set(e, "out of memory");
		return;
	}
	verifier_init(&v, pat, mode);
	for (uint64_t off = 0; off < size;) {
		ssize_t n = pread(fd, buf, chunk_at(off, size, chunk), (off_t)off);
		if (n <= 0) {
			err_set(e, "reading the destination back: %s", n ? strerror(errno) : "it is short");
			break;
		}
		verify_stream(&v, buf, (size_t)n);
		off += (uint64_t)n;
	}
	free(buf);
	r->verify_known = true;
	r->verify_checked = v.bytes_checked;
	r->verify_mismatches = v.mismatches;
	if (v.mismatches) {
		snprintf(first, first_len, "%s", v.first);
		r->first_mismatch = first;
		err_set(e, "verification failed: %llu mismatches, first at %s", (unsigned long long)v.mismatches, first);
	}
}

/* One `copy` trial: what its phases share (cmd_copy runs them in order). */
struct copy_run {
	struct copy_opts o;
	struct copier cp;
	struct meter meter, helper;   /* the copying thread's; splice2's second thread's */
	struct srcfile src;
	int dst;
	char dst_path[512], first[200];
	struct pattern *pat;
	struct mctx c;
	bool opened;                  /* the method's open succeeded: close it */
	struct window_probe wp;
	struct interference *itf;
	struct record r;
	struct err e;
};

/* Phase 1, options: the command line and the record's config. */
static void copy_options(int argc, char **argv, struct copy_run *run)
{
	const struct copy_opts *o = &run->o;

	parse(argc, argv, &run->o);
	window_probe_init(&run->wp);
	run->cp.wp = &run->wp;
	run->r = (struct record){ .command = "copy", .method = o->m->name, .mode = "stream", .protocol = NULL,
				  .host = NULL, .size = 0, .fields = 0, .threads = 1, .cpus_sender = &o->t.cpus,
				  .duration_s = o->t.duration, .warmup_s = o->t.warmup,
				  .verify = verify_names[o->t.verify], .seed = o->t.seed,
				  .cache = o->t.cache ? "cold" : "warm", .file = o->src, .family = NULL,
				  .receiver_unavailable = "file to file: no receiver",
				  .counters = counter_set_names[o->t.counters] };
}

/* Phase 2, the files: the source (--src, or a pattern file in --dir), then the destination
 * (--dst, decided on once the source is open so the two can be compared; or a nameless
 * scratch file in --dir). */
static int copy_files(struct copy_run *run)
{
	const struct copy_opts *o = &run->o;

	if (!run->pat) {
		err_set(&run->e, "out of memory");
		return -1;
	}
	if (o->src) {
		srcfile_open_user(&run->src, "--src", o->src);
	} else {
		pattern_init(run->pat, o->t.seed, o->t.size, false);
		if (srcfile_generate(&run->src, o->t.dir, o->t.size, run->pat, &run->e))
			return -1;
	}
	run->r.size = run->r.file_size = run->src.size;
	if (o->dst) {
		/* after the source is open, so the open destination can be compared with it */
		if ((run->dst = dstfile_open("--dst", o->dst, &run->src, "--src", &run->e)) < 0)
			return -1;
		snprintf(run->dst_path, sizeof(run->dst_path), "%s", o->dst);
	} else if ((run->dst = scratch_file(o->t.dir, run->dst_path, sizeof(run->dst_path), &run->e)) < 0) {
		return -1;
	}
	return 0;
}

/* The file system a file is on, for messages: "tmpfs (device 0:52)". */
static const char *fs_of(int fd, char *buf, size_t len)
{
	static const struct { unsigned long magic; const char *name; } names[] = {
		{ TMPFS_MAGIC, "tmpfs" }, { EXT4_SUPER_MAGIC, "ext2/3/4" }, { XFS_SUPER_MAGIC, "xfs" },
		{ BTRFS_SUPER_MAGIC, "btrfs" }, { NFS_SUPER_MAGIC, "nfs" }, { OVERLAYFS_SUPER_MAGIC, "overlayfs" },
		{ RAMFS_MAGIC, "ramfs" }, { F2FS_SUPER_MAGIC, "f2fs" }, { FUSE_SUPER_MAGIC, "fuse" },
		{ V9FS_MAGIC, "9p" }, { MSDOS_SUPER_MAGIC, "vfat" }, { 0x2fc12fc1, "zfs" }, { 0xca451a4e, "bcachefs" },
	};
	struct statfs fs;
	struct stat st;
	char type[32] = "an unknown file system";

	if (fstatfs(fd, &fs) == 0) {
		snprintf(type, sizeof(type), "file system type 0x%lx", (unsigned long)fs.f_type);
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if ((unsigned long)fs.f_type == names[i].magic)
				snprintf(type, sizeof(type), "%s", names[i].name);
	}
	if (fstat(fd, &st) == 0)
		snprintf(buf, len, "%s (device %u:%u)", type, major(st.st_dev), minor(st.st_dev));
	else
		snprintf(buf, len, "%s", type);
	return buf;
}

/* A failed phase's message as the user needs it: what the files show went wrong (the source
 * changed size; the destination's file system is full; copy_file_range refused two file
 * systems), which file it concerns and what to do, with the call's own message (the call
 * and its error) kept inside. `cause`: errno just after the failure (the copying thread's;
 * splice2's second thread's error leaves it unset, hence the checks on the files themselves). */
static void explain_failure(struct copy_run *run, int cause)
{
	const struct copy_opts *o = &run->o;
	char said[sizeof(run->e.msg)], src[600], dst[600];
	struct stat st, dst_st;
	struct statvfs vfs;
	uint64_t left = run->src.size, room = UINT64_MAX;

	if (!run->e.msg[0])
		return;
	snprintf(said, sizeof(said), "%s", run->e.msg);
	run->e.msg[0] = '\0';
	if (o->src)
		snprintf(src, sizeof(src), "--src '%s'", o->src);
	else
		snprintf(src, sizeof(src), "the generated source in --dir '%s'", o->t.dir);
	if (o->dst)
		snprintf(dst, sizeof(dst), "--dst '%s'", o->dst);
	else
		snprintf(dst, sizeof(dst), "the scratch destination in --dir '%s'", o->t.dir);

	/* what to do comes before the call's own message: a message is cut at its end */
	if (run->src.fd >= 0 && fstat(run->src.fd, &st) == 0 && (uint64_t)st.st_size != run->src.size) {
		err_set(&run->e, "%s changed size during the copy (%llu bytes at the start, %llu now): copy a file "
			"that nothing else writes while copybench runs; %s", src, (unsigned long long)run->src.size,
			(unsigned long long)st.st_size, said);
		return;
	}
	if (run->dst < 0) {
		err_set(&run->e, "%s", said);
		return;
	}
	if (cause == EXDEV && o->m == &m_copy_file_range) {
		char fa[80], fb[80];

		err_set(&run->e, "copy_file_range cannot copy between file systems on this kernel (%s): put --dst on "
			"the same file system as the source, or use another --method (%s is on %s, %s on %s)",
			strerror(EXDEV), src, fs_of(run->src.fd, fa, sizeof(fa)), dst, fs_of(run->dst, fb, sizeof(fb)));
		return;
	}
	if (fstat(run->dst, &dst_st) == 0 && (uint64_t)dst_st.st_size < left)
		left -= (uint64_t)dst_st.st_size; /* the bytes the first pass has still to write */
	if (fstatvfs(run->dst, &vfs) == 0)
		room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (cause == ENOSPC || cause == EDQUOT || room < left) {
		err_set(&run->e, "%s is on a full file system (%s; %llu bytes free, the copy needs %llu bytes): free space "
			"there or put %s on a file system with room; %s", dst, strerror(cause == EDQUOT ? EDQUOT : ENOSPC),
			(unsigned long long)(room == UINT64_MAX ? 0 : room), (unsigned long long)run->src.size,
			o->dst ? "--dst" : "--dir", said);
		return;
	}
	err_set(&run->e, "%s (copying %s to %s)", said, src, dst);
}

/* Phase 3, the copying thread: pinned, measured, the method opened, the cache warmed. */
static int copy_setup(struct copy_run *run)
{
	const struct copy_opts *o = &run->o;

	name_thread("cb-copy", o->t.seed); /* the copying thread, in CPU profiles */
	if (pin_to_cpu(&o->t.cpus, 0, &run->e))
		return -1;
	run->c = (struct mctx){ .fd = run->dst, .dst_file = true, .src_fd = run->src.fd,
				.file_size = run->src.size, .src_path = run->src.path, .pat = run->pat,
				.err = &run->e, .helper_meter = &run->helper, .phase = &run->cp.phase,
				.counters = o->t.counters };
	meter_open(&run->meter, o->t.counters);
	meter_set_socket(&run->meter, -1, false, "copy: file to file, no socket");
	if (o->m->open && o->m->open(&run->c))
		return -1;
	run->opened = true;
	if (!o->t.cache && warm_cache(run->src.fd, run->src.size, &run->e))
		return -1;
	return 0;
}

/* Phase 4, the window: whole passes, each from offset 0, from warm-up to the stop; the phase
 * follows the clock (copier_clock). Then, for verification, one whole pass outside it. */
static int copy_window(struct copy_run *run)
{
	const struct copy_opts *o = &run->o;
	struct copier *cp = &run->cp;
	struct pass p = { .progress = copy_progress, .arg = cp, .meter = &run->meter };
	uint64_t t = now_ns();

	cp->measure_at_ns = t + (uint64_t)(o->t.warmup * 1e9);
	cp->stop_at_ns = cp->measure_at_ns + (uint64_t)(o->t.duration * 1e9);
	cp->slice_ns = (uint64_t)(o->t.duration * 1e9) / SLICES;
	cp->m[0] = &run->meter;
	cp->m[1] = &run->helper;
	for (copier_clock(cp, true); !meter_tick(&run->meter, &cp->phase); copier_clock(cp, true)) {
		if (o->t.cache && drop_cache(run->src.fd, &run->e))
			return -1;
		if (lseek(run->dst, 0, SEEK_SET) < 0) {
			err_sys(&run->e, "lseek destination");
			return -1;
		}
		if (o->m->pass(&run->c, &p)) {
			explain_failure(run, errno);
			return -1;
		}
		if (run->meter.seen != PHASE_STOP)
			run->meter.messages++; /* whole passes */
	}
	window_probe_end(&run->wp); /* after the end snapshot */
	meter_transition(&run->meter, PHASE_STOP);
	/* the window may end mid-pass: one whole pass, outside the window, before checking */
	if (o->t.verify != VERIFY_OFF) {
		struct pass whole = { .progress = never_stop, .meter = &run->meter };
		if (lseek(run->dst, 0, SEEK_SET) < 0) {
			err_sys(&run->e, "lseek destination");
			return -1;
		}
		if (o->m->pass(&run->c, &whole)) {
			explain_failure(run, errno);
			return -1;
		}
	}
	return 0;
}

/* Phase 5, collect and report: the totals, the destination checked, the record printed. */
static int copy_report(struct copy_run *run)
{
	const struct copy_opts *o = &run->o;
	struct meter *meters[2] = { &run->meter, &run->helper };
	struct slicer *slicers[2] = { &run->cp.sl[0], &run->cp.sl[1] };
	struct record *r = &run->r;

	meter_transition(&run->meter, PHASE_STOP);
	if (run->opened && o->m->close)
		o->m->close(&run->c);
	side_totals(&r->sender, meters, slicers, run->helper.have_end ? 2 : 1, o->t.duration / SLICES, NULL);
	r->have_result = run->opened;
	if (!run->e.msg[0] && o->t.verify != VERIFY_OFF)
		verify_dst(run->dst, run->src.size, run->pat, o->t.verify, r, run->first, sizeof(run->first), &run->e);
	if (run->itf) {
		window_probe_finish(&run->wp, run->itf);
		r->interference = run->itf;
	}
	record_judge_window(r, &run->e);
	r->error = run->e.msg[0] ? run->e.msg : NULL;
	record_print(stdout, r);
	record_summary(stderr, r);
	/* a --dst copybench created stays only when the trial succeeded: a failed one (or a missed
	 * window, to be run again with the same --dst) removes it */
	if (record_exit_code(r) == 0)
		dstfile_keep();
	else if (dstfile_discard())
		fprintf(stderr, "copybench: removed --dst '%s', which this failed trial had created\n", o->dst);
	meter_close(&run->meter);
	if (run->dst >= 0)
		close(run->dst);
	if (run->src.fd >= 0)
		close(run->src.fd);
	free(run->pat);
	free(run->itf);
	free(run->wp.start); /* window_probe_finish freed them unless itf was NULL */
	free(run->wp.end);
	return record_exit_code(r);
}

int cmd_copy(int argc, char **argv)
{
	struct copy_run run = { .cp = { .phase = PHASE_WARMUP }, .src = { .fd = -1 }, .dst = -1 };

	run.pat = malloc(sizeof(*run.pat));
	run.itf = malloc(sizeof(*run.itf));
	copy_options(argc, argv, &run);
	if (!copy_files(&run)) {
		if (copy_setup(&run))
			explain_failure(&run, errno);
		else
			copy_window(&run);
	}
	return copy_report(&run);
}

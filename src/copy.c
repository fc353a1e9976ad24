/* `copybench copy`: file -> file with one method, passes repeated over a measured window.
 * The destination (--dst, or a nameless scratch file in --dir) is rewritten from offset 0 each
 * pass and checked against the pattern at the end; a --dst is never truncated before it is known
 * not to be the source (dstfile.c). */
#include "dstfile.h"
#include "method.h"
#include "record.h"
#include "srcfile.h"
#include "trialopts.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct copy_opts {
	struct trial_opts t;       /* shared with send (trialopts.h) */
	const struct method *m;
	const char *src, *dst;
};

/* No timer thread: the copying thread advances the phase itself from the clock. */
struct copier {
	_Atomic int phase;
	uint64_t measure_at_ns, stop_at_ns;
	struct window_probe *wp;  /* /proc/stat read as the window opens (interference) */
};

static void copier_clock(struct copier *cp)
{
	uint64_t now = now_ns();

	if (now >= cp->stop_at_ns)
		atomic_store(&cp->phase, PHASE_STOP);
	else if (now >= cp->measure_at_ns) {
		if (atomic_load(&cp->phase) == PHASE_WARMUP) /* before meter_tick's start snapshot */
			window_probe_start(cp->wp);
		atomic_store(&cp->phase, PHASE_MEASURE);
	}
}

static void copy_usage(FILE *f)
{
	fputs("usage: copybench copy --method M [--size BYTES | --src PATH] [options]\n"
	      "  Copies a file to a file for a measured window; prints one JSON record on stdout.\n"
	      "  --method M     read-write sendfile splice splice2 copy_file_range\n"
	      "  --size BYTES   generate a pattern file of this size (default 1M; 1 to 1G)\n"
	      "  --src PATH     copy this file instead (no verification possible)\n"
	      "  --dst PATH     destination, truncated (a regular file that is not the source, or a new path;\n"
	      "                 default: a nameless scratch file in --dir)\n"
	      "  --dir DIR      where generated and scratch files go (default /var/tmp)\n"
	      "  --cache C      warm | cold: source pages cached or dropped before each pass\n"
	      "  --cpus LIST    pin the copying thread (splice2's second thread: next CPU)\n"
	      "  --duration S   measured window (default 2)   --warmup S  (default 0.5)\n"
	      "  --verify V     full | sample | off (default sample)   --seed N (default 1)\n"
	      "  --counters C   full (getrusage + perf counters + syscalls, default) | rusage\n", f);
}

static const struct option copy_own[] = {
	{ "src", 1, 0, 'S' }, { "dst", 1, 0, 'D' }, { 0 },
};

static void copy_opt(int val, const char *arg, void *opts)
{
	struct copy_opts *o = opts;

	if (val == 'S')
		o->src = arg;
	else if (val == 'D')
		o->dst = arg;
}

static void parse(int argc, char **argv, struct copy_opts *o)
{
	const struct trial_cmd cmd = { .name = "copy", .own = copy_own, .own_opt = copy_opt,
				       .usage = copy_usage, .opts = o };
	const char *method;

	*o = (struct copy_opts){ 0 };
	trialopts_init(&o->t, 1u << 20);
	trialopts_parse(argc, argv, &o->t, &cmd);
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

	m->bytes += bytes;
	copier_clock(cp);
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

int cmd_copy(int argc, char **argv)
{
	struct copy_opts o;
	struct copier cp = { .phase = PHASE_WARMUP };
	struct meter meter = { 0 }, helper = { 0 };
	char dst_path[512], first[200] = "";
	struct srcfile src = { .fd = -1 };
	struct pattern *pat = malloc(sizeof(*pat));
	struct err e = { "" };
	struct mctx c;
	struct record r;
	struct meter *meters[2] = { &meter, &helper };
	struct pass p = { .progress = copy_progress, .arg = &cp, .meter = &meter };
	bool opened = false;
	int dst = -1;
	uint64_t t;
	struct window_probe wp;
	struct interference *itf = malloc(sizeof(*itf));

	parse(argc, argv, &o);
	window_probe_init(&wp);
	cp.wp = &wp;
	r = (struct record){ .command = "copy", .method = o.m->name, .mode = "stream", .protocol = NULL,
			     .host = NULL, .size = 0, .fields = 0, .threads = 1, .cpus_sender = &o.t.cpus,
			     .duration_s = o.t.duration, .warmup_s = o.t.warmup, .verify = verify_names[o.t.verify],
			     .seed = o.t.seed, .cache = o.t.cache ? "cold" : "warm", .file = o.src, .family = NULL,
			     .receiver_unavailable = "file to file: no receiver", .counters = counter_set_names[o.t.counters] };
	if (!pat) {
		err_set(&e, "out of memory");
		goto done;
	}
	if (o.src) {
		srcfile_open_user(&src, "--src", o.src);
	} else {
		pattern_init(pat, o.t.seed, o.t.size, false);
		if (srcfile_generate(&src, o.t.dir, o.t.size, pat, &e))
			goto done;
	}
	r.size = r.file_size = src.size;
	if (o.dst) {
		/* after the source is open, so the open destination can be compared with it */
		if ((dst = dstfile_open("--dst", o.dst, &src, "--src", &e)) < 0)
			goto done;
		snprintf(dst_path, sizeof(dst_path), "%s", o.dst);
	} else if ((dst = scratch_file(o.t.dir, dst_path, sizeof(dst_path), &e)) < 0) {
		goto done;
	}
	name_thread("cb-copy", o.t.seed); /* the copying thread, in CPU profiles */
	if (pin_to_cpu(&o.t.cpus, 0, &e))
		goto done;
	c = (struct mctx){ .fd = dst, .dst_file = true, .src_fd = src.fd, .file_size = src.size,
			   .src_path = src.path, .pat = pat, .err = &e, .helper_meter = &helper,
			   .phase = &cp.phase, .counters = o.t.counters };
	meter_open(&meter, o.t.counters);
	if (o.m->open && o.m->open(&c))
		goto done;
	opened = true;
	if (!o.t.cache && warm_cache(src.fd, src.size, &e))
		goto done;
	t = now_ns();
	cp.measure_at_ns = t + (uint64_t)(o.t.warmup * 1e9);
	cp.stop_at_ns = cp.measure_at_ns + (uint64_t)(o.t.duration * 1e9);
	for (copier_clock(&cp); !meter_tick(&meter, &cp.phase); copier_clock(&cp)) {
		if (o.t.cache && drop_cache(src.fd, &e))
			goto done;
		if (lseek(dst, 0, SEEK_SET) < 0) {
			err_sys(&e, "lseek destination");
			goto done;
		}
		if (o.m->pass(&c, &p))
			goto done;
		if (meter.seen != PHASE_STOP)
			meter.messages++; /* whole passes */
	}
	window_probe_end(&wp); /* after the end snapshot */
	meter_transition(&meter, PHASE_STOP);
	/* the window may end mid-pass: one whole pass, outside the window, before checking */
	if (o.t.verify != VERIFY_OFF) {
		struct pass whole = { .progress = never_stop, .meter = &meter };
		if (lseek(dst, 0, SEEK_SET) < 0 || o.m->pass(&c, &whole))
			goto done;
	}
done:
	meter_transition(&meter, PHASE_STOP);
	if (opened && o.m->close)
		o.m->close(&c);
	side_totals(&r.sender, meters, helper.have_end ? 2 : 1);
	r.have_result = opened;
	if (!e.msg[0] && o.t.verify != VERIFY_OFF)
		verify_dst(dst, src.size, pat, o.t.verify, &r, first, sizeof(first), &e);
	if (itf) {
		window_probe_finish(&wp, itf);
		r.interference = itf;
	}
	record_judge_window(&r, &e);
	r.error = e.msg[0] ? e.msg : NULL;
	record_print(stdout, &r);
	record_summary(stderr, &r);
	meter_close(&meter);
	if (dst >= 0)
		close(dst);
	if (src.fd >= 0)
		close(src.fd);
	free(pat);
	free(itf);
	free(wp.start); /* window_probe_finish freed them unless itf was NULL */
	free(wp.end);
	return record_exit_code(&r);
}

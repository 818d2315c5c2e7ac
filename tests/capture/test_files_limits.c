/* The file source's limits of capture/read_limits.h at size-1, size and size+1: files kept open (regular files and FIFOs), frames per batch, link types per filter. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/read_limits.h"
#include "capture/files.h"
#include "tests/capture/capgen.h"

static char dir[] = "/tmp/rt-files-limits-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#define MAX_FILES (RT_READ_KEEP_OPEN + 2)

/* The files of one test and what the stream must hand out. */
struct files {
	unsigned n;
	char path[MAX_FILES][256];
	struct cg_file cg[MAX_FILES];
	pid_t writer[MAX_FILES]; /* a child writing a FIFO, or 0 */
};

/* File i of fs (a FIFO written by a child when `fifo`) holding `frames` frames at times start + 10 * k. */
static void add_file(struct files *fs, bool fifo, unsigned frames, uint64_t start)
{
	unsigned i = fs->n++;
	struct cg_file *f = &fs->cg[i];
	snprintf(fs->path[i], sizeof(fs->path[i]), "%s/f%02u.pcap", dir, i);
	cg_pcap(f, false, true, 1, 0);
	for (unsigned k = 0; k < frames; k++)
		cg_frame(f, 0, start + 10ull * k, 60, 60, i << 16 | k);
	if (fifo) {
		assert_int_equal(mkfifo(fs->path[i], 0600), 0);
		fs->writer[i] = fork();
		assert_true(fs->writer[i] >= 0);
		if (fs->writer[i] == 0) {
			/* the child: its bytes once, then gone; a reader that closed early is no error */
			signal(SIGPIPE, SIG_IGN);
			int fd = open(fs->path[i], O_WRONLY);
			size_t off = 0;
			while (fd >= 0 && off < f->b.len) {
				ssize_t w = write(fd, f->b.p + off, f->b.len - off);
				if (w <= 0)
					break;
				off += (size_t)w;
			}
			_exit(0);
		}
		return;
	}
	FILE *fp = fopen(fs->path[i], "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(f->b.p, 1, f->b.len, fp), f->b.len);
	assert_int_equal(fclose(fp), 0);
}

/* The stream of fs's files in time order (ties: the order given) against the frames written; then clean up. */
static void check_stream(struct files *fs, const char *bpf, const char *refused)
{
	struct rt_source_file_spec specs[MAX_FILES];
	size_t total = 0;
	for (unsigned i = 0; i < fs->n; i++) {
		specs[i] = (struct rt_source_file_spec){.path = fs->path[i]};
		total += fs->cg[i].nframes;
	}
	struct rt_source_config cfg = {.bpf = bpf};
	struct rt_source *s = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	alarm(60); /* a reader waiting on a FIFO again would wait for ever */
	int rc = rt_source_open_files(&s, specs, fs->n, &cfg, errbuf);
	if (rc < 0)
		fail_msg("open: %s", errbuf);
	struct rt_frame fr[7]; /* a batch size that divides no limit */
	size_t got = 0;
	uint64_t last = 0;
	unsigned next[MAX_FILES] = {0};
	int n;
	while ((n = rt_source_next(s, fr, 7, errbuf)) > 0) {
		for (int i = 0; i < n; i++, got++) {
			assert_true(fr[i].file < fs->n);
			const struct cg_file *f = &fs->cg[fr[i].file];
			unsigned k = next[fr[i].file]++;
			assert_true(k < f->nframes);
			assert_true(fr[i].ts_ns >= last);
			last = fr[i].ts_ns;
			assert_int_equal(fr[i].ts_ns, f->frames[k].ts_ns);
			assert_int_equal(fr[i].linktype, f->frames[k].linktype);
			uint8_t want[60];
			cg_frame_bytes(f->frames[k].seed, want, sizeof(want));
			assert_memory_equal(fr[i].data, want, fr[i].caplen);
		}
	}
	alarm(0);
	if (refused) {
		assert_true(n < 0);
		if (!strstr(errbuf, refused))
			fail_msg("%s, not %s", errbuf, refused);
	} else if (n < 0) {
		fail_msg("after %zu frames: %s", got, errbuf);
	} else {
		assert_int_equal(got, total);
	}
	rt_source_close(s);
	for (unsigned i = 0; i < fs->n; i++) {
		int status;
		if (fs->writer[i])
			assert_int_equal(waitpid(fs->writer[i], &status, 0), fs->writer[i]);
		unlink(fs->path[i]);
		cg_free(&fs->cg[i]);
	}
}

/*
 * RT_READ_KEEP_OPEN - 1, RT_READ_KEEP_OPEN and one more files, regular or
 * FIFOs, the last one given the earliest (read first, opened last): a FIFO
 * past the files kept open was closed after its first frames, and opening
 * it again waited for ever (or read what was left as a new file).
 */
static void test_files_kept_open(void **state)
{
	(void)state;
	for (unsigned n = RT_READ_KEEP_OPEN - 1; n <= RT_READ_KEEP_OPEN + 1; n++) {
		for (int fifo = 0; fifo < 2; fifo++) {
			struct files fs = {0};
			for (unsigned i = 0; i < n; i++)
				add_file(&fs, fifo, 100, 1000000ull * (n - i) + i);
			check_stream(&fs, NULL, NULL);
		}
	}
}

/* Files of RT_READ_FILE_BATCH - 1, RT_READ_FILE_BATCH and one more frames, interleaved in time. */
static void test_frames_per_batch(void **state)
{
	(void)state;
	struct files fs = {0};
	for (unsigned i = 0; i < 3; i++)
		add_file(&fs, false, RT_READ_FILE_BATCH - 1 + i, 1000 + i);
	for (unsigned i = 0; i < 3; i++) /* and the same files one after the other */
		add_file(&fs, false, RT_READ_FILE_BATCH - 1 + i, 100000 * (i + 1));
	check_stream(&fs, NULL, NULL);
}

/* A filter over files mixing RT_READ_MAX_FILTERS - 1, RT_READ_MAX_FILTERS and one more link types. */
static void test_filter_link_types(void **state)
{
	(void)state;
	static const int linktypes[] = {1, 101, 113, 276, 228, 105, 127, 147, 148};
	_Static_assert(sizeof(linktypes) / sizeof(linktypes[0]) == RT_READ_MAX_FILTERS + 1,
	               "one link type more than the filters");
	for (unsigned n = RT_READ_MAX_FILTERS - 1; n <= RT_READ_MAX_FILTERS + 1; n++) {
		struct files fs = {.n = 1};
		struct cg_file *f = &fs.cg[0];
		snprintf(fs.path[0], sizeof(fs.path[0]), "%s/types.pcapng", dir);
		cg_pcapng(f, false);
		for (unsigned i = 0; i < n; i++)
			cg_idb(f, linktypes[i], 0, true);
		for (unsigned i = 0; i < n; i++)
			cg_frame(f, i, 1000 + i, 60, 60, i);
		FILE *fp = fopen(fs.path[0], "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(f->b.p, 1, f->b.len, fp), f->b.len);
		assert_int_equal(fclose(fp), 0);
		check_stream(&fs, "len >= 0",
		             n > RT_READ_MAX_FILTERS ? "-f: the files mix more than 8 link types"
		                                     : NULL);
	}
}

/* Two captures' drops (not one rotated capture: their statistics start apart) add up without wrapping. */
static void test_drop_sums(void **state)
{
	(void)state;
	struct rt_source_file_spec specs[2];
	char paths[2][256];
	for (unsigned i = 0; i < 2; i++) {
		struct cg_file f;
		cg_pcapng(&f, false);
		cg_idb(&f, 1, 0, true);
		cg_frame(&f, 0, 1000 + i, 60, 60, i);
		cg_isb(&f, 0, 1000 + i, 1ull << 63, 1ull << 63);
		snprintf(paths[i], sizeof(paths[i]), "%s/drops%u.pcapng", dir, i);
		FILE *fp = fopen(paths[i], "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(f.b.p, 1, f.b.len, fp), f.b.len);
		assert_int_equal(fclose(fp), 0);
		specs[i] = (struct rt_source_file_spec){.path = paths[i], .vantage = "one"};
		cg_free(&f);
	}
	struct rt_source *s;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_open_files(&s, specs, 2, NULL, errbuf), 0);
	struct rt_frame fr[4];
	while (rt_source_next(s, fr, 4, errbuf) > 0)
		;
	struct rt_source_stats st;
	assert_int_equal(rt_source_stats(s, &st, errbuf), 0);
	assert_true(st.drops_known);
	assert_true(st.if_dropped == UINT64_MAX && st.dropped == UINT64_MAX);
	rt_source_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_files_kept_open),
	    cmocka_unit_test(test_frames_per_batch),
	    cmocka_unit_test(test_filter_link_types),
	    cmocka_unit_test(test_drop_sums),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

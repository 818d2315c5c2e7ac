/* A classic pcap's frames read whole into memory, for the analyzer's tests that feed frames (a staged analysis). */
#ifndef RT_TEST_ANALYZE_PCAP_FRAMES_H
#define RT_TEST_ANALYZE_PCAP_FRAMES_H

/* include after <cmocka.h>: the helpers assert */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyze.h"
#include "analyze/stage.h"
#include "dissect/dissect.h"

/* A classic pcap's frames (little-endian, micro- or nanosecond; Ethernet), read whole. */
struct frames {
	struct rt_frame *f;
	uint8_t *bytes;
	unsigned n;
	/* a file's mapping the frames' bytes lie in (or some: the others copied), for the stage; or NULL */
	const uint8_t *map;
	size_t map_len;
};

static inline void read_frames(const char *path, struct frames *out)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long size = ftell(fp);
	assert_true(size >= 24);
	rewind(fp);
	out->bytes = malloc((size_t)size);
	assert_non_null(out->bytes);
	assert_int_equal(fread(out->bytes, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	const uint8_t *p = out->bytes;
	uint32_t magic =
	    (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	assert_true(magic == 0xa1b2c3d4u || magic == 0xa1b23c4du);
	uint64_t frac = magic == 0xa1b23c4du ? 1 : 1000;
	out->f = calloc((size_t)size / 16, sizeof(*out->f));
	assert_non_null(out->f);
	out->n = 0;
	for (long at = 24; at + 16 <= size;) {
		uint32_t h[4];
		for (int i = 0; i < 4; i++)
			h[i] = (uint32_t)p[at + 4 * i] | (uint32_t)p[at + 4 * i + 1] << 8 |
			       (uint32_t)p[at + 4 * i + 2] << 16 |
			       (uint32_t)p[at + 4 * i + 3] << 24;
		at += 16;
		assert_true(at + (long)h[2] <= size);
		out->f[out->n++] =
		    (struct rt_frame){.data = p + at,
		                      .caplen = h[2],
		                      .wirelen = h[3],
		                      .ts_ns = (uint64_t)h[0] * 1000000000u + h[1] * frac,
		                      .seq = out->n + 1,
		                      .linktype = 1};
		at += h[2];
	}
}

/*
 * The frames through `an` (decoded here, numbered from 1), or through a
 * stage of `threads` threads over it (threads > 1) split into `parts` (0:
 * the stage's default), those in fr->map taken in place; finished.
 */
static inline void feed_frames(struct rt_analyzer *an, const struct frames *fr, unsigned threads,
                               unsigned parts)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_an_stage *st = NULL;
	if (threads > 1) {
		assert_true(rt_an_stage_fits(an));
		assert_int_equal(rt_an_stage_start(&st, an, threads, parts, errbuf), 0);
		if (fr->map)
			rt_an_stage_in_place(st, fr->map, fr->map_len);
	}
	struct rt_dissect_opts dopts;
	rt_dissect_opts_init(&dopts);
	for (unsigned i = 0; i < fr->n; i++) {
		if (st) {
			assert_int_equal(rt_an_stage_frame(st, &fr->f[i]), 0);
			continue;
		}
		struct rt_record rec;
		rt_dissect(&dopts, &fr->f[i], &rec);
		rt_analyzer_feed_frame(an, &rec, i + 1);
	}
	assert_int_equal(st ? rt_an_stage_finish(st, errbuf) : rt_analyzer_finish(an, errbuf), 0);
}

#endif

/* Split and merge tests: a capture split into two analyzers, by host pair or frame by frame, and the merged report checked against one pass. */
#ifndef RT_TEST_ANALYZE_MERGE_SPLIT_H
#define RT_TEST_ANALYZE_MERGE_SPLIT_H

/* include after <cmocka.h>: the helpers assert */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"

#define MAX_PAIRS 256
/* The host pairs seen so far, unordered: the i-th goes to analyzer i % 2; frames without IP to analyzer `no_ip`. */
struct split {
	uint8_t a[MAX_PAIRS][16], b[MAX_PAIRS][16];
	unsigned n, no_ip;
};

/* Which of the two analyzers takes `rec`: its host pair's, or the one of frames without IP. */
static inline unsigned part_of(struct split *s, const struct rt_record *rec)
{
	if (!rec->ip_version)
		return s->no_ip;
	const uint8_t *lo = rec->src_ip, *hi = rec->dst_ip;
	if (memcmp(lo, hi, 16) > 0) {
		lo = rec->dst_ip;
		hi = rec->src_ip;
	}
	for (unsigned i = 0; i < s->n; i++)
		if (!memcmp(s->a[i], lo, 16) && !memcmp(s->b[i], hi, 16))
			return i % 2;
	assert_true(s->n < MAX_PAIRS);
	memcpy(s->a[s->n], lo, 16);
	memcpy(s->b[s->n], hi, 16);
	return s->n++ % 2;
}

/* Where each frame goes: one pass, and the two parts split by host pair. */
struct feeding {
	struct rt_analyzer *one, **two;
	struct split split;
	uint64_t frame; /* in the one stream */
};

static inline void feed_both(struct feeding *fd, const struct rt_record *rec)
{
	rt_analyzer_feed(fd->one, rec);
	rt_analyzer_feed_frame(fd->two[part_of(&fd->split, rec)], rec, ++fd->frame);
}

static inline void feed_twinned(void *ctx, struct rt_record *rec)
{
	feed_both(ctx, rec);
	if (!rec->ip_version)
		return;
	/* its twin between two other hosts, at the same time: a second host pair at least */
	rec->src_ip[rec->ip_version == 4 ? 3 : 15] ^= 0x80;
	rec->dst_ip[rec->ip_version == 4 ? 3 : 15] ^= 0x80;
	feed_both(ctx, rec);
}

/*
 * A scenario's classic pcap (in dir), each IP frame followed by its twin between
 * two other hosts, fed to `one` whole and to two[] split by host pair
 * (frames numbered in the one stream), the frames without IP to two[no_ip];
 * all finished. Returns how many host pairs it has.
 */
static inline unsigned feed_scenario(const char *dir, const char *name, struct rt_analyzer *one,
                                     struct rt_analyzer *two[2], unsigned no_ip)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct feeding *fd = calloc(1, sizeof(*fd));
	assert_non_null(fd);
	fd->one = one;
	fd->two = two;
	fd->split.no_ip = no_ip;
	each_pcap_record(path, feed_twinned, fd);
	assert_int_equal(finish(one), 0);
	assert_int_equal(finish(two[0]), 0);
	assert_int_equal(finish(two[1]), 0);
	unsigned pairs = fd->split.n;
	free(fd);
	return pairs;
}

/* The JSON text with the value of every `"key":` made null (numbers, null, strings); frees json. */
static inline char *null_key(char *json, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	char *out = malloc(4 * strlen(json) + 1), *o = out; /* a value is at least 1 byte */
	assert_non_null(out);
	const char *p = json, *at;
	while ((at = strstr(p, pat))) {
		const char *v = at + strlen(pat), *end;
		v += *v == ' ';
		end = v;
		if (*end == '"') {
			for (end++; *end && *end != '"'; end++)
				if (*end == '\\' && end[1])
					end++;
			end += *end == '"';
		} else {
			end += strcspn(end, ",}]\n");
		}
		memcpy(o, p, (size_t)(v - p));
		o += v - p;
		memcpy(o, "null", 4);
		o += 4;
		p = end;
	}
	strcpy(o, p);
	free(json);
	return out;
}

/*
 * The merged analyzer reports what one pass does, but for what a merge
 * cannot know (analyze/README.md, "Split and merge"): the bytes around
 * episodes and their CE peak, and the verdict's sentence naming that peak.
 */
static inline void same_report(const char *name, struct rt_analyzer *one,
                               struct rt_analyzer *merged)
{
	char *want = report_json(one), *got = report_json(merged);
	static const char *const unknown[] = {"gbps_before", "gbps_during", "gbps_after",
	                                      "peak_ce_per_s", "when"};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		want = null_key(want, unknown[i]);
		got = null_key(got, unknown[i]);
	}
	if (strcmp(want, got)) {
		size_t at = 0;
		while (want[at] == got[at])
			at++;
		fail_msg("%s: the merge differs from one pass at byte %zu:\n one pass: %.200s\n "
		         "merged:   %.200s",
		         name, at, want + (at > 100 ? at - 100 : 0),
		         got + (at > 100 ? at - 100 : 0));
	}
	free(want);
	free(got);
}

/* The scenario (in dir) split in two, frames without IP to part no_ip, and merged reports what one pass does. */
static inline void split_merge(const char *dir, const char *name, unsigned min_pairs,
                               unsigned no_ip)
{
	struct rt_analyzer *one = new_an(0), *two[2] = {new_an(0), new_an(0)};
	unsigned pairs = feed_scenario(dir, name, one, two, no_ip);
	assert_true(pairs >= min_pairs); /* with 2, both parts have flows */
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(two[0], two[1], errbuf), 0);
	same_report(name, one, two[0]);
	rt_analyzer_free(one);
	rt_analyzer_free(two[0]);
	rt_analyzer_free(two[1]);
}

/* Each frame to one analyzer and to parts p[k] (frame i+1 to p[part[i]]); all finished. */
static inline void feed_macs(struct rt_analyzer *one, struct rt_analyzer **p, unsigned nparts,
                             const struct rt_record *r, const unsigned *part, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		rt_analyzer_feed(one, &r[i]);
		rt_analyzer_feed_frame(p[part[i]], &r[i], i + 1);
	}
	assert_int_equal(finish(one), 0);
	for (unsigned k = 0; k < nparts; k++)
		assert_int_equal(finish(p[k]), 0);
}

#endif

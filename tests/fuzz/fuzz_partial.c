/* libFuzzer target for the partial reader: any bytes read as a partial; what it accepts rendered, written again, and merged with a second point like it. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/partial.h"
#include "render/sinks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A sink's report of r, to /dev/null: what a renderer reads of a view must hold. */
static void report(const struct rt_partial *p, FILE *out, bool json)
{
	struct rt_an_sink sink;
	char errbuf[RT_ERRBUF_SIZE];
	if ((json ? rt_an_report_json_sink(out, &sink, errbuf)
	          : rt_an_report_text_sink(out, 20, &sink, errbuf)) < 0)
		abort();
	sink.report(sink.ctx, p->r, errbuf);
	sink.free(sink.ctx);
}

/* A merged bucket: what a sink reads of it must hold. */
static int bucket(void *ctx, const struct rt_an_bucket *b)
{
	uint64_t *sum = ctx;
	for (uint32_t i = 0; i < b->nrows; i++)
		*sum += b->rows[i].d.packets + b->rows[i].id;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *out;
	struct rt_partial *p;
	char errbuf[RT_ERRBUF_SIZE];
	if (!out && !(out = fopen("/dev/null", "w")))
		abort();
	if (rt_partial_read_mem(data, size, &p, errbuf) < 0) {
		if (p || !errbuf[0])
			abort(); /* a refusal says why, and leaves nothing */
		return 0;
	}
	report(p, out, true);
	report(p, out, false);
	/* its buckets, as timeline and report of it read them */
	uint64_t sum = 0;
	if (p->buckets &&
	    rt_partials_buckets(&p, 1, p->r, p->buckets->len_ns, NULL, bucket, &sum, errbuf) < 0)
		abort(); /* checked when read: they decode */
	/* what was read is a partial the writer takes */
	if (rt_partial_write(p, "/dev/null", errbuf) < 0)
		abort();
	/* and one the merge takes: beside the same view seen at a second point, merged and rendered */
	struct rt_partial *q, *merged = NULL;
	if (rt_partial_read_mem(data, size, &q, errbuf) < 0)
		abort();
	char *other = strdup(strcmp(p->point, "other") ? "other" : "another");
	if (!other)
		abort();
	free(q->point);
	q->point = other;
	struct rt_partial *both[2] = {p, q};
	int rc = rt_partials_merge(both, 2, 0, &merged, errbuf);
	if (rc == 0) {
		report(merged, out, true);
		report(merged, out, false);
	} else if (rc != -ENOMEM && !errbuf[0]) {
		abort(); /* a refusal says why */
	}
	rt_partial_free(merged);
	rt_partial_free(q);
	rt_partial_free(p);
	return 0;
}

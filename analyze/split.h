/* Per vantage point, an analyzer of its own: each point's frames analyzed as if its capture were read alone. */
#ifndef RT_ANALYZE_SPLIT_H
#define RT_ANALYZE_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/types.h"

struct rt_analyzer;

struct an_split {
	struct rt_analyzer_opts
	    o; /* the points' analyzers': the whole one's, without vantage points */
	rt_an_split_sink_fn make_sink;
	void *ctx;
	struct rt_analyzer *sub[RT_AN_VANTAGE_MAX];
	uint64_t now; /* the latest time each point's analyzer has been told */
	int err;      /* the first failure: setting up a point (its records then go nowhere) */
	char errbuf[RT_ERRBUF_SIZE];
};

/* Record rec of point p (-1: of none): fed to p's analyzer (made now when it is the first); the others learn its time. */
void an_split_record(struct an_split *s, const struct rt_record *rec, int p);
/* Time passes without a record. */
void an_split_tick(struct an_split *s, uint64_t now_ns);
/* End of input: every point's analyzer finishes (its sink ends). 0 or the first failure's negative errno. */
int an_split_finish(struct an_split *s, char *errbuf);
void an_split_free(struct an_split *s);

#endif

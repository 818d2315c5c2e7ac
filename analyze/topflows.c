/* The busiest flows so far (most bytes), for live displays such as capture --metrics. */
#include "analyze/analyze.h"
#include "analyze/internal.h"

/* Does flow a rank before flow b: more bytes, or as many and seen first. */
static bool busier(const struct rt_an_flow_figures *a, const struct rt_an_flow_figures *b)
{
	return a->bytes != b->bytes ? a->bytes > b->bytes : a->id < b->id;
}

static void swap(struct rt_an_flow_figures *a, struct rt_an_flow_figures *b)
{
	struct rt_an_flow_figures t = *a;
	*a = *b;
	*b = t;
}

/* Restore the heap below slot i: the least busy flow at the root. */
static void sift_down(struct rt_an_flow_figures *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && busier(&h[m], &h[l]))
			m = l;
		if (r < n && busier(&h[m], &h[r]))
			m = r;
		if (m == i)
			return;
		swap(&h[i], &h[m]);
		i = m;
	}
}

static void sift_up(struct rt_an_flow_figures *h, unsigned i)
{
	while (i > 0) {
		unsigned p = (i - 1) / 2;
		if (!busier(&h[p], &h[i]))
			return;
		swap(&h[i], &h[p]);
		i = p;
	}
}

static void figures_of(const struct an_flow *f, struct rt_an_flow_figures *o)
{
	o->key = f->key;
	o->id = f->id;
	o->packets = f->packets;
	o->bytes = f->bytes;
	o->ce = f->ecn[3];
	o->cnp_received = f->cnp_received;
	o->naks_received = f->x ? f->x->naks_received : 0;
	o->retransmitted = f->x ? f->x->retransmitted : 0;
}

unsigned rt_analyzer_top_flows(const struct rt_analyzer *an, struct rt_an_flow_figures *out,
                               unsigned k)
{
	unsigned n = 0;
	if (!k)
		return 0;
	/* a min-heap of the k busiest so far: a flow enters when it beats the least busy of them */
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		struct rt_an_flow_figures c;
		if (n == k && f->bytes <= out[0].bytes)
			continue; /* ids rise: an equal count loses to the older flow */
		figures_of(f, &c);
		if (n < k) {
			out[n] = c;
			sift_up(out, n++);
		} else {
			out[0] = c;
			sift_down(out, n, 0);
		}
	}
	/* heap sort: the least busy goes to the end each round, leaving the busiest first */
	for (unsigned m = n; m > 1; m--) {
		swap(&out[0], &out[m - 1]);
		sift_down(out, m - 1, 0);
	}
	return n;
}

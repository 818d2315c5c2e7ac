/* The text report's sender reaction: per flow, the capture point's side, the median drop with its spread or why none, the CNPs set apart, the --rate-window that would measure more. */
#include "render/report_text.h"

/* A duration as an option takes it: "5ms", "100us". */
static void option_ns(struct rt_outbuf *o, uint64_t ns)
{
	if (ns >= 1000000000ull && ns % 1000000000ull == 0)
		rt_out_printf(o, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns >= 1000000ull && ns % 1000000ull == 0)
		rt_out_printf(o, "%llums", (unsigned long long)(ns / 1000000ull));
	else if (ns >= 1000ull && ns % 1000ull == 0)
		rt_out_printf(o, "%lluus", (unsigned long long)(ns / 1000ull));
	else
		rt_out_printf(o, "%lluns", (unsigned long long)ns);
}

/* The CNPs set apart, by why: "; 3 not measured: 1 with too few packets, 2 ...". */
static void apart(struct rt_outbuf *o, const struct rt_res_rp *rp)
{
	const struct {
		uint64_t n;
		const char *what;
	} why[] = {
	    {rp->too_few_packets, "with too few packets"},
	    {rp->cnp_in_window, "with another CNP within the window"},
	    {rp->full_link, "with the link full (a queue before this point)"},
	    {rp->psn_gap_in_window, "with a PSN gap in the window"},
	    {rp->resend_in_window, "with a resend in the window"},
	    {rp->pause_in_window, "with a pause in the window"},
	    {rp->idle_before, "with the sender idle before it"},
	    {rp->idle_after, "with the sender idle after it, as before any CNP"},
	};
	uint64_t all = rp->cnps - rp->measured;
	if (!all)
		return;
	rt_out_printf(o, "; %llu not measured:", (unsigned long long)all);
	for (unsigned i = 0, k = 0; i < sizeof(why) / sizeof(why[0]); i++)
		if (why[i].n)
			rt_out_printf(o, "%s %llu %s", k++ ? "," : "", (unsigned long long)why[i].n,
			              why[i].what);
}

/* What follows "wire: ": the CNPs, the median drop with its spread, or why it is unknown and what would measure it. */
static void wire(const struct rt_results *r, struct rt_outbuf *o, const struct rt_res_rp *rp)
{
	rt_out_printf(o, "%llu CNPs, ", (unsigned long long)rp->cnps);
	if (rp->measured) {
		rt_out_printf(o,
		              "rate down %.0f%% (median of %llu measured; middle half %.0f%% to "
		              "%.0f%%, all %.0f%% to %.0f%%)",
		              rp->median_drop_pct, (unsigned long long)rp->measured,
		              rp->drop_p25_pct, rp->drop_p75_pct, rp->min_drop_pct,
		              rp->max_drop_pct);
		if (rp->recover.samples) {
			rt_out_str(o, ", back to 90% in ");
			an_text_ns(o, rp->recover.median);
			rt_out_printf(o, " (median of %llu)", (unsigned long long)rp->recovered);
		}
	} else {
		rt_out_printf(o, "rate drop unknown: %s", rp->drop_null_reason);
		if (rp->full_link >= rp->too_few_packets && rp->full_link)
			rt_out_str(o,
			           ": capture at the senders' side (a sender's port, the switch's "
			           "ingress), or add a vantage point there, to measure it");
	}
	apart(o, rp);
	if (rp->rate_window_needed_known) {
		rt_out_str(o, "; --rate-window ");
		option_ns(o, rp->rate_window_needed_ns);
		rt_out_str(o, " (now ");
		option_ns(o, r->rate_window_ns);
		rt_out_printf(o, ") would measure %llu of the %llu with too few packets",
		              (unsigned long long)rp->rate_window_would_measure,
		              (unsigned long long)rp->too_few_packets);
		if (rp->rate_window_would_measure < rp->too_few_packets)
			rt_out_printf(
			    o,
			    " (the others have another CNP, or the capture's end, within %u "
			    "packet gaps)",
			    r->rate_window_gaps);
	}
}

void an_text_rp(const struct rt_results *r, struct rt_outbuf *o)
{
	bool head = false;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		const struct rt_res_rp *rp = f->rp;
		const struct rt_res_source *src = f->source;
		uint64_t cnps = rp ? rp->cnps : 0, cuts = src ? src->cuts : 0;
		if ((!cnps && !cuts) || !f->selected)
			continue;
		if (!head) {
			rt_out_printf(o,
			              "\nSender reaction to CNPs (rate over %u packet gaps before "
			              "each CNP vs after it,"
			              " each window at most ",
			              r->rate_window_gaps);
			an_text_ns(o, r->rate_window_ns);
			rt_out_str(o, "):\n");
			head = true;
		}
		rt_out_printf(o, "  flow %u: ", f->id);
		if (cnps) {
			rt_out_printf(o, "capture point: %s.\n    wire: ", rp->capture_side_how);
			wire(r, o, rp);
		} else {
			rt_out_str(o, "wire: no CNP seen");
		}
		if (cuts)
			rt_out_printf(
			    o, "; sender's log: %llu cuts, %.0f%% on average (at most %.0f%%)",
			    (unsigned long long)cuts, src->cut_mean_pct, src->cut_max_pct);
		else if (src)
			rt_out_str(o, "; sender's log: no cut");
		rt_out_char(o, '\n');
	}
}

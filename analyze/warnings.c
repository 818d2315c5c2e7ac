/* Warnings about the capture itself: drops, duplicates, RoCE on another port, ECN, snap length, time order, empty input, side files, flows beyond the limit, vantage points. */
#include "analyze/warnings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "common/textfmt.h"
#include "common/satmath.h"
#include "analyze/reaction.h"

/* ---- capture drops ---- */

const char *an_capture_drops(const struct rt_analyzer *an, uint64_t *ifd, uint64_t *osd)
{
	const struct an_tallies *fd = &an->tally;
	if (fd->drops_known) {
		*ifd = fd->if_dropped;
		*osd = fd->os_dropped;
		return "pcapng";
	}
	if (an->side.drops_known) {
		*ifd = an->side.if_dropped;
		*osd = an->side.os_dropped;
		return "counters_file";
	}
	*ifd = *osd = 0;
	return NULL;
}

/* ---- the list ---- */

struct wlist {
	struct rt_an_warning *out;
	unsigned max, n;
	struct rt_an_warning spare; /* where warnings beyond max are written */
};

__attribute__((format(printf, 3, 4))) static struct rt_an_warning *
add(struct wlist *l, const char *code, const char *fmt, ...)
{
	struct rt_an_warning *w = l->n < l->max ? &l->out[l->n] : &l->spare;
	l->n++;
	memset(w, 0, sizeof(*w));
	w->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->message, sizeof(w->message), fmt, ap);
	va_end(ap);
	return w;
}

static void val(struct rt_an_warning *w, const char *name, uint64_t v)
{
	if (w->nvalues < RT_AN_WARNING_VALUES) {
		w->values[w->nvalues].name = name;
		w->values[w->nvalues].value = v;
		w->nvalues++;
	}
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

static void warn_drops(const struct rt_analyzer *an, struct wlist *l)
{
	uint64_t ifd, osd;
	const char *from = an_capture_drops(an, &ifd, &osd);
	uint64_t dropped = rt_sat_add_u64(ifd, osd);
	if (!from || dropped == 0)
		return;
	struct an_xport_sum x;
	an_flows_xport_sum(&an->ft, &x);
	uint64_t gaps = x.gaps, gap_psns = x.gap_psns;
	char tail[160] = "";
	if (gaps)
		snprintf(tail, sizeof(tail),
		         "; the %llu PSNs missing in %llu PSN gaps were lost before the capture "
		         "point or dropped by the capture",
		         ull(gap_psns), ull(gaps));
	/* counts this large are a writer's garbage, not frames: they stop at the largest */
	const char *huge = dropped == UINT64_MAX ? " (2^64-1 means as many or more: the capture's "
	                                           "counters add up past what 64 bits hold)"
	                                         : "";
	struct rt_an_warning *w = add(
	    l, "capture_drops",
	    "the capture dropped %llu frames%s (%llu by the interface, %llu by the kernel or the "
	    "capture; %s): "
	    "they are missing here, not lost in the network%s",
	    ull(dropped), huge, ull(ifd), ull(osd),
	    !strcmp(from, "pcapng") ? "pcapng statistics" : "capture counters file", tail);
	val(w, "dropped", dropped);
	val(w, "if_dropped", ifd);
	val(w, "os_dropped", osd);
	val(w, "gap_psns", gap_psns);
}

static void warn_duplicates(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_dups *d = &an->dups;
	struct an_dup_totals t;
	an_dup_totals(d, &t);
	uint64_t n = t.other_interface + t.same_interface;
	if (!n)
		return;
	char win[32];
	struct rt_an_warning *w =
	    add(l, "duplicates",
	        "%llu frames are copies of packets already counted (%llu seen at another capture "
	        "point, "
	        "%llu again at the same one within %s): each packet counts once",
	        ull(n), ull(t.other_interface), ull(t.same_interface),
	        rt_fmt_duration(win, sizeof(win), d->window_ns));
	val(w, "packets", n);
	val(w, "other_capture_point", t.other_interface);
	val(w, "same_capture_point", t.same_interface);
	val(w, "window_ns", d->window_ns);
}

/* RoCEv2 on other UDP ports: the three busiest ports whose checked datagrams are mostly RoCEv2. */
static bool warn_ports(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	bool done[AN_HINT_PORTS] = {false}, any = false;
	for (int k = 0; k < 3; k++) {
		int best = -1;
		for (unsigned i = 0; i < fd->nports; i++) {
			const struct an_port_hint *h = &fd->ports[i];
			if (done[i] || !h->valid || h->valid * 2 < h->checked)
				continue;
			if (best < 0 || h->datagrams > fd->ports[best].datagrams)
				best = (int)i;
		}
		if (best < 0)
			break;
		done[best] = true;
		any = true;
		const struct an_port_hint *h = &fd->ports[best];
		struct rt_an_warning *w =
		    add(l, "roce_other_port",
		        "%llu UDP datagrams to port %u carry RoCEv2 (%u of %u checked have a valid "
		        "BTH and "
		        "ICRC), but RoCEv2 is read on port %u: rerun with --udp-port %u",
		        ull(h->datagrams), h->port, h->valid, h->checked, an->o.udp_port, h->port);
		val(w, "port", h->port);
		val(w, "datagrams", h->datagrams);
		val(w, "checked", h->checked);
		val(w, "valid", h->valid);
	}
	return any;
}

bool an_ecn_off(const struct rt_analyzer *an, uint64_t *not_ect, uint64_t *packets)
{
	const struct an_tallies *fd = &an->tally;
	*not_ect = fd->data_not_ect;
	*packets = fd->data_ip;
	return fd->data_ip && fd->data_not_ect * 2 > fd->data_ip;
}

static void warn_ecn(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	uint64_t not_ect, packets;
	if (!an_ecn_off(an, &not_ect, &packets))
		return;
	struct rt_an_warning *w = add(
	    l, "not_ecn_capable",
	    "%llu of %llu RoCE packets (%.0f%%, CNPs aside) are Not-ECT: switches cannot mark them "
	    "CE, so DCQCN cannot react to congestion (enable ECN on the senders)",
	    ull(fd->data_not_ect), ull(fd->data_ip),
	    100.0 * (double)fd->data_not_ect / (double)fd->data_ip);
	val(w, "not_ect", fd->data_not_ect);
	val(w, "packets", fd->data_ip);
}

/*
 * A snap length that cut only payload (a header-only capture, -s 128) is a
 * fact of the capture (capture.icrc_unchecked), not a warning: only frames
 * whose headers were cut are.
 */
static void warn_snaplen(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	if (!fd->headers_cut)
		return;
	struct rt_an_warning *w =
	    add(l, "snaplen_cut",
	        "%llu frames lost headers the analysis reads to the snap length: their RoCE "
	        "fields are missing (%llu frames were cut in all)",
	        ull(fd->headers_cut), ull(fd->cut));
	val(w, "frames", fd->cut);
	val(w, "headers_cut", fd->headers_cut);
}

/* Records whose wire length was below the bytes they hold: the capture tool's fault, not the frames'. */
static void warn_wire_short(const struct an_tallies *fd, struct wlist *l)
{
	if (!fd->wire_short)
		return;
	struct rt_an_warning *w =
	    add(l, "wire_length_short",
	        "%llu frames' records give a wire length below the bytes they hold (the capture "
	        "tool wrote them wrong): their captured length is taken as their wire length",
	        ull(fd->wire_short));
	val(w, "frames", fd->wire_short);
}

/* The smallest of the flows' median NP delays (0: none measured). */
static uint64_t np_delay_min(const struct rt_analyzer *an)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < an->ft.n; i++) {
		const struct an_np *np = an->ft.flows[i].np;
		if (np && np->reaction && np->reaction->n) {
			uint64_t m = an_hist_quantile(np->reaction, 0.5);
			if (!best || m < best)
				best = m;
		}
	}
	return best;
}

/*
 * Time going backwards within a vantage point, said only when it can hurt a
 * figure, and which: the flows' own packets out of order (their rate
 * windows, round trips, resends), steps as long as half the NP delays, PFC
 * or PAUSE frames out of order (paused time), frames counted in a later
 * timeline bucket, steps a tenth of --episode-gap. Merged points
 * interleave by design, and disorder between unrelated frames a few us
 * apart (a kernel's) harms none of these: no warning (the capture facts
 * say it).
 */
static void warn_time(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	if (!fd->ts_back && !fd->flow_back)
		return;
	char step[32], more[320] = "";
	uint64_t np = np_delay_min(an);
#define HURTS(...)                                                                                 \
	do {                                                                                       \
		rt_text_appendf(more, sizeof(more), "%s", more[0] ? "; " : "");                    \
		rt_text_appendf(more, sizeof(more), __VA_ARGS__);                                  \
	} while (0)
	if (fd->flow_back)
		HURTS("the rate windows, round trips and resends of %llu flows whose own packets "
		      "came out of order %llu times (by up to %s)",
		      ull(fd->flows_back), ull(fd->flow_back),
		      rt_fmt_duration(step, sizeof(step), fd->flow_back_max));
	if (np && fd->ts_back_max * 2 >= np)
		HURTS("the NP delays (the shortest median %s)",
		      rt_fmt_duration(step, sizeof(step), np));
	if (fd->pfc_back)
		HURTS("the paused times (%llu PFC/PAUSE frames out of order)", ull(fd->pfc_back));
	if (fd->late_bucket)
		HURTS("%llu frames counted in a later timeline bucket than their own",
		      ull(fd->late_bucket));
	if (fd->ts_back_max * 10 >= an->o.episode_gap_ns)
		HURTS("the episodes' bounds");
#undef HURTS
	if (!more[0])
		return;
	struct rt_an_warning *w = add(
	    l, "time_backwards",
	    "timestamps go backwards %llu times within a capture point (by up to %s), which makes "
	    "unreliable: %s",
	    ull(fd->ts_back), rt_fmt_duration(step, sizeof(step), fd->ts_back_max), more);
	val(w, "count", fd->ts_back);
	val(w, "max_step_ns", fd->ts_back_max);
	val(w, "flows", fd->flows_back);
	val(w, "flow_steps", fd->flow_back);
	val(w, "pfc_frames", fd->pfc_back);
	val(w, "late_bucket", fd->late_bucket);
}

static void warn_empty(const struct rt_analyzer *an, struct wlist *l, bool port_hint)
{
	if (!an->tot.c.packets) {
		add(l, "empty_capture", "the capture holds no frames");
	} else if (!an->tot.c.roce_packets && !port_hint) {
		struct rt_an_warning *w = add(
		    l, "no_roce",
		    "none of the %llu frames is RoCE (RoCEv2 on UDP port %u, RoCEv1 on Ethertype "
		    "0x8915)",
		    ull(an->tot.c.packets), an->o.udp_port);
		val(w, "frames", an->tot.c.packets);
		val(w, "udp_port", an->o.udp_port);
	}
}

static void warn_selector(const struct rt_analyzer *an, struct wlist *l)
{
	if (!an->sel.given)
		return;
	for (uint32_t i = 0; i < an->ft.n; i++)
		if ((an->ft.flows[i].flags & AN_FLOW_SELECTED) && an->ft.flows[i].packets)
			return;
	struct rt_an_warning *w =
	    add(l, "flow_selector_empty", "%s matches none of the %u flows%s", an->sel.text,
	        an->ft.next_id, an->bk.len ? ": only the 'all' rows are written" : "");
	val(w, "flows", an->ft.next_id);
}

static void warn_max_flows(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_flowtab *ft = &an->ft;
	if (!ft->full)
		return;
	struct rt_an_warning *w = add(
	    l, "max_flows",
	    "--max-flows %u reached: %llu frames (%llu bytes) of further flows count in the totals "
	    "only, in no flow",
	    ft->max, ull(ft->beyond_packets), ull(ft->beyond_bytes));
	val(w, "max_flows", ft->max);
	val(w, "packets", ft->beyond_packets);
	val(w, "bytes", ft->beyond_bytes);
}

static void warn_side_files(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_side *sd = &an->side;
	if (sd->counters_loaded) {
		uint64_t samples = 0;
		for (size_t k = 0; k < sd->ncdev; k++)
			if (sd->cdev[k].samples > samples)
				samples = sd->cdev[k].samples;
		const char *why = !sd->counter_lines                     ? "is empty"
		                  : sd->counter_bad == sd->counter_lines ? "has no line that parses"
		                  : !samples                             ? "has no counter sample"
		                  : samples < 2
		                      ? "has one sample per device: no counter changes to report"
		                      : NULL;
		if (why) {
			struct rt_an_warning *w =
			    add(l, "counters_file_unusable",
			        "the counters file %s %s (%llu lines, %llu bad)", sd->counters_path,
			        why, ull(sd->counter_lines), ull(sd->counter_bad));
			val(w, "lines", sd->counter_lines);
			val(w, "bad_lines", sd->counter_bad);
			val(w, "samples", samples);
		}
	}
	if (sd->srclog_loaded) {
		bool matched;
		uint64_t unmatched = an_side_srclog_unmatched(sd, &matched);
		const char *why = !sd->srclog_lines                    ? "is empty"
		                  : sd->srclog_bad == sd->srclog_lines ? "has no line that parses"
		                  : !matched && unmatched ? "names no flow of the capture"
		                                          : NULL;
		if (why) {
			struct rt_an_warning *w =
			    add(l, "source_log_unusable",
			        "the traffic source log %s %s (%llu lines, %llu bad)",
			        sd->srclog_path, why, ull(sd->srclog_lines), ull(sd->srclog_bad));
			val(w, "lines", sd->srclog_lines);
			val(w, "bad_lines", sd->srclog_bad);
			val(w, "unmatched_events", unmatched);
		}
	}
}

static void warn_vantage(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_vantage *v = &an->vp;
	if (!v->frames_unknown && !v->forgotten_early && !v->nomem)
		return;
	struct rt_an_warning *w = add(
	    l, "vantage_incomplete",
	    "the vantage-point paths miss packets: %llu frames of points beyond the first %d, %llu "
	    "packets settled before their window closed (more than %u in one window)%s",
	    ull(v->frames_unknown), AN_VP_POINTS, ull(v->forgotten_early), AN_VP_MAX_ENTRIES,
	    v->nomem ? ", and memory ran out" : "");
	val(w, "frames_beyond", v->frames_unknown);
	val(w, "settled_early", v->forgotten_early);
	val(w, "out_of_memory", v->nomem);
}

unsigned rt_analyzer_warnings(const struct rt_analyzer *an, struct rt_an_warning *out, unsigned max)
{
	struct wlist l = {.out = out, .max = max};
	warn_drops(an, &l);
	warn_duplicates(an, &l);
	bool port_hint = warn_ports(an, &l);
	warn_ecn(an, &l);
	warn_snaplen(an, &l);
	warn_wire_short(&an->tally, &l);
	warn_time(an, &l);
	warn_empty(an, &l, port_hint);
	warn_selector(an, &l);
	warn_side_files(an, &l);
	warn_max_flows(an, &l);
	warn_vantage(an, &l);
	return l.n;
}

/* Warnings about the capture itself: drops, duplicates, RoCE on another port, ECN, snap length, time order, empty input, side files, flows beyond the limit, vantage points. */
#include "analyze/warnings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "common/satmath.h"

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

/* "12.3 us" and the like */
static const char *span(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
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
	uint64_t n = d->other_interface + d->same_interface;
	if (!n)
		return;
	char win[32];
	struct rt_an_warning *w =
	    add(l, "duplicates",
	        "%llu frames are copies of packets already counted (%llu seen at another capture "
	        "point, "
	        "%llu again at the same one within %s): each packet counts once",
	        ull(n), ull(d->other_interface), ull(d->same_interface),
	        span(d->window_ns, win, sizeof(win)));
	val(w, "packets", n);
	val(w, "other_capture_point", d->other_interface);
	val(w, "same_capture_point", d->same_interface);
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

static void warn_ecn(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	if (!fd->data_ip || fd->data_not_ect * 2 <= fd->data_ip)
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

static void warn_snaplen(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	if (!fd->cut)
		return;
	char tail[128] = "";
	if (fd->headers_cut)
		snprintf(tail, sizeof(tail),
		         "; %llu lost headers the analysis reads (their RoCE fields are missing)",
		         ull(fd->headers_cut));
	struct rt_an_warning *w =
	    add(l, "snaplen_cut",
	        "%llu frames were cut by the snap length: their ICRC is not checked%s",
	        ull(fd->cut), tail);
	val(w, "frames", fd->cut);
	val(w, "headers_cut", fd->headers_cut);
}

static void warn_time(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_tallies *fd = &an->tally;
	if (!fd->ts_back)
		return;
	char step[32];
	struct rt_an_warning *w = add(
	    l, "time_backwards",
	    "timestamps go backwards %llu times (by up to %s): the capture is not in time order "
	    "(merged files? several interfaces?), so rates and delays around those frames are "
	    "unreliable",
	    ull(fd->ts_back), span(fd->ts_back_max, step, sizeof(step)));
	val(w, "count", fd->ts_back);
	val(w, "max_step_ns", fd->ts_back_max);
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
	warn_time(an, &l);
	warn_empty(an, &l, port_hint);
	warn_selector(an, &l);
	warn_side_files(an, &l);
	warn_max_flows(an, &l);
	warn_vantage(an, &l);
	return l.n;
}

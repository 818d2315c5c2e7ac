/* Findings about the capture itself: drops, duplicates, RoCE on another port, ECN, snap length, time order, empty input, side files. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"

/* ---- per frame ---- */

/*
 * A UDP datagram to another port: does it carry RoCEv2? The dissector says
 * so of each one (a valid BTH and ICRC, a CRC over the whole packet, is the
 * proof); the first AN_HINT_CHECKS datagrams of each port are taken as its
 * sample. Ports whose samples all failed give their place to new ones.
 */
static void probe_port(struct rt_analyzer *an, const struct rt_record *rec)
{
	struct an_findings *fd = &an->find;
	struct an_port_hint *h = NULL;
	for (unsigned i = 0; i < fd->nports && !h; i++)
		if (fd->ports[i].port == rec->udp_dport)
			h = &fd->ports[i];
	if (!h) {
		if (fd->nports < AN_HINT_PORTS) {
			h = &fd->ports[fd->nports++];
		} else {
			for (unsigned i = 0; i < AN_HINT_PORTS && !h; i++)
				if (fd->ports[i].checked >= AN_HINT_CHECKS && !fd->ports[i].valid)
					h = &fd->ports[i];
			if (!h)
				return;
		}
		memset(h, 0, sizeof(*h));
		h->port = rec->udp_dport;
	}
	h->datagrams++;
	if (h->checked >= AN_HINT_CHECKS)
		return;
	h->checked++;
	if (rec->other_port_rocev2)
		h->valid++;
}

void an_find_frame(struct rt_analyzer *an, const struct rt_record *rec)
{
	struct an_findings *fd = &an->find;
	uint64_t ts = rec->ts_ns;
	if (an->tot.packets > 1 && ts < fd->prev_ts) {
		fd->ts_back++;
		if (fd->prev_ts - ts > fd->ts_back_max)
			fd->ts_back_max = fd->prev_ts - ts;
	}
	fd->prev_ts = ts;
	if (rec->caplen < rec->wirelen) {
		fd->cut++;
		fd->headers_cut += (rec->events & RT_EV_TRUNCATION_MASK & ~RT_EV_ICRC_TRUNCATED) != 0;
	}
	if (rec->kind == RT_KIND_ROCE && (rec->layers & (RT_L_IPV4 | RT_L_IPV6))) {
		fd->data_ip++;
		fd->data_not_ect += (rec->ecn & 3) == 0;
	} else if (rec->kind == RT_KIND_OTHER && (rec->layers & RT_L_UDP) && !(rec->layers & RT_L_GRE)) {
		probe_port(an, rec);
	}
}

/* ---- capture drops ---- */

void rt_analyzer_capture_drops(struct rt_analyzer *an, uint64_t if_dropped, uint64_t os_dropped)
{
	an->find.drops_known = true;
	an->find.if_dropped = if_dropped;
	an->find.os_dropped = os_dropped;
}

/* Drops by the interface and by the OS/capture: the capture file's, else the counters file's; NULL source = unknown. */
static const char *drops(const struct rt_analyzer *an, uint64_t *ifd, uint64_t *osd)
{
	const struct an_findings *fd = &an->find;
	if (fd->drops_known) {
		*ifd = fd->if_dropped;
		*osd = fd->os_dropped;
		return "pcapng";
	}
	if (fd->side_drops_known) {
		*ifd = fd->side_if_dropped;
		*osd = fd->side_os_dropped;
		return "counters_file";
	}
	*ifd = *osd = 0;
	return NULL;
}

uint64_t an_capture_dropped(const struct rt_analyzer *an, bool *known)
{
	uint64_t ifd, osd;
	*known = drops(an, &ifd, &osd) != NULL;
	return ifd + osd;
}

/* ---- the list ---- */

struct wlist {
	struct rt_an_warning *out;
	unsigned max, n;
	struct rt_an_warning spare; /* where warnings beyond max are written */
};

__attribute__((format(printf, 3, 4))) static struct rt_an_warning *add(struct wlist *l, const char *code,
								     const char *fmt, ...)
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
	uint64_t ifd, osd, gaps = 0, gap_psns = 0;
	const char *from = drops(an, &ifd, &osd);
	if (!from || ifd + osd == 0)
		return;
	for (uint32_t i = 0; i < an->nflows; i++) {
		gaps += an->flows[i].gaps;
		gap_psns += an->flows[i].gap_psns;
	}
	char tail[160] = "";
	if (gaps)
		snprintf(tail, sizeof(tail), "; the %llu PSNs missing in %llu PSN gaps were lost before the capture point or dropped by the capture",
			 ull(gap_psns), ull(gaps));
	struct rt_an_warning *w = add(l, "capture_drops",
				      "the capture dropped %llu frames (%llu by the interface, %llu by the kernel or the capture; %s): "
				      "they are missing here, not lost in the network%s",
				      ull(ifd + osd), ull(ifd), ull(osd),
				      !strcmp(from, "pcapng") ? "pcapng statistics" : "capture counters file", tail);
	val(w, "dropped", ifd + osd);
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
	struct rt_an_warning *w = add(l, "duplicates",
				      "%llu frames are copies of packets already counted (%llu seen at another capture point, "
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
	const struct an_findings *fd = &an->find;
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
		struct rt_an_warning *w = add(l, "roce_other_port",
					      "%llu UDP datagrams to port %u carry RoCEv2 (%u of %u checked have a valid BTH and "
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
	const struct an_findings *fd = &an->find;
	if (!fd->data_ip || fd->data_not_ect * 2 <= fd->data_ip)
		return;
	struct rt_an_warning *w = add(l, "not_ecn_capable",
				      "%llu of %llu RoCE packets (%.0f%%, CNPs aside) are Not-ECT: switches cannot mark them "
				      "CE, so DCQCN cannot react to congestion (enable ECN on the senders)",
				      ull(fd->data_not_ect), ull(fd->data_ip),
				      100.0 * (double)fd->data_not_ect / (double)fd->data_ip);
	val(w, "not_ect", fd->data_not_ect);
	val(w, "packets", fd->data_ip);
}

static void warn_snaplen(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_findings *fd = &an->find;
	if (!fd->cut)
		return;
	char tail[128] = "";
	if (fd->headers_cut)
		snprintf(tail, sizeof(tail), "; %llu lost headers the analysis reads (their RoCE fields are missing)",
			 ull(fd->headers_cut));
	struct rt_an_warning *w = add(l, "snaplen_cut",
				      "%llu frames were cut by the snap length: their ICRC is not checked%s", ull(fd->cut),
				      tail);
	val(w, "frames", fd->cut);
	val(w, "headers_cut", fd->headers_cut);
}

static void warn_time(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_findings *fd = &an->find;
	if (!fd->ts_back)
		return;
	char step[32];
	struct rt_an_warning *w = add(l, "time_backwards",
				      "timestamps go backwards %llu times (by up to %s): the capture is not in time order "
				      "(merged files? several interfaces?), so rates and delays around those frames are "
				      "unreliable",
				      ull(fd->ts_back), span(fd->ts_back_max, step, sizeof(step)));
	val(w, "count", fd->ts_back);
	val(w, "max_step_ns", fd->ts_back_max);
}

static void warn_empty(const struct rt_analyzer *an, struct wlist *l, bool port_hint)
{
	if (!an->tot.packets) {
		add(l, "empty_capture", "the capture holds no frames");
	} else if (!an->tot.roce_packets && !port_hint) {
		struct rt_an_warning *w = add(l, "no_roce",
					      "none of the %llu frames is RoCE (RoCEv2 on UDP port %u, RoCEv1 on Ethertype "
					      "0x8915)",
					      ull(an->tot.packets), an->o.udp_port);
		val(w, "frames", an->tot.packets);
		val(w, "udp_port", an->o.udp_port);
	}
}

static void warn_selector(const struct rt_analyzer *an, struct wlist *l)
{
	if (!an->o.flow)
		return;
	for (uint32_t i = 0; i < an->nflows; i++)
		if (an->flows[i].selected && an->flows[i].packets)
			return;
	struct rt_an_warning *w = add(l, "flow_selector_empty", "--flow '%s' matches none of the %u flows%s",
				      an->o.flow, an->next_id,
				      an->tl_out ? ": only the 'all' rows are written" : "");
	val(w, "flows", an->next_id);
}

static void warn_side_files(const struct rt_analyzer *an, struct wlist *l)
{
	const struct an_findings *fd = &an->find;
	if (an->counters_loaded) {
		uint64_t samples = 0;
		for (size_t k = 0; k < an->ncdev; k++)
			if (an->cdev[k].samples > samples)
				samples = an->cdev[k].samples;
		const char *why = !an->counter_lines			  ? "is empty"
				  : an->counter_bad == an->counter_lines ? "has no line that parses"
				  : !samples				  ? "has no counter sample"
				  : samples < 2 ? "has one sample per device: no counter changes to report"
						: NULL;
		if (why) {
			struct rt_an_warning *w = add(l, "counters_file_unusable", "the counters file %s %s (%llu lines, %llu bad)",
						      fd->counters_path, why, ull(an->counter_lines), ull(an->counter_bad));
			val(w, "lines", an->counter_lines);
			val(w, "bad_lines", an->counter_bad);
			val(w, "samples", samples);
		}
	}
	if (an->srclog_loaded) {
		bool matched = an->tl_srclog; /* a timeline joins events to flows by name, seen or not */
		for (uint32_t i = 0; i < an->nflows && !matched; i++)
			matched = an->flows[i].ext && an->flows[i].ext->src_seen;
		const char *why = !an->srclog_lines			? "is empty"
				  : an->srclog_bad == an->srclog_lines ? "has no line that parses"
				  : !matched && an->srclog_unmatched  ? "names no flow of the capture"
								      : NULL;
		if (why) {
			struct rt_an_warning *w = add(l, "source_log_unusable", "the traffic source log %s %s (%llu lines, %llu bad)",
						      fd->srclog_path, why, ull(an->srclog_lines), ull(an->srclog_bad));
			val(w, "lines", an->srclog_lines);
			val(w, "bad_lines", an->srclog_bad);
			val(w, "unmatched_events", an->srclog_unmatched);
		}
	}
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
	return l.n;
}

/* ---- reports ---- */

static void u64_or_null(struct rt_outbuf *o, const char *key, uint64_t v, bool known)
{
	rt_out_json_str(o, key);
	rt_out_char(o, ':');
	if (known)
		rt_out_u64(o, v);
	else
		rt_out_str(o, "null");
}

void an_report_findings_json(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	uint64_t ifd, osd;
	const char *from = drops(an, &ifd, &osd);
	rt_out_str(o, ",\"capture\":{");
	u64_or_null(o, "dropped", ifd + osd, from);
	rt_out_char(o, ',');
	u64_or_null(o, "if_dropped", ifd, from);
	rt_out_char(o, ',');
	u64_or_null(o, "os_dropped", osd, from);
	rt_out_str(o, ",\"source\":");
	if (from)
		rt_out_json_str(o, from);
	else
		rt_out_str(o, "null");
	rt_out_char(o, '}');

	const struct an_dups *d = &an->dups;
	rt_out_str(o, ",\"duplicates\":");
	if (d->nsets) {
		rt_out_str(o, "{\"packets\":");
		rt_out_u64(o, d->other_interface + d->same_interface);
		rt_out_str(o, ",\"other_capture_point\":");
		rt_out_u64(o, d->other_interface);
		rt_out_str(o, ",\"same_capture_point\":");
		rt_out_u64(o, d->same_interface);
		rt_out_str(o, ",\"window_ns\":");
		rt_out_u64(o, d->window_ns);
		rt_out_str(o, ",\"forgotten_early\":");
		rt_out_u64(o, d->evicted);
		rt_out_char(o, '}');
	} else {
		rt_out_str(o, "null");
	}

	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned n = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	if (n > RT_AN_WARNINGS_MAX)
		n = RT_AN_WARNINGS_MAX;
	rt_out_str(o, ",\"warnings\":[");
	for (unsigned i = 0; i < n; i++) {
		rt_out_str(o, i ? ",{\"code\":" : "{\"code\":");
		rt_out_json_str(o, w[i].code);
		rt_out_str(o, ",\"message\":");
		rt_out_json_str(o, w[i].message);
		for (unsigned k = 0; k < w[i].nvalues; k++) {
			rt_out_char(o, ',');
			rt_out_json_str(o, w[i].values[k].name);
			rt_out_char(o, ':');
			rt_out_u64(o, w[i].values[k].value);
		}
		rt_out_char(o, '}');
	}
	rt_out_char(o, ']');
}

void an_report_warnings_text(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned n = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	if (n > RT_AN_WARNINGS_MAX)
		n = RT_AN_WARNINGS_MAX;
	if (!n)
		return;
	rt_out_str(o, "\nWarnings:\n");
	for (unsigned i = 0; i < n; i++) {
		rt_out_str(o, "  - ");
		rt_out_str(o, w[i].message);
		rt_out_char(o, '\n');
	}
}

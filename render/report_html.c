/* The HTML report sink: one self-contained page (docs/REPORT.md) with the JSON report and downsampled series inside. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/results.h"
#include "render/gzip_pieces.h"
#include "render/report_assets.h"
#include "render/report_json.h"
#include "render/series.h"
#include "render/sinks.h"
#include "common/html.h"
#include "common/json.h"
#include "rt_config.h"

/*
 * Flows followed one by one (their bytes and source rate per slot): the
 * first ones seen, and later a flow with more than twice the bytes of the
 * smallest one followed, which it replaces (its slots so far stay in
 * "others"). The charts show the top AN_HTML_TOP of them by bytes.
 */
#define AN_HTML_FOLLOW 32
#define AN_HTML_TOP    8
#define AN_HTML_NIC    3

struct followed {
	uint32_t id;
	uint32_t from_slot; /* followed from this slot on: before it, the flow is in "others" */
	float bytes[AN_SER_SLOTS]; /* its bytes per slot */
	float src_mbps
	    [AN_SER_SLOTS]; /* the traffic source's rate at the end of the slot (NaN: unknown) */
};

/* Per flow id: bytes so far (to rank the flows not followed) and its place among the followed ones. */
struct flow_seen {
	uint64_t bytes;
	uint8_t followed; /* index + 1 in rt_an_html.fl, 0 = not followed */
};

struct rt_an_html {
	FILE *fp;
	const char *title;
	const char *const *files;
	unsigned nfiles;
	const char *counters, *source_log, *bucket_note;
	unsigned threads; /* that may compress the page's data */
	char input_error[RT_ERRBUF_SIZE];
	int exit_status;
	/* while the page is written: the flows it lists (NULL: every one), of how many --flow selects */
	const bool *listed;
	uint64_t flows_selected;

	struct an_grid g;
	struct an_band all, ce, cnp, rtt, pfc[RT_AN_PFC_CLASSES], nic[AN_HTML_NIC];
	bool pfc_seen[RT_AN_PFC_CLASSES], rtt_seen, source_log_cols, counters_cols;
	struct followed *fl[AN_HTML_FOLLOW];
	uint32_t nfl;
	uint64_t
	    min_bytes; /* at most the bytes of the followed flow with the fewest (a bound, refreshed on need) */
	struct flow_seen *seen;
	size_t nseen;
};

/* ---- folding buckets into the series ---- */

static void halve_all(struct rt_an_html *h)
{
	uint32_t n = h->g.nslots;
	an_band_halve(&h->all, n);
	an_band_halve(&h->ce, n);
	an_band_halve(&h->cnp, n);
	an_band_halve(&h->rtt, n);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		an_band_halve(&h->pfc[c], n);
	for (unsigned k = 0; k < AN_HTML_NIC; k++)
		an_band_halve(&h->nic[k], n);
	for (uint32_t i = 0; i < h->nfl; i++) {
		an_line_halve(h->fl[i]->bytes, n, AN_LINE_SUM);
		an_line_halve(h->fl[i]->src_mbps, n, AN_LINE_LAST);
		h->fl[i]->from_slot /= 2;
	}
	an_grid_halve(&h->g);
}

static int grow_seen(struct rt_an_html *h, uint32_t id, char *errbuf)
{
	if (id < h->nseen)
		return 0;
	size_t n = h->nseen ? h->nseen : 1024;
	while (n <= id)
		n *= 2;
	struct flow_seen *s = realloc(h->seen, n * sizeof(*s));
	if (!s)
		return rt_errorf(errbuf, ENOMEM, "report: following flows");
	memset(s + h->nseen, 0, (n - h->nseen) * sizeof(*s));
	h->seen = s;
	h->nseen = n;
	return 0;
}

/* Follow flow `id` from slot `slot` when there is room or it outgrew the smallest followed flow. */
static int consider(struct rt_an_html *h, uint32_t id, uint32_t slot, char *errbuf)
{
	uint64_t bytes = h->seen[id].bytes;
	uint32_t k;
	if (h->nfl < AN_HTML_FOLLOW) {
		struct followed *f = malloc(sizeof(*f));
		if (!f)
			return rt_errorf(errbuf, ENOMEM, "report: following flows");
		k = h->nfl++;
		h->fl[k] = f;
	} else {
		if (bytes <= 2 * h->min_bytes)
			return 0;
		k = 0;
		for (uint32_t i = 1; i < h->nfl; i++)
			if (h->seen[h->fl[i]->id].bytes < h->seen[h->fl[k]->id].bytes)
				k = i;
		h->min_bytes = h->seen[h->fl[k]->id].bytes;
		if (bytes <= 2 * h->min_bytes)
			return 0;
		h->seen[h->fl[k]->id].followed = 0;
	}
	struct followed *f = h->fl[k];
	f->id = id;
	f->from_slot = slot;
	memset(f->bytes, 0, sizeof(f->bytes));
	for (unsigned s = 0; s < AN_SER_SLOTS; s++)
		f->src_mbps[s] = NAN;
	h->seen[id].followed = (uint8_t)(k + 1);
	return 0;
}

static int html_bucket(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
                       char *errbuf)
{
	struct rt_an_html *h = ctx;
	(void)an;
	while (an_grid_full(&h->g, b->t_ns))
		halve_all(h);
	uint32_t s = an_grid_place(&h->g, b->t_ns);
	double len = (double)b->len_ns, per_s = 1e9 / len;

	/* rates: a bucket without a value counts as 0 (an_band_point), so only values are added */
	if (b->all.bytes)
		an_band_add(&h->all, s, (double)b->all.bytes * 8.0 / len, 1);
	if (b->all.ce)
		an_band_add(&h->ce, s, (double)b->all.ce * per_s, 1);
	if (b->all.cnp)
		an_band_add(&h->cnp, s, (double)b->all.cnp * per_s, 1);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		if (b->pfc_xoff[c] || b->pfc_paused_ns[c])
			h->pfc_seen[c] = true;
		if (b->pfc_paused_ns[c])
			an_band_add(&h->pfc[c], s, (double)b->pfc_paused_ns[c] * 100.0 / len, 1);
	}
	h->counters_cols = b->counters;
	h->source_log_cols = b->source_log;
	if (b->counters) {
		double nic[AN_HTML_NIC] = {b->nic_cnp_sent, b->nic_cnp_handled,
		                           b->nic_pause_frames};
		for (unsigned k = 0; k < AN_HTML_NIC; k++)
			if (nic[k] > 0)
				an_band_add(&h->nic[k], s, nic[k] * per_s, 1);
	}

	uint64_t rtt_n = 0, rtt_ns = 0;
	for (uint32_t i = 0; i < b->nrows; i++) {
		const struct rt_an_flow_row *r = &b->rows[i];
		rtt_n += r->rtt_samples;
		rtt_ns += r->rtt_sum_ns;
		int rc = grow_seen(h, r->id, errbuf);
		if (rc < 0)
			return rc;
		struct flow_seen *fs = &h->seen[r->id];
		fs->bytes += r->d.bytes;
		if (!fs->followed && r->d.bytes && (rc = consider(h, r->id, s, errbuf)) < 0)
			return rc;
		if (!fs->followed)
			continue;
		struct followed *f = h->fl[fs->followed - 1];
		f->bytes[s] += (float)r->d.bytes;
		if (r->source_rate_known)
			f->src_mbps[s] = (float)r->source_rate_mbps;
	}
	if (rtt_n) {
		h->rtt_seen = true;
		an_band_add(&h->rtt, s, (double)rtt_ns / (double)rtt_n / 1e3, (double)rtt_n);
	}
	return 0;
}

/* ---- the series document ---- */

static void num(struct rt_json *j, double v)
{
	rt_json_next(j);
	if (isfinite(v))
		rt_out_printf(j->o, "%.6g", v);
	else
		rt_json_null(j);
}

/* "y" (and "lo", "hi" for a band) of one series: per slot, or null where it has no point. */
static void band_arrays(struct rt_json *j, const struct rt_an_html *h, const struct an_band *b,
                        bool zero_fill)
{
	static const char *const keys[] = {"lo", "y", "hi"};
	for (unsigned k = 0; k < 3; k++) {
		rt_json_key(j, keys[k]);
		rt_json_arr(j);
		for (uint32_t s = 0; s < h->g.nslots; s++) {
			double v[3];
			bool known = an_band_point(b, &h->g, s, zero_fill, &v[0], &v[1], &v[2]);
			num(j, known ? v[k] : NAN);
		}
		rt_json_arr_end(j);
	}
}

static void series_head(struct rt_json *j, const char *label)
{
	rt_json_next(j);
	rt_json_obj(j);
	RT_JSON_STR(j, "label", label);
}

static void band_series(struct rt_json *j, const struct rt_an_html *h, const char *label,
                        const struct an_band *b, bool zero_fill)
{
	series_head(j, label);
	band_arrays(j, h, b, zero_fill);
	rt_json_obj_end(j);
}

static void chart_head(struct rt_json *j, const char *id, const char *title, const char *unit)
{
	rt_json_next(j);
	rt_json_obj(j);
	RT_JSON_STR(j, "id", id);
	RT_JSON_STR(j, "title", title);
	RT_JSON_STR(j, "unit", unit);
	RT_JSON_KEY(j, "series");
	rt_json_arr(j);
}

static void chart_end(struct rt_json *j)
{
	rt_json_arr_end(j);
	rt_json_obj_end(j);
}

/* The followed flows with the most bytes, most first, into top[]; returns how many (at most AN_HTML_TOP). */
static unsigned top_flows(const struct rt_an_html *h, const struct rt_results *r,
                          const struct followed **top)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < h->nfl; i++) {
		const struct followed *f = h->fl[i];
		uint64_t bytes = r->flows[f->id].bytes;
		unsigned k = n;
		if (n < AN_HTML_TOP)
			n++;
		else if (bytes <= r->flows[top[AN_HTML_TOP - 1]->id].bytes)
			continue;
		else
			k = AN_HTML_TOP - 1;
		while (k > 0 && r->flows[top[k - 1]->id].bytes < bytes) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = f;
	}
	return n;
}

/* A series of one flow, labelled "flow ID SELECTOR", up to its open "y" array. */
static void flow_series_head(struct rt_json *j, const struct rt_results *r, uint32_t id)
{
	const struct rt_an_flow_key *k = &r->flows[id].key;
	char sel[RT_FLOWSEL_TEXT_MAX], label[160];
	snprintf(label, sizeof(label), "flow %u %s", id,
	         rt_flowsel_format(sel, k->ipver, k->src, k->dst, k->dest_qp));
	series_head(j, label);
	RT_JSON_U64(j, "flow", id);
	RT_JSON_KEY(j, "y");
	rt_json_arr(j);
}

static void throughput_chart(struct rt_json *j, const struct rt_an_html *h,
                             const struct rt_results *r)
{
	const struct followed *top[AN_HTML_TOP];
	unsigned ntop = top_flows(h, r, top);
	double others[AN_SER_SLOTS];

	chart_head(j, "gbps", "Throughput: top flows and the others", "Gb/s");
	for (uint32_t s = 0; s < h->g.nslots; s++) {
		double lo, hi;
		if (!an_band_point(&h->all, &h->g, s, true, &lo, &others[s], &hi))
			others[s] = NAN;
	}
	for (unsigned t = 0; t < ntop; t++) {
		flow_series_head(j, r, top[t]->id);
		for (uint32_t s = 0; s < h->g.nslots; s++) {
			uint64_t buckets = an_grid_slot_buckets(&h->g, s);
			double v = NAN;
			if (s >= top[t]->from_slot && buckets) {
				v = (double)top[t]->bytes[s] * 8.0 /
				    ((double)buckets * (double)h->g.len_ns);
				others[s] -= v;
			}
			num(j, v);
		}
		rt_json_arr_end(j);
		rt_json_obj_end(j);
	}
	series_head(j, "others");
	RT_JSON_KEY(j, "y");
	rt_json_arr(j);
	for (uint32_t s = 0; s < h->g.nslots; s++)
		num(j, others[s] < 0 ? 0 : others[s]);
	rt_json_arr_end(j);
	rt_json_obj_end(j);
	band_series(j, h, "all", &h->all, true);
	chart_end(j);

	if (!h->source_log_cols)
		return;
	chart_head(j, "source", "Sender rate (the traffic source's log)", "Gb/s");
	for (unsigned t = 0; t < ntop; t++) {
		flow_series_head(j, r, top[t]->id);
		for (uint32_t s = 0; s < h->g.nslots; s++)
			num(j, s >= top[t]->from_slot ? top[t]->src_mbps[s] / 1e3 : NAN);
		rt_json_arr_end(j);
		rt_json_obj_end(j);
	}
	chart_end(j);
}

static void series_doc(const struct rt_an_html *h, const struct rt_results *r, struct rt_json *j)
{
	rt_json_obj(j);
	RT_JSON_U64(j, "bucket_ns", h->g.len_ns);
	RT_JSON_U64(j, "slot_ns", h->g.len_ns * h->g.per_slot);
	RT_JSON_U64(j, "slots", h->g.nslots);
	/* the last slot ends with the last bucket: it may be shorter */
	RT_JSON_U64(j, "last_slot_ns",
	            h->g.nslots ? an_grid_slot_buckets(&h->g, h->g.nslots - 1) * h->g.len_ns : 0);
	RT_JSON_U64(j, "followed_flows", h->nfl);
	RT_JSON_KEY(j, "x_ms");
	rt_json_arr(j);
	for (uint32_t s = 0; s < h->g.nslots; s++) {
		uint64_t t = an_grid_slot_start(&h->g, s);
		num(j, t > r->start_ns ? (double)(t - r->start_ns) / 1e6 : 0);
	}
	rt_json_arr_end(j);
	RT_JSON_KEY(j, "charts");
	rt_json_arr(j);
	throughput_chart(j, h, r);
	chart_head(j, "ecn", "CE marks and CNPs", "per second");
	band_series(j, h, "CE marks/s", &h->ce, true);
	band_series(j, h, "CNPs/s", &h->cnp, true);
	chart_end(j);
	bool pfc = false;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		pfc |= h->pfc_seen[c];
	if (pfc) {
		chart_head(j, "pfc", "PFC/PAUSE: share of time paused", "% of time");
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			char label[32];
			if (!h->pfc_seen[c])
				continue;
			if (c == RT_AN_PAUSE_CLASS)
				snprintf(label, sizeof(label), "802.3x PAUSE");
			else
				snprintf(label, sizeof(label), "priority %u", c);
			band_series(j, h, label, &h->pfc[c], true);
		}
		chart_end(j);
	}
	if (h->rtt_seen) {
		chart_head(j, "rtt", "Round trip (request with AckReq to its ACK), all flows",
		           "us");
		band_series(j, h, "RTT", &h->rtt, false);
		chart_end(j);
	}
	if (h->counters_cols) {
		static const char *const names[AN_HTML_NIC] = {
		    "NIC CNPs sent/s", "NIC CNPs handled/s", "NIC pause frames/s"};
		chart_head(j, "nic", "NIC counters (--counters)", "per second");
		for (unsigned k = 0; k < AN_HTML_NIC; k++)
			band_series(j, h, names[k], &h->nic[k], true);
		chart_end(j);
	}
	rt_json_arr_end(j);
	rt_json_obj_end(j);
	rt_out_char(j->o, '\n');
}

static void meta_doc(const struct rt_an_html *h, struct rt_json *j)
{
	rt_json_obj(j);
	RT_JSON_STR(j, "title", h->title);
	RT_JSON_STR(j, "version", RT_VERSION);
	RT_JSON_KEY(j, "files");
	rt_json_arr(j);
	for (unsigned i = 0; i < h->nfiles; i++) {
		rt_json_next(j);
		rt_json_str(j, h->files[i]);
	}
	rt_json_arr_end(j);
	RT_JSON_KEY(j, "counters");
	rt_json_str_or_null(j, h->counters);
	RT_JSON_KEY(j, "source_log");
	rt_json_str_or_null(j, h->source_log);
	RT_JSON_KEY(j, "bucket_note");
	rt_json_str_or_null(j, h->bucket_note);
	RT_JSON_KEY(j, "input_error");
	rt_json_str_or_null(j, h->input_error[0] ? h->input_error : NULL);
	RT_JSON_U64(j, "exit_status", (uint64_t)h->exit_status);
	RT_JSON_U64(j, "top_flows", AN_HTML_TOP);
	RT_JSON_U64(j, "flows_listed_max", RT_AN_HTML_MAX_FLOWS);
	RT_JSON_U64(j, "flows_not_listed",
	            h->listed ? h->flows_selected - RT_AN_HTML_MAX_FLOWS : 0);
	rt_json_obj_end(j);
}

/* ---- the page ---- */

/* A document in memory: written through an outbuf into a memory stream. */
struct memdoc {
	char *data;
	size_t len;
};

enum doc_kind { DOC_META, DOC_ANALYSIS, DOC_SERIES };

/* The document of `kind` written to fp through an outbuf: 0 or the write's errno. */
static int write_doc_to(const struct rt_an_html *h, const struct rt_results *r, enum doc_kind kind,
                        FILE *fp)
{
	struct rt_outbuf *o = malloc(sizeof(*o));
	if (!o)
		return ENOMEM;
	struct rt_json j;
	rt_out_init(o, fp);
	rt_json_init(&j, o);
	if (kind == DOC_META)
		meta_doc(h, &j);
	else if (kind == DOC_ANALYSIS)
		an_report_json(r, &j, h->listed);
	else
		series_doc(h, r, &j);
	int err = rt_out_flush(o);
	free(o);
	return err;
}

static int write_doc(const struct rt_an_html *h, const struct rt_results *r, enum doc_kind kind,
                     struct memdoc *d, char *errbuf)
{
	d->data = NULL;
	d->len = 0;
	FILE *mf = open_memstream(&d->data, &d->len);
	int err = mf ? write_doc_to(h, r, kind, mf) : ENOMEM;
	if (mf && fclose(mf) != 0 && !err)
		err = ENOMEM;
	if (err) {
		free(d->data);
		d->data = NULL;
		return rt_errorf(errbuf, err, "report: the page's data");
	}
	return 0;
}

/* <script type="application/gzip+base64" id="ID">: a document the page's script inflates and parses. */
static int embed_gzip(struct rt_outbuf *o, const struct rt_an_html *h, const struct rt_results *r,
                      enum doc_kind kind, const char *id, char *errbuf)
{
	/* deflated in pieces as it is written, on the analysis' threads (the same bytes at any number) */
	struct rt_gzp *g = rt_gzp_new(6, h->threads);
	FILE *fp = g ? rt_gzp_file(g) : NULL;
	int err = fp ? write_doc_to(h, r, kind, fp) : ENOMEM;
	unsigned char *gz = NULL;
	size_t gzlen = 0;
	int rc = err ? -err : rt_gzp_finish(g, &gz, &gzlen);
	rt_gzp_free(g);
	if (rc < 0)
		return rt_errorf(errbuf, -rc, "report: compressing the page's data");
	rt_out_printf(o, "<script type=\"application/gzip+base64\" id=\"%s\">\n", id);
	rt_out_base64(o, gz, gzlen);
	rt_out_str(o, "\n</script>\n");
	free(gz);
	return 0;
}

static void asset(struct rt_outbuf *o, const char *tag, const struct rt_report_asset *a)
{
	rt_out_printf(o, "<%s>\n", tag);
	rt_out_write(o, a->data, a->len);
	rt_out_printf(o, "\n</%s>\n", tag);
}

static int write_page(struct rt_an_html *h, const struct rt_results *r, struct rt_outbuf *o,
                      char *errbuf)
{
	rt_out_str(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	              "<meta name=\"generator\" content=\"rocetrace " RT_VERSION "\">\n<title>");
	rt_out_html(o, h->title);
	rt_out_str(o, "</title>\n");
	asset(o, "style", &rt_report_dygraph_css);
	asset(o, "style", &rt_report_page_css);
	rt_out_str(o, "</head>\n<body>\n<header><h1 id=\"rt-title\">");
	rt_out_html(o, h->title);
	rt_out_str(o, "</h1><p class=\"rt-sub\">rocetrace " RT_VERSION " &middot; ");
	for (unsigned i = 0; i < h->nfiles; i++) {
		if (i)
			rt_out_str(o, ", ");
		rt_out_html(o, h->files[i]);
	}
	rt_out_str(
	    o,
	    "</p></header>\n<main id=\"rt-main\"><p id=\"rt-loading\">Reading the "
	    "report&hellip;</p>"
	    "<noscript><p>This report draws its tables and charts with JavaScript: allow scripts "
	    "for this file.</p></noscript></main>\n");

	struct memdoc meta;
	int rc = write_doc(h, r, DOC_META, &meta, errbuf);
	if (rc < 0)
		return rc;
	rt_out_str(o, "<script type=\"application/json\" id=\"rt-meta\">\n");
	rt_out_script_json(o, meta.data, meta.len);
	rt_out_str(o, "\n</script>\n");
	free(meta.data);
	if ((rc = embed_gzip(o, h, r, DOC_ANALYSIS, "rt-analysis", errbuf)) < 0 ||
	    (rc = embed_gzip(o, h, r, DOC_SERIES, "rt-series", errbuf)) < 0)
		return rc;
	asset(o, "script", &rt_report_dygraph_js);
	/* the page's own script (report_page.js, report_page_tables.js): one strict function, no globals */
	rt_out_str(o, "<script>\n(function () {\n\"use strict\";\n");
	rt_out_write(o, rt_report_page_js.data, rt_report_page_js.len);
	rt_out_str(o, "\n})();\n</script>\n");
	rt_out_str(o, "</body>\n</html>\n");
	return 0;
}

static int html_report(void *ctx, const struct rt_results *r, char *errbuf)
{
	struct rt_an_html *h = ctx;
	struct rt_outbuf *o = malloc(sizeof(*o));
	if (!o)
		return rt_errorf(errbuf, ENOMEM, "writing the report");
	rt_out_init(o, h->fp);
	bool *listed;
	int rc = an_report_flows_listed(r, RT_AN_HTML_MAX_FLOWS, &listed, &h->flows_selected);
	if (rc < 0) {
		free(o);
		return rt_errorf(errbuf, -rc, "report: choosing the flows to list");
	}
	h->listed = listed;
	rc = write_page(h, r, o, errbuf);
	h->listed = NULL;
	free(listed);
	int err = rt_out_flush(o);
	free(o);
	if (rc < 0)
		return rc;
	return err ? rt_errorf(errbuf, err, "writing the report") : 0;
}

static void html_free(void *ctx)
{
	struct rt_an_html *h = ctx;
	for (uint32_t i = 0; i < h->nfl; i++)
		free(h->fl[i]);
	free(h->seen);
	free(h);
}

int rt_an_report_html_sink(FILE *fp, const struct rt_an_html_opts *opts, struct rt_an_sink *out,
                           struct rt_an_html **html, char *errbuf)
{
	if (!rt_report_dygraph_js.len)
		return rt_errmsg(
		    errbuf, ENOTSUP,
		    "this rocetrace was built without the charting library of the report "
		    "(Debian package libjs-dygraphs): install it (tools/setup-debian does) and "
		    "run meson setup again");
	if (!opts->bucket_ns)
		return rt_errmsg(errbuf, EINVAL, "report: the bucket length is 0");
	struct rt_an_html *h = calloc(1, sizeof(*h));
	if (!h)
		return rt_errorf(errbuf, ENOMEM, "report");
	h->fp = fp;
	h->title = opts->title;
	h->files = opts->files;
	h->nfiles = opts->nfiles;
	h->counters = opts->counters;
	h->source_log = opts->source_log;
	h->bucket_note = opts->bucket_note;
	h->threads = opts->threads;
	an_grid_init(&h->g, opts->bucket_ns);
	*out = (struct rt_an_sink){.bucket_ns = opts->bucket_ns,
	                           .bucket = html_bucket,
	                           .report = html_report,
	                           .free = html_free,
	                           .ctx = h};
	if (html)
		*html = h;
	return 0;
}

void rt_an_html_input_error(struct rt_an_html *h, const char *message, int exit_status)
{
	snprintf(h->input_error, sizeof(h->input_error), "%s", message ? message : "");
	h->exit_status = exit_status;
}

/* Side files joined into the report: NIC counter samples (deltas per device) and the traffic source's event log. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/jsonl.h"

/* Longest line accepted; longer lines are bad lines. */
#define AN_LINE_MAX (1u << 20)

typedef void (*line_fn)(struct rt_analyzer *an, const struct rt_jobj *obj, bool *bad);

static int read_lines(struct rt_analyzer *an, const char *path, line_fn fn, uint64_t *lines,
		      uint64_t *bad, char *errbuf)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		int err = errno;
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s: %s", path, strerror(err));
		return -err;
	}
	struct rt_jobj *obj = malloc(sizeof(*obj));
	char *line = malloc(AN_LINE_MAX);
	if (!obj || !line) {
		free(obj);
		free(line);
		fclose(fp);
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (fgets(line, AN_LINE_MAX, fp)) {
		size_t len = strlen(line);
		if (len == AN_LINE_MAX - 1 && line[len - 1] != '\n') {
			/* overlong: skip the rest of it */
			int c;
			while ((c = fgetc(fp)) != EOF && c != '\n')
				;
			(*lines)++;
			(*bad)++;
			continue;
		}
		const char *p = line;
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p)
			continue;
		(*lines)++;
		bool is_bad = rt_jsonl_parse(line, obj) < 0;
		if (!is_bad)
			fn(an, obj, &is_bad);
		if (is_bad)
			(*bad)++;
	}
	int err = ferror(fp) ? EIO : 0;
	fclose(fp);
	free(obj);
	free(line);
	if (err) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s: read error", path);
		return -err;
	}
	return 0;
}

/* ---- counters ---- */

static struct an_counter_dev *cdev_get(struct rt_analyzer *an, const char *name)
{
	for (size_t i = 0; i < an->ncdev; i++)
		if (!strcmp(an->cdev[i].name, name))
			return &an->cdev[i];
	struct an_counter_dev *nd = realloc(an->cdev, (an->ncdev + 1) * sizeof(*nd));
	if (!nd)
		return NULL;
	an->cdev = nd;
	struct an_counter_dev *d = &an->cdev[an->ncdev++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	return d;
}

/* Record a sample of counter `name`; 1 with *prev set when the device had one before, 0 when new. */
static int cdev_set(struct an_counter_dev *d, const char *name, double v, double *prev)
{
	for (size_t i = 0; i < d->n; i++) {
		if (!strcmp(d->names[i], name)) {
			*prev = d->last[i];
			d->last[i] = v;
			return 1;
		}
	}
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 32;
		char **nn = realloc(d->names, ncap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		d->names = nn;
		double *nf = realloc(d->first, ncap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		d->first = nf;
		double *nl = realloc(d->last, ncap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		d->last = nl;
		d->cap = ncap;
	}
	d->names[d->n] = strdup(name);
	if (!d->names[d->n])
		return -ENOMEM;
	d->first[d->n] = v;
	d->last[d->n] = v;
	d->n++;
	return 0;
}

/*
 * The capture's own statistics line (written at its end): frames dropped by
 * the interface and by the kernel or the capture. A later line replaces an
 * earlier one.
 */
static void capture_line(struct rt_analyzer *an, const struct rt_jobj *obj, bool *bad)
{
	bool has_if = false, has_os = false;
	for (unsigned i = 0; i < obj->nnested; i++) {
		const struct rt_jfield *c = &obj->nested[i];
		if (c->v.type != RT_JV_NUMBER || !(c->v.num >= 0) || c->v.num >= 18446744073709551616.0)
			continue;
		if (!strcmp(c->key, "if_dropped")) {
			an->find.side_if_dropped = (uint64_t)c->v.num;
			has_if = true;
		} else if (!strcmp(c->key, "os_dropped")) {
			an->find.side_os_dropped = (uint64_t)c->v.num;
			has_os = true;
		}
	}
	if (has_if && has_os)
		an->find.side_drops_known = true;
	else
		*bad = true;
}

static void counter_line(struct rt_analyzer *an, const struct rt_jobj *obj, bool *bad)
{
	uint64_t ts;
	if (!strcmp(obj->nested_name, "capture")) {
		capture_line(an, obj, bad);
		return;
	}
	if (!rt_jts(obj, "ts", &ts) || strcmp(obj->nested_name, "counters")) {
		*bad = true;
		return;
	}
	const char *dev = rt_jstr(obj, "dev"), *netdev = rt_jstr(obj, "netdev");
	double port = 0;
	bool has_port = rt_jnum(obj, "port", &port);
	char name[96];
	if (dev && has_port)
		snprintf(name, sizeof(name), "%s/%.0f%s%s", dev, port, netdev ? " " : "", netdev ? netdev : "");
	else
		snprintf(name, sizeof(name), "%s%s%s", dev ? dev : "", dev && netdev ? " " : "",
			 netdev ? netdev : dev ? "" : "-");
	struct an_counter_dev *d = cdev_get(an, name);
	if (!d)
		return;
	if (!d->samples)
		d->first_ts = ts;
	d->last_ts = ts;
	d->samples++;
	for (unsigned i = 0; i < obj->nnested; i++) {
		const struct rt_jfield *c = &obj->nested[i];
		double prev;
		if (c->v.type != RT_JV_NUMBER || cdev_set(d, c->key, c->v.num, &prev) != 1 ||
		    !an->tl_counters || c->v.num < prev)
			continue;
		/* timeline: the delta since the device's previous sample, at this sample's time */
		unsigned prio;
		char rest[8];
		int kind = -1;
		if (!strcmp(c->key, "np_cnp_sent"))
			kind = AN_SER_NIC_CNP_SENT;
		else if (!strcmp(c->key, "rp_cnp_handled"))
			kind = AN_SER_NIC_CNP_HANDLED;
		else if ((sscanf(c->key, "rx_prio%u_pause%7s", &prio, rest) == 1 ||
			  sscanf(c->key, "tx_prio%u_pause%7s", &prio, rest) == 1) &&
			 prio < 8)
			kind = AN_SER_NIC_PAUSE;
		if (kind >= 0 && c->v.num > prev)
			an_series_add(an, ts, AN_NONE, (uint8_t)kind, c->v.num - prev);
	}
}

int rt_analyzer_load_counters(struct rt_analyzer *an, const char *path, char *errbuf)
{
	/* a timeline loads side files before the capture and joins them bucket by bucket */
	an->tl_counters = an->tl_out != NULL;
	snprintf(an->find.counters_path, sizeof(an->find.counters_path), "%s", path);
	int rc = read_lines(an, path, counter_line, &an->counter_lines, &an->counter_bad, errbuf);
	if (rc == 0)
		an->counters_loaded = true;
	an_series_sort(an);
	return rc;
}

/* The counter's growth over the samples; -1 after a reset (no meaningful delta). */
static double delta(const struct an_counter_dev *d, size_t i)
{
	double v = d->last[i] - d->first[i];
	return v < 0 ? -1 : v;
}

/* A delta as JSON: null when unknown (a reset, or no device had the counter). */
static void delta_json(struct rt_outbuf *o, double v, bool found)
{
	if (found && v >= 0)
		rt_out_double(o, v, 0);
	else
		rt_out_str(o, "null");
}

/*
 * Sum over devices of the delta of counter `name`; *found tells whether any device has it.
 * -1 when one of them was reset (the sum is unknown).
 */
static double sum_delta(const struct rt_analyzer *an, const char *name, bool *found)
{
	double s = 0;
	for (size_t k = 0; k < an->ncdev; k++)
		for (size_t i = 0; i < an->cdev[k].n; i++)
			if (!strcmp(an->cdev[k].names[i], name)) {
				double v = delta(&an->cdev[k], i);
				*found = true;
				if (v < 0 || s < 0)
					s = -1;
				else
					s += v;
			}
	return s;
}

void an_report_counters_json(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	rt_out_str(o, ",\"counters\":{\"lines\":");
	rt_out_u64(o, an->counter_lines);
	rt_out_str(o, ",\"bad_lines\":");
	rt_out_u64(o, an->counter_bad);
	rt_out_str(o, ",\"devices\":[");
	for (size_t k = 0; k < an->ncdev; k++) {
		const struct an_counter_dev *d = &an->cdev[k];
		if (k)
			rt_out_char(o, ',');
		rt_out_str(o, "{\"name\":");
		rt_out_json_str(o, d->name);
		rt_out_str(o, ",\"samples\":");
		rt_out_u64(o, d->samples);
		rt_out_str(o, ",\"duration_ns\":");
		rt_out_u64(o, d->last_ts - d->first_ts);
		rt_out_str(o, ",\"deltas\":{");
		for (size_t i = 0; i < d->n; i++) {
			if (i)
				rt_out_char(o, ',');
			rt_out_json_str(o, d->names[i]);
			rt_out_char(o, ':');
			delta_json(o, delta(d, i), true);
		}
		rt_out_str(o, "}}");
	}
	rt_out_str(o, "],\"cnp\":{");
	bool f_sent = false, f_handled = false;
	double sent = sum_delta(an, "np_cnp_sent", &f_sent);
	double handled = sum_delta(an, "rp_cnp_handled", &f_handled);
	rt_out_str(o, "\"np_cnp_sent\":");
	delta_json(o, sent, f_sent);
	rt_out_str(o, ",\"rp_cnp_handled\":");
	delta_json(o, handled, f_handled);
	rt_out_str(o, ",\"seen_on_wire\":");
	rt_out_u64(o, an->tot.cnp);
	rt_out_str(o, "},\"pfc\":{");
	bool first = true;
	for (unsigned p = 0; p < 8; p++) {
		static const char *const kinds[] = {"rx", "tx", "rx", "tx"};
		static const char *const suffix[] = {"", "", "_duration", "_duration"};
		static const char *const keys[] = {"rx_pause", "tx_pause", "rx_pause_duration",
						   "tx_pause_duration"};
		double v[4];
		bool any = false, found[4] = {false, false, false, false};
		for (unsigned j = 0; j < 4; j++) {
			char name[40];
			snprintf(name, sizeof(name), "%s_prio%u_pause%s", kinds[j], p, suffix[j]);
			v[j] = sum_delta(an, name, &found[j]);
			any |= found[j];
		}
		if (!any)
			continue;
		if (!first)
			rt_out_char(o, ',');
		first = false;
		rt_out_printf(o, "\"%u\":{", p);
		for (unsigned j = 0; j < 4; j++) {
			if (j)
				rt_out_char(o, ',');
			rt_out_json_str(o, keys[j]);
			rt_out_char(o, ':');
			delta_json(o, v[j], found[j]);
		}
		rt_out_char(o, '}');
	}
	rt_out_str(o, "}}");
}

void an_report_counters_text(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	rt_out_printf(o, "\nNIC counters (%zu devices, %llu lines, %llu bad):\n", an->ncdev,
		      (unsigned long long)an->counter_lines, (unsigned long long)an->counter_bad);
	bool f_sent = false, f_handled = false;
	double sent = sum_delta(an, "np_cnp_sent", &f_sent);
	double handled = sum_delta(an, "rp_cnp_handled", &f_handled);
	if (f_sent || f_handled) {
		rt_out_str(o, "  CNPs:");
		if (f_sent && sent >= 0)
			rt_out_printf(o, " %.0f sent by NPs,", sent);
		if (f_handled && handled >= 0)
			rt_out_printf(o, " %.0f handled by RPs,", handled);
		rt_out_printf(o, " %llu seen on the wire\n", (unsigned long long)an->tot.cnp);
	}
	for (unsigned p = 0; p < 8; p++) {
		char rx[32], tx[32];
		snprintf(rx, sizeof(rx), "rx_prio%u_pause", p);
		snprintf(tx, sizeof(tx), "tx_prio%u_pause", p);
		bool f1 = false, f2 = false;
		double r = sum_delta(an, rx, &f1), t = sum_delta(an, tx, &f2);
		if ((f1 || f2) && (r > 0 || t > 0)) {
			rt_out_printf(o, "  priority %u:", p);
			if (f1 && r >= 0)
				rt_out_printf(o, " %.0f pause frames received", r);
			if (f2 && t >= 0)
				rt_out_printf(o, "%s %.0f sent", f1 && r >= 0 ? "," : "", t);
			rt_out_printf(o, "%s\n", an->pfc_frames ? "" : " (none in the capture)");
		}
	}
}

/* ---- traffic source log ---- */

static struct an_flow *srclog_flow(struct rt_analyzer *an, const struct rt_jobj *obj, bool create)
{
	const char *src = rt_jstr(obj, "src"), *dst = rt_jstr(obj, "dst");
	double qp;
	if (!src || !dst || !rt_jnum(obj, "dest_qp", &qp) || qp < 0 || qp > AN_PSN_MASK)
		return NULL;
	uint8_t a[16] = {0}, b[16] = {0};
	uint8_t ver = 4;
	if (inet_pton(AF_INET, src, a) != 1 || inet_pton(AF_INET, dst, b) != 1) {
		ver = 6;
		if (inet_pton(AF_INET6, src, a) != 1 || inet_pton(AF_INET6, dst, b) != 1)
			return NULL;
	}
	struct an_key k;
	an_key_from(&k, ver, a, b, (uint32_t)qp);
	uint32_t fi = an_flow_get(an, &k, create);
	if (fi == AN_NONE || (!create && an->flows[fi].id == AN_NONE))
		return NULL;
	return &an->flows[fi];
}

static uint64_t num_or0(const struct rt_jobj *obj, const char *key)
{
	double v;
	if (!rt_jnum(obj, key, &v) || !(v > 0))
		return 0;
	/* 2^64 and above (1e30, 1e999 = inf) would be undefined as a conversion: saturate */
	return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

static void srclog_line(struct rt_analyzer *an, const struct rt_jobj *obj, bool *bad)
{
	const char *ev = rt_jstr(obj, "event");
	uint64_t ts;
	if (!ev || !rt_jts(obj, "ts", &ts)) {
		*bad = true;
		return;
	}
	if (!strcmp(ev, "start") || !strcmp(ev, "pfc"))
		return;
	double sent = 0;
	if (rt_jnum(obj, "sent", &sent) && sent != 0)
		return; /* the server's own view: the flows are named from the sender side */
	struct an_flow *f = srclog_flow(an, obj, an->tl_srclog);
	if (!f) {
		an->srclog_unmatched++;
		return;
	}
	if (an->tl_srclog) {
		uint32_t fi = (uint32_t)(f - an->flows);
		double r;
		if (!strcmp(ev, "rate") && rt_jnum(obj, "rate_mbps", &r))
			an_series_add(an, ts, fi, AN_SER_RATE, r);
		else if (!strcmp(ev, "cnp"))
			an_series_add(an, ts, fi, AN_SER_CNP, 1);
		return;
	}
	struct an_flow_ext *e = an_ext(f);
	if (!e)
		return;
	e->src_seen = true;
	double v;
	if (!strcmp(ev, "rate") && rt_jnum(obj, "rate_mbps", &v)) {
		const char *why = rt_jstr(obj, "reason");
		if (why && !strcmp(why, "cnp") && e->src_rate_events && e->src_rate_last > 0) {
			/* a cut for a CNP: against the rate the source logged before it */
			double cut = 100.0 * (1.0 - v / e->src_rate_last);
			if (!e->src_cuts || cut > e->src_cut_max)
				e->src_cut_max = cut;
			e->src_cuts++;
			e->src_cut_sum += cut;
		}
		if (!e->src_rate_events || v < e->src_rate_min)
			e->src_rate_min = v;
		if (!e->src_rate_events)
			e->src_rate_first = v;
		e->src_rate_last = v;
		e->src_rate_events++;
	} else if (!strcmp(ev, "cnp")) {
		e->src_cnp_events++;
	} else if (!strcmp(ev, "nak")) {
		e->src_naks++;
	} else if (!strcmp(ev, "retransmit")) {
		e->src_retransmit_events++;
		e->src_retransmit_count += num_or0(obj, "count");
	} else if (!strcmp(ev, "timeout")) {
		e->src_timeouts++;
	} else if (!strcmp(ev, "end")) {
		e->src_end_seen = true;
		e->src_packets = num_or0(obj, "packets");
		e->src_bytes = num_or0(obj, "bytes");
		e->src_retrans = num_or0(obj, "retransmitted");
		e->src_cnp_handled = num_or0(obj, "cnp_handled");
		if (rt_jget(obj, "naks"))
			e->src_naks = num_or0(obj, "naks");
	}
}

int rt_analyzer_load_source_log(struct rt_analyzer *an, const char *path, char *errbuf)
{
	an->tl_srclog = an->tl_out != NULL;
	snprintf(an->find.srclog_path, sizeof(an->find.srclog_path), "%s", path);
	int rc = read_lines(an, path, srclog_line, &an->srclog_lines, &an->srclog_bad, errbuf);
	if (rc == 0)
		an->srclog_loaded = true;
	an_series_sort(an);
	return rc;
}

void an_side_free(struct rt_analyzer *an)
{
	for (size_t k = 0; k < an->ncdev; k++) {
		for (size_t i = 0; i < an->cdev[k].n; i++)
			free(an->cdev[k].names[i]);
		free(an->cdev[k].names);
		free(an->cdev[k].first);
		free(an->cdev[k].last);
	}
	free(an->cdev);
}

/* Side files joined to the flows: NIC counter samples (deltas per device) and the traffic source's event log. */
#include "analyze/side.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_read.h"

/* Longest line accepted; longer lines are bad lines. */
#define AN_LINE_MAX (1u << 20)

typedef void (*line_fn)(struct an_side *s, const struct rt_jval *obj, bool *bad);

void an_side_init(struct an_side *s, struct an_flowtab *ft, struct an_buckets *bk)
{
	memset(s, 0, sizeof(*s));
	s->ft = ft;
	s->bk = bk;
}

/*
 * The shape of a side-file line: an object of scalars and at most one
 * nested object of scalars ("counters", "capture"); anything else is a bad
 * line.
 */
static bool side_line_shape(const struct rt_jval *obj)
{
	if (obj->type != RT_JOBJECT)
		return false;
	unsigned nested = 0;
	for (const struct rt_jval *m = obj->child; m; m = m->next) {
		if (m->type == RT_JARRAY || (m->type == RT_JOBJECT && nested++))
			return false;
		if (m->type != RT_JOBJECT)
			continue;
		for (const struct rt_jval *c = m->child; c; c = c->next)
			if (c->type == RT_JARRAY || c->type == RT_JOBJECT)
				return false;
	}
	return true;
}

/* The one member holding an object, or NULL. */
static const struct rt_jval *nested_of(const struct rt_jval *obj)
{
	for (const struct rt_jval *m = obj->child; m; m = m->next)
		if (m->type == RT_JOBJECT)
			return m;
	return NULL;
}

/* Member `key` as a number, a boolean counting as 0 or 1. */
static bool num_or_bool(const struct rt_jval *obj, const char *key, double *out)
{
	const struct rt_jval *v = rt_jget(obj, key);
	if (v && (v->type == RT_JTRUE || v->type == RT_JFALSE)) {
		*out = v->type == RT_JTRUE;
		return true;
	}
	return rt_jval_num(v, out);
}

static int read_lines(struct an_side *s, const char *path, line_fn fn, uint64_t *lines,
                      uint64_t *bad, char *errbuf)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return rt_errorf(errbuf, errno, "%s", path);
	char *line = malloc(AN_LINE_MAX);
	if (!line) {
		fclose(fp);
		return rt_errorf(errbuf, ENOMEM, "%s", path);
	}
	struct rt_jdoc doc;
	rt_jdoc_init(&doc);
	char why[RT_ERRBUF_SIZE];
	errno = 0;
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
		bool is_bad = rt_jdoc_parse(&doc, line, len, why) < 0 || !side_line_shape(doc.root);
		if (!is_bad)
			fn(s, doc.root, &is_bad);
		if (is_bad)
			(*bad)++;
	}
	/* fgets leaves errno as the failed read set it */
	int err = ferror(fp) ? (errno ? errno : EIO) : 0;
	fclose(fp);
	rt_jdoc_free(&doc);
	free(line);
	return err ? rt_errorf(errbuf, err, "%s: read error", path) : 0;
}

/* ---- counters ---- */

static struct an_counter_dev *cdev_get(struct an_side *s, const char *name)
{
	for (size_t i = 0; i < s->ncdev; i++)
		if (!strcmp(s->cdev[i].name, name))
			return &s->cdev[i];
	struct an_counter_dev *nd = realloc(s->cdev, (s->ncdev + 1) * sizeof(*nd));
	if (!nd)
		return NULL;
	s->cdev = nd;
	struct an_counter_dev *d = &s->cdev[s->ncdev++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	return d;
}

/*
 * Record a sample of counter `name`; 1 with *prev set when the device had
 * one before, 0 when new. Samples list the counters in the same order, so
 * the one after the previous match is tried first.
 */
static int cdev_set(struct an_counter_dev *d, const char *name, uint64_t v, uint64_t *prev)
{
	for (size_t k = 0; k < d->n; k++) {
		size_t i = (d->hint + k) % d->n;
		if (!strcmp(d->names[i], name)) {
			*prev = d->last[i];
			d->last[i] = v;
			d->hint = i + 1;
			return 1;
		}
	}
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 32;
		char **nn = realloc(d->names, ncap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		d->names = nn;
		uint64_t *nf = realloc(d->first, ncap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		d->first = nf;
		uint64_t *nl = realloc(d->last, ncap * sizeof(*nl));
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
	d->hint = d->n;
	return 0;
}

/*
 * The capture's own statistics line (written at its end): frames dropped by
 * the interface and by the kernel or the capture. A later line replaces an
 * earlier one.
 */
static void capture_line(struct an_side *s, const struct rt_jval *stats, bool *bad)
{
	bool has_if = false, has_os = false;
	for (const struct rt_jval *c = stats->child; c; c = c->next) {
		uint64_t v;
		if (rt_jval_u64(c, &v) < 0)
			continue;
		if (!strcmp(c->key, "if_dropped")) {
			s->if_dropped = v;
			has_if = true;
		} else if (!strcmp(c->key, "os_dropped")) {
			s->os_dropped = v;
			has_os = true;
		}
	}
	if (has_if && has_os)
		s->drops_known = true;
	else
		*bad = true;
}

/*
 * Every number of a sample is a counter: read exactly as an unsigned 64-bit
 * integer. A line holding a negative, fractional or larger one is bad (and
 * counted as such) as a whole.
 */
static bool counters_exact(const struct rt_jval *counters)
{
	uint64_t v;
	for (const struct rt_jval *c = counters->child; c; c = c->next)
		if (c->type == RT_JNUMBER && rt_jval_u64(c, &v) < 0)
			return false;
	return true;
}

/* The timeline series a counter feeds, or -1 for none. */
static int counter_series(const char *name)
{
	unsigned prio;
	char rest[8];
	if (!strcmp(name, "np_cnp_sent"))
		return AN_SER_NIC_CNP_SENT;
	if (!strcmp(name, "rp_cnp_handled"))
		return AN_SER_NIC_CNP_HANDLED;
	if ((sscanf(name, "rx_prio%u_pause%7s", &prio, rest) == 1 ||
	     sscanf(name, "tx_prio%u_pause%7s", &prio, rest) == 1) &&
	    prio < 8)
		return AN_SER_NIC_PAUSE;
	return -1;
}

static void counter_line(struct an_side *s, const struct rt_jval *obj, bool *bad)
{
	uint64_t ts;
	const struct rt_jval *nested = nested_of(obj);
	if (nested && !strcmp(nested->key, "capture")) {
		capture_line(s, nested, bad);
		return;
	}
	if (!rt_jval_ts(rt_jget(obj, "ts"), &ts) || !nested || strcmp(nested->key, "counters") ||
	    !counters_exact(nested)) {
		*bad = true;
		return;
	}
	const char *dev = rt_jget_str(obj, "dev"), *netdev = rt_jget_str(obj, "netdev");
	double port = 0;
	bool has_port = num_or_bool(obj, "port", &port);
	char name[96];
	if (dev && has_port)
		snprintf(name, sizeof(name), "%s/%.0f%s%s", dev, port, netdev ? " " : "",
		         netdev ? netdev : "");
	else
		snprintf(name, sizeof(name), "%s%s%s", dev ? dev : "", dev && netdev ? " " : "",
		         netdev ? netdev
		         : dev  ? ""
		                : "-");
	struct an_counter_dev *d = cdev_get(s, name);
	if (!d)
		return;
	if (!d->samples)
		d->first_ts = ts;
	d->last_ts = ts;
	d->samples++;
	for (const struct rt_jval *c = nested->child; c; c = c->next) {
		uint64_t v, prev;
		if (rt_jval_u64(c, &v) < 0 || cdev_set(d, c->key, v, &prev) != 1 ||
		    !s->bk->counters || v < prev)
			continue;
		/* timeline: the delta since the device's previous sample, at this sample's time */
		int kind = counter_series(c->key);
		if (kind >= 0 && v > prev)
			an_bk_series_add(s->bk, ts, AN_NONE, (enum an_series_kind)kind,
			                 (double)(v - prev));
	}
}

int an_side_load_counters(struct an_side *s, const char *path, char *errbuf)
{
	/* with buckets the file is loaded before the capture and joins them bucket by bucket */
	s->bk->counters = s->bk->len != 0;
	snprintf(s->counters_path, sizeof(s->counters_path), "%s", path);
	int rc = read_lines(s, path, counter_line, &s->counter_lines, &s->counter_bad, errbuf);
	if (rc == 0)
		s->counters_loaded = true;
	an_bk_sort_series(s->bk);
	return rc;
}

double an_side_delta(const struct an_counter_dev *d, size_t i)
{
	return d->last[i] < d->first[i] ? -1 : (double)(d->last[i] - d->first[i]);
}

double an_side_sum_delta(const struct an_side *s, const char *name, bool *found)
{
	double sum = 0;
	for (size_t k = 0; k < s->ncdev; k++)
		for (size_t i = 0; i < s->cdev[k].n; i++)
			if (!strcmp(s->cdev[k].names[i], name)) {
				double v = an_side_delta(&s->cdev[k], i);
				*found = true;
				if (v < 0 || sum < 0)
					sum = -1;
				else
					sum += v;
			}
	return sum;
}

/* ---- traffic source log ---- */

static uint32_t srclog_flow(struct an_side *s, const struct rt_jval *obj, bool create)
{
	const char *src = rt_jget_str(obj, "src"), *dst = rt_jget_str(obj, "dst");
	double qp;
	if (!src || !dst || !num_or_bool(obj, "dest_qp", &qp) || qp < 0 || qp > AN_PSN_MASK)
		return AN_NONE;
	uint8_t a[16] = {0}, b[16] = {0};
	uint8_t ver = 4;
	if (inet_pton(AF_INET, src, a) != 1 || inet_pton(AF_INET, dst, b) != 1) {
		ver = 6;
		if (inet_pton(AF_INET6, src, a) != 1 || inet_pton(AF_INET6, dst, b) != 1)
			return AN_NONE;
	}
	struct rt_an_flow_key k;
	an_key_from(&k, ver, a, b, (uint32_t)qp);
	uint32_t fi = an_flow_get(s->ft, &k, create);
	if (fi == AN_NONE || (!create && s->ft->flows[fi].id == AN_NONE))
		return AN_NONE;
	return fi;
}

/* Member `key` as a count: exact when written as an integer, else the number's value saturated, or 0. */
static uint64_t num_or0(const struct rt_jval *obj, const char *key)
{
	uint64_t n;
	if (rt_jval_u64(rt_jget(obj, key), &n) == 0)
		return n;
	double v;
	if (!num_or_bool(obj, key, &v) || !(v > 0))
		return 0;
	/* 2^64 and above (1e30, 1e999 = inf) would be undefined as a conversion: saturate */
	return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

static void srclog_line(struct an_side *s, const struct rt_jval *obj, bool *bad)
{
	const char *ev = rt_jget_str(obj, "event");
	uint64_t ts;
	if (!ev || !rt_jval_ts(rt_jget(obj, "ts"), &ts)) {
		*bad = true;
		return;
	}
	if (!strcmp(ev, "start") || !strcmp(ev, "pfc"))
		return;
	double sent = 0;
	if (num_or_bool(obj, "sent", &sent) && sent != 0)
		return; /* the server's own view: the flows are named from the sender side */
	uint32_t fi = srclog_flow(s, obj, s->bk->srclog || s->before_capture);
	if (fi == AN_NONE) {
		s->srclog_unmatched++;
		return;
	}
	if (s->bk->srclog) {
		/* loaded before the capture for the buckets: joined to the flow too (the HTML report shows both) */
		double r;
		if (!strcmp(ev, "rate") && num_or_bool(obj, "rate_mbps", &r))
			an_bk_series_add(s->bk, ts, fi, AN_SER_RATE, r);
		else if (!strcmp(ev, "cnp"))
			an_bk_series_add(s->bk, ts, fi, AN_SER_CNP, 1);
	}
	struct an_flow *f = &s->ft->flows[fi];
	if (!f->src && !(f->src = calloc(1, sizeof(*f->src))))
		return;
	struct an_src *e = f->src;
	double v;
	e->events++;
	if (!strcmp(ev, "rate") && num_or_bool(obj, "rate_mbps", &v)) {
		const char *why = rt_jget_str(obj, "reason");
		if (why && !strcmp(why, "cnp") && e->rate_events && e->rate_last > 0) {
			/* a cut for a CNP: against the rate the source logged before it */
			double cut = 100.0 * (1.0 - v / e->rate_last);
			if (!e->cuts || cut > e->cut_max)
				e->cut_max = cut;
			e->cuts++;
			e->cut_sum += cut;
		}
		if (!e->rate_events || v < e->rate_min)
			e->rate_min = v;
		if (!e->rate_events)
			e->rate_first = v;
		e->rate_last = v;
		e->rate_events++;
	} else if (!strcmp(ev, "cnp")) {
		e->cnp_events++;
	} else if (!strcmp(ev, "nak")) {
		e->naks++;
	} else if (!strcmp(ev, "retransmit")) {
		e->retransmit_events++;
		e->retransmit_count += num_or0(obj, "count");
	} else if (!strcmp(ev, "timeout")) {
		e->timeouts++;
	} else if (!strcmp(ev, "end")) {
		e->end_seen = true;
		e->packets = num_or0(obj, "packets");
		e->bytes = num_or0(obj, "bytes");
		e->retrans = num_or0(obj, "retransmitted");
		e->cnp_handled = num_or0(obj, "cnp_handled");
		if (rt_jget(obj, "naks"))
			e->naks = num_or0(obj, "naks");
	}
}

int an_side_load_source_log(struct an_side *s, const char *path, char *errbuf)
{
	s->bk->srclog = s->bk->len != 0;
	snprintf(s->srclog_path, sizeof(s->srclog_path), "%s", path);
	int rc = read_lines(s, path, srclog_line, &s->srclog_lines, &s->srclog_bad, errbuf);
	if (rc == 0)
		s->srclog_loaded = true;
	an_bk_sort_series(s->bk);
	return rc;
}

uint64_t an_side_srclog_unmatched(const struct an_side *s, bool *matched)
{
	uint64_t n = s->srclog_unmatched;
	*matched = false;
	for (uint32_t i = 0; i < s->ft->n; i++) {
		const struct an_flow *f = &s->ft->flows[i];
		if (!f->src)
			continue;
		if (f->id == AN_NONE)
			n += f->src->events;
		else
			*matched = true;
	}
	return n;
}

void an_side_free(struct an_side *s)
{
	for (size_t k = 0; k < s->ncdev; k++) {
		for (size_t i = 0; i < s->cdev[k].n; i++)
			free(s->cdev[k].names[i]);
		free(s->cdev[k].names);
		free(s->cdev[k].first);
		free(s->cdev[k].last);
	}
	free(s->cdev);
	s->cdev = NULL;
	s->ncdev = 0;
}

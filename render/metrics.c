/* Live metrics of a capture: the snapshot store between threads and the Prometheus/OpenMetrics exposition. */
#include "render/metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/results.h"
#include "common/textfmt.h"
#include "common/clock.h"

/* ---- the exposition ---- */

enum family_type { COUNTER, GAUGE, UNKNOWN };

/* One metric family: its name (without _total), type, unit (OpenMetrics UNIT, NULL: none) and help. */
struct family {
	const char *name;
	enum family_type type;
	const char *unit;
	const char *help;
};

static const struct family F_FRAMES = {"rocetrace_frames", COUNTER, NULL,
                                       "Frames the capture handed over, every kind."};
static const struct family F_ROCE_PACKETS = {
    "rocetrace_roce_packets", COUNTER, NULL,
    "RoCE packets (RoCEv2, RoCEv1, CNPs included); a copy of a packet seen again counts once."};
static const struct family F_ROCE_BYTES = {"rocetrace_roce_bytes", COUNTER, "bytes",
                                           "Wire length of the RoCE packets, in bytes."};
static const struct family F_CE = {
    "rocetrace_ce_marked_packets", COUNTER, NULL,
    "RoCE packets whose IP ECN field is CE (congestion experienced)."};
static const struct family F_CNP = {"rocetrace_cnp", COUNTER, NULL,
                                    "Congestion notification packets (BTH opcode 0x81)."};
static const struct family F_NAK = {"rocetrace_nak", COUNTER, NULL, "AETH NAKs, RNR NAKs aside."};
static const struct family F_RETRANS = {
    "rocetrace_retransmitted_packets", COUNTER, NULL,
    "RC/XRC requests sent again (a PSN at or behind the highest one sent)."};
static const struct family F_PFC_FRAMES = {
    "rocetrace_pfc_frames", COUNTER, NULL,
    "PFC frames that set a priority to XOFF (quanta above 0) or XON (quanta 0); priority 'pause' "
    "counts 802.3x PAUSE frames."};
static const struct family F_PFC_PAUSED = {
    "rocetrace_pfc_paused_seconds", COUNTER, "seconds",
    "Time each priority was paused by PFC ('pause': 802.3x PAUSE), summed over sending MACs."};
static const struct family F_DROPPED = {"rocetrace_capture_dropped", COUNTER, NULL,
                                        "Frames the capture lost: kernel, receive ring and "
                                        "interface drops as the source reports them."};
static const struct family F_FLOWS = {
    "rocetrace_flows", GAUGE, NULL,
    "Flows (one direction of one QP) seen since the capture started."};
static const struct family F_RUNNING = {"rocetrace_capture_running", GAUGE, NULL,
                                        "1 while the capture runs; 0 once it ended (its final "
                                        "figures, served during --metrics-linger)."};
static const struct family F_FLOW_PACKETS = {"rocetrace_flow_packets", COUNTER, NULL,
                                             "Packets of one of the busiest flows (by bytes)."};
static const struct family F_FLOW_BYTES = {
    "rocetrace_flow_bytes", COUNTER, "bytes",
    "Wire length of one of the busiest flows' packets, in bytes."};
static const struct family F_FLOW_CE = {"rocetrace_flow_ce_marked_packets", COUNTER, NULL,
                                        "CE-marked packets of one of the busiest flows."};
static const struct family F_FLOW_CNP = {"rocetrace_flow_cnp_received", COUNTER, NULL,
                                         "CNPs sent to the sender of one of the busiest flows."};
static const struct family F_FLOW_NAK = {
    "rocetrace_flow_nak_received", COUNTER, NULL,
    "NAKs sent to the sender of one of the busiest flows (RNR NAKs aside)."};
static const struct family F_FLOW_RETRANS = {"rocetrace_flow_retransmitted_packets", COUNTER, NULL,
                                             "Requests of one of the busiest flows sent again."};
static const struct family F_FINDING = {
    "rocetrace_finding", GAUGE, NULL,
    "Findings of the running analysis (docs/FINDINGS.md) by code and severity: how many there "
    "are now."};
static const struct family F_EVENTS = {
    "rocetrace_recorder_events", COUNTER, NULL,
    "Flight recorder (capture --ring): events whose file was started, one per trigger that "
    "fired outside --hold-off and within --max-events."};
static const struct family F_HELD = {
    "rocetrace_recorder_triggers_held", COUNTER, NULL,
    "Flight recorder: triggers that fired but started no event (--hold-off, an event's file "
    "still written, --max-events reached)."};
static const struct family F_NIC = {"rocetrace_nic_counter", UNKNOWN, NULL,
                                    "The latest --counters sample: RDMA port counters (sysfs) and "
                                    "the netdev's ethtool statistics."};

/* The HELP, TYPE (and UNIT) lines of a family. */
static void meta(struct rt_outbuf *o, enum rt_metrics_format f, const struct family *fam)
{
	static const char *const types[2][3] = {{"counter", "gauge", "untyped"},
	                                        {"counter", "gauge", "unknown"}};
	bool om = f == RT_METRICS_OPENMETRICS;
	/* text 0.0.4 names a counter family by its samples' name; OpenMetrics without the _total suffix */
	const char *total = fam->type == COUNTER && !om ? "_total" : "";
	rt_out_printf(o, "# HELP %s%s %s\n", fam->name, total, fam->help);
	rt_out_printf(o, "# TYPE %s%s %s\n", fam->name, total, types[om][fam->type]);
	if (om && fam->unit)
		rt_out_printf(o, "# UNIT %s %s\n", fam->name, fam->unit);
}

/* A label value between quotes: \, " and newline escaped, other bytes outside printable ASCII as '?'. */
static void label_value(struct rt_outbuf *o, const char *v)
{
	rt_out_char(o, '"');
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p == '\\' || *p == '"') {
			rt_out_char(o, '\\');
			rt_out_char(o, (char)*p);
		} else if (*p == '\n') {
			rt_out_str(o, "\\n");
		} else {
			rt_out_char(o, *p >= 0x20 && *p < 0x7f ? (char)*p : '?');
		}
	}
	rt_out_char(o, '"');
}

/* A sample's name: the family's, with _total for a counter. */
static void sample_name(struct rt_outbuf *o, const struct family *fam)
{
	rt_out_str(o, fam->name);
	if (fam->type == COUNTER)
		rt_out_str(o, "_total");
}

/* One sample without labels. */
static void plain(struct rt_outbuf *o, enum rt_metrics_format f, const struct family *fam,
                  uint64_t v)
{
	meta(o, f, fam);
	sample_name(o, fam);
	rt_out_char(o, ' ');
	rt_out_u64(o, v);
	rt_out_char(o, '\n');
}

/* Nanoseconds as seconds with nine decimals. */
static void seconds(struct rt_outbuf *o, uint64_t ns)
{
	rt_out_printf(o, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
	              (unsigned long long)(ns % 1000000000u));
}

static void pfc(struct rt_outbuf *o, enum rt_metrics_format f, const struct rt_an_counts *t)
{
	char nb[2];
	meta(o, f, &F_PFC_FRAMES);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		for (int kind = 0; kind < 2; kind++) {
			sample_name(o, &F_PFC_FRAMES);
			rt_out_str(o, "{priority=");
			label_value(o, rt_res_class_name(c, nb));
			rt_out_str(o, kind ? ",kind=\"xon\"} " : ",kind=\"xoff\"} ");
			rt_out_u64(o, kind ? t->pfc_xon[c] : t->pfc_xoff[c]);
			rt_out_char(o, '\n');
		}
	meta(o, f, &F_PFC_PAUSED);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		sample_name(o, &F_PFC_PAUSED);
		rt_out_str(o, "{priority=");
		label_value(o, rt_res_class_name(c, nb));
		rt_out_str(o, "} ");
		seconds(o, t->pfc_paused_ns[c]);
		rt_out_char(o, '\n');
	}
}

/* The labels of a flow: {src="...",dst="...",dest_qp="0x000011"} as --flow takes them. */
static void flow_labels(struct rt_outbuf *o, const struct rt_an_flow_key *k)
{
	char a[64];
	rt_out_str(o, "{src=");
	label_value(o, rt_ip_to_str(k->ipver, k->src, a, sizeof(a)));
	rt_out_str(o, ",dst=");
	label_value(o, rt_ip_to_str(k->ipver, k->dst, a, sizeof(a)));
	char qp[RT_QP_TEXT_MAX];
	rt_out_printf(o, ",dest_qp=\"%s\"} ", rt_fmt_qp(qp, k->dest_qp));
}

static void flows(struct rt_outbuf *o, enum rt_metrics_format f,
                  const struct rt_metrics_snapshot *s)
{
	static const struct family *const fams[] = {
	    &F_FLOW_PACKETS, &F_FLOW_BYTES, &F_FLOW_CE, &F_FLOW_CNP, &F_FLOW_NAK, &F_FLOW_RETRANS};
	if (!s->ntop)
		return;
	for (unsigned i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		meta(o, f, fams[i]);
		for (unsigned n = 0; n < s->ntop; n++) {
			const struct rt_an_flow_figures *fl = &s->top[n];
			const uint64_t v[] = {
			    fl->packets,      fl->bytes,         fl->ce,
			    fl->cnp_received, fl->naks_received, fl->retransmitted};
			sample_name(o, fams[i]);
			flow_labels(o, &fl->key);
			rt_out_u64(o, v[i]);
			rt_out_char(o, '\n');
		}
	}
}

/* rocetrace_finding{code,severity}: the findings counted by code and severity (none: the family alone). */
static void findings(struct rt_outbuf *o, enum rt_metrics_format f,
                     const struct rt_metrics_snapshot *s)
{
	meta(o, f, &F_FINDING);
	for (unsigned i = 0; i < s->nfindings; i++) {
		const struct rt_finding_tag *t = &s->findings[i];
		bool said = false;
		for (unsigned k = 0; k < i && !said; k++)
			said = !strcmp(s->findings[k].code, t->code) &&
			       s->findings[k].severity == t->severity;
		if (said)
			continue;
		uint64_t n = 0;
		for (unsigned k = i; k < s->nfindings; k++)
			n += !strcmp(s->findings[k].code, t->code) &&
			     s->findings[k].severity == t->severity;
		sample_name(o, &F_FINDING);
		rt_out_str(o, "{code=");
		label_value(o, t->code);
		rt_out_str(o, ",severity=");
		label_value(o, rt_severity_name(t->severity));
		rt_out_str(o, "} ");
		rt_out_u64(o, n);
		rt_out_char(o, '\n');
	}
}

static void nic_counters(struct rt_outbuf *o, enum rt_metrics_format f,
                         const struct rt_metrics_nic *nic, unsigned nnic)
{
	if (!nnic)
		return;
	meta(o, f, &F_NIC);
	for (unsigned i = 0; i < nnic; i++) {
		char port[16] = "";
		if (nic[i].port)
			snprintf(port, sizeof(port), "%u", nic[i].port);
		sample_name(o, &F_NIC);
		rt_out_str(o, "{dev=");
		label_value(o, nic[i].dev);
		rt_out_str(o, ",port=");
		label_value(o, port);
		rt_out_str(o, ",name=");
		label_value(o, nic[i].name);
		rt_out_str(o, "} ");
		rt_out_u64(o, nic[i].value);
		rt_out_char(o, '\n');
	}
}

void rt_metrics_format(struct rt_outbuf *o, enum rt_metrics_format f,
                       const struct rt_metrics_snapshot *s, const struct rt_metrics_nic *nic,
                       unsigned nnic)
{
	const struct rt_an_counts *t = &s->t;
	plain(o, f, &F_RUNNING, s->running);
	plain(o, f, &F_FRAMES, s->frames);
	plain(o, f, &F_ROCE_PACKETS, t->roce_packets);
	plain(o, f, &F_ROCE_BYTES, t->roce_bytes);
	plain(o, f, &F_CE, t->ce);
	plain(o, f, &F_CNP, t->cnp);
	plain(o, f, &F_NAK, t->nak);
	plain(o, f, &F_RETRANS, t->retransmitted);
	pfc(o, f, t);
	plain(o, f, &F_DROPPED, s->dropped);
	plain(o, f, &F_FLOWS, s->flows);
	findings(o, f, s);
	if (s->recorder) {
		plain(o, f, &F_EVENTS, s->events);
		plain(o, f, &F_HELD, s->held);
	}
	flows(o, f, s);
	nic_counters(o, f, nic, nnic);
	if (f == RT_METRICS_OPENMETRICS)
		rt_out_str(o, "# EOF\n");
}

const char *rt_metrics_content_type(enum rt_metrics_format f)
{
	return f == RT_METRICS_OPENMETRICS
	           ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	           : "text/plain; version=0.0.4; charset=utf-8";
}

enum rt_metrics_format rt_metrics_negotiate(const char *accept)
{
	return accept && strcasestr(accept, "application/openmetrics-text") ? RT_METRICS_OPENMETRICS
	                                                                    : RT_METRICS_TEXT;
}

/* ---- the store ---- */

/*
 * Finding the busiest flows reads every flow: it runs again only once 50
 * times its last duration passed, so it takes at most 2% of the capture
 * thread (a million flows, 18 ms a search on this 2-CPU VM: about once a
 * second; ten thousand, 0.1 ms: at each publication).
 */
#define TOP_DUTY 50
/*
 * The findings judge a view of every flow (rt_analyzer_live_findings): at
 * most once a second, and only once 50 times its last duration passed.
 */
#define FINDINGS_EVERY_NS 1000000000ull

struct rt_metrics {
	unsigned top_k;
	uint64_t top_at,
	    top_cost_ns; /* when the busiest flows were last found (CLOCK_MONOTONIC), how long it took */
	uint64_t findings_at, findings_cost_ns; /* the same for the findings */
	pthread_mutex_t lock;                   /* pub */
	struct rt_metrics_snapshot pub;
	struct rt_metrics_snapshot stage; /* the capture thread's own, filled without the lock */
	pthread_mutex_t nic_lock;         /* nic, nnic */
	struct rt_metrics_nic *nic;
	unsigned nnic;
};

struct rt_metrics *rt_metrics_new(unsigned top_k, char *errbuf)
{
	if (top_k > RT_METRICS_TOP_MAX)
		top_k = RT_METRICS_TOP_MAX;
	struct rt_metrics *m = calloc(1, sizeof(*m));
	if (!m) {
		rt_errorf(errbuf, ENOMEM, "metrics");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->nic_lock, NULL);
	m->top_k = top_k;
	m->pub.running = true;
	m->pub.top = calloc(top_k ? top_k : 1, sizeof(*m->pub.top));
	m->stage.top = calloc(top_k ? top_k : 1, sizeof(*m->stage.top));
	m->nic = calloc(RT_METRICS_NIC_MAX, sizeof(*m->nic));
	if (!m->pub.top || !m->stage.top || !m->nic) {
		rt_metrics_free(m);
		rt_errorf(errbuf, ENOMEM, "metrics");
		return NULL;
	}
	return m;
}

void rt_metrics_free(struct rt_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->nic_lock);
	free(m->pub.top);
	free(m->stage.top);
	free(m->nic);
	free(m);
}

/* Copy a snapshot into one whose top has room for top_k flows. */
static void copy_snapshot(struct rt_metrics_snapshot *to, const struct rt_metrics_snapshot *from)
{
	struct rt_an_flow_figures *top = to->top;
	*to = *from;
	to->top = top;
	memcpy(top, from->top, from->ntop * sizeof(*top));
}

bool rt_metrics_publish(struct rt_metrics *m, const struct rt_analyzer *an, uint64_t idle_ns,
                        uint64_t frames, uint64_t dropped, bool running, bool wait)
{
	struct rt_metrics_snapshot *s = &m->stage;
	s->running = running;
	s->frames = frames;
	s->dropped = dropped;
	struct rt_an_live live;
	rt_analyzer_live(an, idle_ns, &live);
	s->flows = live.flows;
	s->t = live.t;
	uint64_t now = rt_mono_ns();
	if (wait || now - m->top_at >= TOP_DUTY * m->top_cost_ns) {
		s->ntop = rt_analyzer_top_flows(an, s->top, m->top_k);
		m->top_at = rt_mono_ns();
		m->top_cost_ns = m->top_at - now;
	}
	if (wait || (now - m->findings_at >= FINDINGS_EVERY_NS &&
	             now - m->findings_at >= TOP_DUTY * m->findings_cost_ns)) {
		uint64_t t0 = rt_mono_ns();
		int n = rt_analyzer_live_findings(an, idle_ns, s->findings, RT_FINDINGS_MAX);
		if (n >= 0) /* out of memory: the findings of the view before stay */
			s->nfindings = (unsigned)n;
		m->findings_at = rt_mono_ns();
		m->findings_cost_ns = m->findings_at - t0;
	}
	if (wait)
		pthread_mutex_lock(&m->lock);
	else if (pthread_mutex_trylock(&m->lock) != 0)
		return false;
	copy_snapshot(&m->pub, s);
	pthread_mutex_unlock(&m->lock);
	return true;
}

void rt_metrics_set_recorder(struct rt_metrics *m, uint64_t events, uint64_t held)
{
	m->stage.recorder = true;
	m->stage.events = events;
	m->stage.held = held;
}

void rt_metrics_set_nic(struct rt_metrics *m, const struct rt_metrics_nic *v, unsigned n)
{
	if (n > RT_METRICS_NIC_MAX)
		n = RT_METRICS_NIC_MAX;
	pthread_mutex_lock(&m->nic_lock);
	memcpy(m->nic, v, n * sizeof(*v));
	m->nnic = n;
	pthread_mutex_unlock(&m->nic_lock);
}

int rt_metrics_render(struct rt_metrics *m, enum rt_metrics_format f, char **text, size_t *len)
{
	struct rt_metrics_snapshot s = {0};
	struct rt_metrics_nic *nic = NULL;
	struct rt_outbuf *o = malloc(sizeof(*o));
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = NULL;
	int rc = -ENOMEM;

	s.top = calloc(m->top_k ? m->top_k : 1, sizeof(*s.top));
	if (!o || !s.top)
		goto out;
	pthread_mutex_lock(&m->lock);
	copy_snapshot(&s, &m->pub);
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_lock(&m->nic_lock);
	unsigned nnic = m->nnic;
	if (nnic && (nic = malloc(nnic * sizeof(*nic))))
		memcpy(nic, m->nic, nnic * sizeof(*nic));
	pthread_mutex_unlock(&m->nic_lock);
	if ((nnic && !nic) || !(fp = open_memstream(&buf, &size)))
		goto out;
	rt_out_init(o, fp);
	rt_metrics_format(o, f, &s, nic, nnic);
	int err = rt_out_flush(o);
	if (fclose(fp) == 0 && !err) {
		*text = buf;
		*len = size;
		buf = NULL;
		rc = 0;
	}
out:
	free(buf);
	free(nic);
	free(s.top);
	free(o);
	return rc;
}

/* The findings on the results view: building one (subjects, evidence), the capture's own faults, most severe first. */
#include "analyze/findings.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/wording.h"
#include "common/hash.h"
#include "common/outbuf.h"
#include "common/textfmt.h"

const char *rt_severity_name(enum rt_severity s)
{
	static const char *const names[] = {"info", "warning", "error"};
	return (unsigned)s < 3 ? names[s] : "?";
}

const char *const rt_finding_codes[] = {"pfc_storm",
                                        "pfc_deadlock_suspect",
                                        "np_silent",
                                        "rp_deaf",
                                        "lossy_priority",
                                        "cnp_priority",
                                        "ecmp_collapse",
                                        "ack_timeout",
                                        "rnr",
                                        "nak_storm",
                                        "loss",
                                        "ecn_off",
                                        "slow_np",
                                        "slow_rp",
                                        "mtu_mismatch",
                                        "capture_drops",
                                        "capture_duplicates",
                                        "capture_snaplen",
                                        "capture_time_order",
                                        "capture_flow_limit",
                                        "capture_vantage_incomplete",
                                        "capture_other_port",
                                        NULL};

bool rt_finding_code_known(const char *code)
{
	for (const char *const *c = rt_finding_codes; *c; c++)
		if (!strcmp(*c, code))
			return true;
	return false;
}

/* ---- building a finding ---- */

struct rt_finding *an_fd_add(struct an_fd *l, const char *code, enum rt_severity sev,
                             const char *confidence)
{
	assert(rt_finding_code_known(
	    code)); /* a new code joins rt_finding_codes and docs/FINDINGS.md */
	if (l->n == l->max)
		return NULL;
	struct rt_finding *f = &l->f[l->n++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->severity = sev;
	f->confidence = confidence;
	return f;
}

void an_fd_summary(struct rt_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->summary, sizeof(f->summary), fmt, ap);
	va_end(ap);
}

void an_fd_fix(struct rt_finding *f, const char *check, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->fix, sizeof(f->fix), fmt, ap);
	va_end(ap);
	if (check)
		rt_text_appendf(f->fix, sizeof(f->fix), " Confirm with `rocetrace doctor`: %s.",
		                check);
	else
		rt_text_appendf(
		    f->fix, sizeof(f->fix),
		    " No `rocetrace doctor` check covers it: confirm with a new capture.");
}

static void name(struct rt_finding_names *l, const char *v)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return;
	if (l->n < RT_FINDING_NAMES)
		snprintf(l->v[l->n++], sizeof(l->v[0]), "%s", v);
	else
		l->more = true;
}

void an_fd_host(struct rt_finding *f, uint8_t ipver, const uint8_t ip[16])
{
	char b[64];
	name(&f->hosts, rt_ip_to_str(ipver, ip, b, sizeof(b)));
}

void an_fd_mac(struct rt_finding *f, const uint8_t mac[6])
{
	char b[18];
	name(&f->macs, an_w_mac(b, mac));
}

void an_fd_flow(struct rt_finding *f, const struct rt_res_flow *fl)
{
	if (!fl->selected) { /* a finding's flows are those of the selection */
		f->flows_unselected++;
		return;
	}
	char b[RT_FLOWSEL_TEXT_MAX];
	name(&f->flows,
	     rt_flowsel_format(b, fl->key.ipver, fl->key.src, fl->key.dst, fl->key.dest_qp));
}

void an_fd_priority(struct rt_finding *f, unsigned cls)
{
	for (unsigned i = 0; i < f->npriorities; i++)
		if (f->priorities[i] == cls)
			return;
	if (f->npriorities < RT_AN_PFC_CLASSES)
		f->priorities[f->npriorities++] = (uint8_t)cls;
}

static struct rt_evidence *value(struct rt_finding *f, const char *name, enum rt_evidence_kind k)
{
	if (f->nevidence == RT_FINDING_EVIDENCE)
		return NULL;
	struct rt_evidence *e = &f->evidence[f->nevidence++];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->kind = k;
	return e;
}

void an_fd_u64(struct rt_finding *f, const char *name, uint64_t v)
{
	struct rt_evidence *e = value(f, name, RT_EV_U64);
	if (e)
		e->u = v;
}

void an_fd_real(struct rt_finding *f, const char *name, double v)
{
	struct rt_evidence *e = value(f, name, isfinite(v) ? RT_EV_REAL : RT_EV_NULL);
	if (e)
		e->d = v;
}

void an_fd_bool(struct rt_finding *f, const char *name, bool v)
{
	struct rt_evidence *e = value(f, name, RT_EV_BOOL);
	if (e)
		e->u = v;
}

void an_fd_null(struct rt_finding *f, const char *name)
{
	value(f, name, RT_EV_NULL);
}

void an_fd_text(struct rt_finding *f, const char *name, const char *fmt, ...)
{
	size_t left = sizeof(f->pool) - f->pool_used;
	if (left < 2)
		return;
	struct rt_evidence *e = value(f, name, RT_EV_TEXT);
	if (!e)
		return;
	char *at = f->pool + f->pool_used;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(at, left, fmt, ap);
	va_end(ap);
	f->pool_used += n < 0 ? 1 : (size_t)n + 1 < left ? (size_t)n + 1 : left;
	e->text = at;
}

void an_fd_time(struct rt_finding *f, const struct rt_results *r, const char *name, uint64_t ns)
{
	/* the names live as long as the finding: one of a few fixed pairs */
	static const char *const names[][3] = {{"start", "start_ns", "start_ms"},
	                                       {"first", "first_ns", "first_ms"}};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i][0], name)) {
			an_fd_u64(f, names[i][1], ns);
			an_fd_real(f, names[i][2],
			           ns >= r->start_ns ? (double)(ns - r->start_ns) / 1e6
			                             : -(double)(r->start_ns - ns) / 1e6);
		}
}

/* ---- what the rules share ---- */

const char *an_fd_hosts_words(const struct rt_finding *f, uint64_t total, char buf[256])
{
	buf[0] = 0;
	if (!f->hosts.n)
		return buf;
	if (!total && f->hosts.more) {
		snprintf(buf, 256, "%s and %u or more other hosts", f->hosts.v[0], f->hosts.n);
		return buf;
	}
	if (!total)
		total = f->hosts.n;
	if (total == 2 && f->hosts.n == 2)
		snprintf(buf, 256, "%s and %s", f->hosts.v[0], f->hosts.v[1]);
	else if (total > 1)
		snprintf(buf, 256, "%s and %llu other host%s", f->hosts.v[0],
		         (unsigned long long)total - 1, total == 2 ? "" : "s");
	else
		snprintf(buf, 256, "%s", f->hosts.v[0]);
	return buf;
}

const struct rt_res_mac *an_fd_mac_entry(const struct rt_results *r, const uint8_t mac[6])
{
	for (uint32_t i = 0; i < r->nmacs; i++)
		if (!memcmp(r->macs[i].mac, mac, 6))
			return &r->macs[i];
	return NULL;
}

bool an_fd_same_ip(uint8_t va, const uint8_t *a, uint8_t vb, const uint8_t *b)
{
	return va == vb && !memcmp(a, b, va == 4 ? 4 : 16);
}

bool an_fd_data_flow(const struct rt_res_flow *f)
{
	return f->requests > 0 && f->key.dest_qp != 1;
}

unsigned an_fd_flow_priority(const struct rt_res_flow *f, bool *by_dscp)
{
	*by_dscp = !f->tagged;
	return f->tagged ? f->pcp : f->dscp >> 3;
}

/* ---- the hosts, once for every rule ---- */

/* IPs by index (0, 1, ... as first named) through an open-addressing table. */
struct ips {
	uint32_t n, mask;
	uint32_t *tab; /* index, or UINT32_MAX */
	struct an_fd_ip *ip;
};

static uint32_t ip_index(struct ips *m, uint8_t ipver, const uint8_t *ip)
{
	uint64_t w[2] = {0, 0};
	memcpy(w, ip, ipver == 4 ? 4 : 16);
	uint64_t h = rt_hash_mix(rt_hash_mix(ipver, w[0]), w[1]);
	uint32_t k = (uint32_t)(h ^ (h >> 32)) & m->mask;
	for (;; k = (k + 1) & m->mask) {
		uint32_t i = m->tab[k];
		if (i == UINT32_MAX)
			break;
		if (an_fd_same_ip(m->ip[i].ipver, m->ip[i].ip, ipver, ip))
			return i;
	}
	uint32_t i = m->n++;
	m->tab[k] = i;
	m->ip[i].ipver = ipver;
	memset(m->ip[i].ip, 0, 16);
	memcpy(m->ip[i].ip, ip, ipver == 4 ? 4 : 16);
	return i;
}

/* Each flow's source and destination host as an index into l->host. 0 or -ENOMEM. */
static int hosts(struct an_fd *l, struct an_fd_ip **host, uint32_t **ends)
{
	const struct rt_results *r = l->r;
	uint32_t size = 16;
	while (size < 4 * (uint64_t)r->nflows + 2)
		size *= 2;
	struct ips m = {.mask = size - 1};
	m.tab = malloc(size * sizeof(*m.tab));
	m.ip = malloc((2 * (size_t)r->nflows + 1) * sizeof(*m.ip));
	*ends = malloc((2 * (size_t)r->nflows + 1) * sizeof(**ends));
	if (!m.tab || !m.ip || !*ends) {
		free(m.tab);
		free(m.ip);
		return -ENOMEM;
	}
	memset(m.tab, 0xff, size * sizeof(*m.tab));
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		(*ends)[id] = ip_index(&m, f->key.ipver, f->key.src);
		(*ends)[r->nflows + id] = ip_index(&m, f->key.ipver, f->key.dst);
	}
	free(m.tab);
	*host = m.ip;
	l->host = m.ip;
	l->nhosts = m.n;
	l->src = *ends;
	l->dst = *ends + r->nflows;
	return 0;
}

/* ---- the capture's own faults: its warnings, as findings ---- */

const struct rt_an_warning *an_fd_warning(const struct rt_results *r, const char *code)
{
	for (unsigned i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, code))
			return &r->warnings[i];
	return NULL;
}

/* A warning's number by name (0 when it has none). */
uint64_t an_fd_warning_value(const struct rt_an_warning *w, const char *name)
{
	for (unsigned k = 0; k < w->nvalues; k++)
		if (!strcmp(w->values[k].name, name))
			return w->values[k].value;
	return 0;
}

void an_fd_capture(struct an_fd *l)
{
	static const struct {
		const char *warning, *code;
		enum rt_severity sev;
		const char *fix;
	} map[] = {
	    {"capture_drops", "capture_drops", RT_SEV_WARNING,
	     "Capture with a larger buffer (rocetrace capture -B, tcpdump -B), a snap length "
	     "that keeps the headers only (-s 128), or on a quieter port; PSN gaps may be these "
	     "drops, not losses in the network."},
	    {"duplicates", "capture_duplicates", RT_SEV_INFO,
	     "Nothing to change for the analysis (copies count once); a mirror that sends each "
	     "frame twice wastes its port: mirror one direction per session."},
	    {"snaplen_cut", "capture_snaplen", RT_SEV_WARNING,
	     "Capture with a snap length that keeps every header (-s 128 or more; 256 with "
	     "ERSPAN or VLANs)."},
	    {"time_backwards", "capture_time_order", RT_SEV_INFO,
	     "Capture on one interface, or merge files by time (mergecap) before analyzing."},
	    {"max_flows", "capture_flow_limit", RT_SEV_WARNING,
	     "Raise --max-flows (each flow costs about 256 bytes), or narrow the capture with a "
	     "filter."},
	    {"vantage_incomplete", "capture_vantage_incomplete", RT_SEV_WARNING,
	     "Give at most 8 vantage points, and --vantage-window no longer than the clocks' "
	     "offset and the delay between the points need."},
	    {"roce_other_port", "capture_other_port", RT_SEV_WARNING,
	     "Analyze with --udp-port P (the port the warning names): RoCEv2 on another UDP port "
	     "is not read as RoCE."},
	};
	const struct rt_results *r = l->r;
	for (unsigned i = 0; i < r->nwarnings; i++) {
		const struct rt_an_warning *w = &r->warnings[i];
		for (unsigned k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
			if (strcmp(w->code, map[k].warning))
				continue;
			enum rt_severity sev = map[k].sev;
			if (!strcmp(w->code, "snaplen_cut") &&
			    !an_fd_warning_value(w, "headers_cut"))
				sev = RT_SEV_INFO; /* only payloads and ICRCs were cut */
			bool dup = !strcmp(w->code, "duplicates");
			if (dup && an_fd_warning_value(w, "same_capture_point"))
				sev =
				    RT_SEV_WARNING; /* one point saw packets twice: the mirror doubles */
			else if (dup && r->nvantage > 1)
				continue; /* vantage points see the same packets: what they are for */
			struct rt_finding *f = an_fd_add(l, map[k].code, sev, NULL);
			if (!f)
				return;
			an_fd_summary(f, "The capture itself: %s.", w->message);
			an_fd_fix(f, NULL, "%s", map[k].fix);
			for (unsigned v = 0; v < w->nvalues; v++)
				an_fd_u64(f, w->values[v].name, w->values[v].value);
		}
	}
}

/* ---- all of them, most severe first ---- */

/* Copy a finding: its text evidence points into its own pool. */
static void move(struct rt_finding *to, const struct rt_finding *from)
{
	*to = *from;
	for (unsigned k = 0; k < to->nevidence; k++)
		if (to->evidence[k].kind == RT_EV_TEXT)
			to->evidence[k].text = to->pool + (from->evidence[k].text - from->pool);
}

static int by_severity(const void *a, const void *b, void *ctx)
{
	const struct rt_finding *f = ctx;
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	if (f[x].severity != f[y].severity)
		return f[x].severity > f[y].severity ? -1 : 1;
	return x < y ? -1 : x > y; /* as the rules found them */
}

int an_findings_build(const struct rt_results *r, struct rt_finding *out, unsigned max)
{
	struct an_fd l = {.r = r, .f = out, .max = max};
	struct an_fd_ip *host = NULL;
	uint32_t *ends = NULL;
	if (hosts(&l, &host, &ends) < 0) {
		free(ends);
		return -ENOMEM;
	}
	an_fd_pfc(&l);
	an_fd_ecn(&l);
	an_fd_priorities(&l);
	an_fd_paths(&l);
	an_fd_transport(&l);
	an_fd_capture(&l);
	free(host);
	free(ends);
	if (l.err)
		return l.err;
	unsigned kept = 0; /* about flows, and none of them selected: left out */
	for (unsigned i = 0; i < l.n; i++)
		if (out[i].flows.n || !out[i].flows_unselected)
			if (kept++ != i)
				move(&out[kept - 1], &out[i]);
	l.n = kept;
	if (l.n < 2)
		return (int)l.n;
	unsigned *order = malloc(l.n * sizeof(*order));
	struct rt_finding *sorted = malloc(l.n * sizeof(*sorted));
	if (!order || !sorted) {
		free(order);
		free(sorted);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < l.n; i++)
		order[i] = i;
	qsort_r(order, l.n, sizeof(*order), by_severity, out);
	for (unsigned i = 0; i < l.n; i++)
		move(&sorted[i], &out[order[i]]);
	for (unsigned i = 0; i < l.n; i++)
		move(&out[i], &sorted[i]);
	free(order);
	free(sorted);
	return (int)l.n;
}

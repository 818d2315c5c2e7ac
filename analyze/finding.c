/* One finding as a rule writes it (its code, summary, fix, subjects, evidence), and the lookups the rules share. */
#include "analyze/finding.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze/wording.h"
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
                                        "capture_wire_length",
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

/* ---- the view's warnings ---- */

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

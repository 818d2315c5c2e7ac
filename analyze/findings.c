/* The findings on the results view: the hosts the rules share, the rules run, the capture's own faults, most severe first. */
#include "analyze/findings.h"

#include "analyze/finding.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

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
	    {"wire_length_short", "capture_wire_length", RT_SEV_WARNING,
	     "Mend the tool that wrote the file: a record's original length is at least the bytes "
	     "it holds. Byte counts and rates of those frames rest on their captured bytes and "
	     "may be low."},
	    {"time_backwards", "capture_time_order", RT_SEV_INFO,
	     "Capture on one interface, or merge files by time (mergecap) before analyzing."},
	    {"max_flows", "capture_flow_limit", RT_SEV_WARNING,
	     "Raise --max-flows (each flow costs about 256 bytes), or narrow the capture with a "
	     "filter."},
	    {"vantage_incomplete", "capture_vantage_incomplete", RT_SEV_WARNING,
	     "Give at most 8 vantage points (for more, write a partial of each, analyze "
	     "--partial, and merge the partials: up to 1024), and --vantage-window no longer "
	     "than the clocks' offset and the delay between the points need."},
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

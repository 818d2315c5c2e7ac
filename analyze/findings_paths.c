/* Findings about paths: RoCE MTUs that disagree, QPs of a host pair on too few UDP source ports (ECMP). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/finding.h"
#include "analyze/wording.h"
#include "common/outbuf.h"
#include "common/textfmt.h"

#define ECMP_QPS      4 /* QPs of a host pair before their ports are judged */
#define ECMP_PER_PORT 4 /* collapsed: on average this many QPs or more per source port */

/* A data flow as the path rules see it: its host pair (IP indexes), its port or MTU. */
struct rec {
	uint64_t pair;
	uint32_t value; /* the UDP source port (a port of its own: 65536 + id), or the MTU */
	uint32_t id;
};

static int by_pair(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->pair != y->pair)
		return x->pair < y->pair ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The data flows chosen by `what` (0: ports, by directed pair; 1: MTUs, by host pair), sorted. */
static struct rec *records(const struct an_fd *l, int what, uint32_t *n)
{
	const struct rt_results *r = l->r;
	struct rec *v = malloc((r->nflows ? r->nflows : 1) * sizeof(*v));
	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!an_fd_data_flow(f) || (what ? !f->pmtu : !f->udp_sport_known))
			continue;
		uint64_t s = l->src[id], d = l->dst[id];
		if (what && s > d) {
			uint64_t t = s;
			s = d;
			d = t;
		}
		v[(*n)++] = (struct rec){.pair = s << 32 | d,
		                         .value = what                  ? f->pmtu
		                                  : f->udp_sport_varied ? 65536 + id
		                                                        : f->udp_sport,
		                         .id = id};
	}
	qsort(v, *n, sizeof(*v), by_pair);
	return v;
}

/* ---- ECMP: the QPs of a host pair should spread over UDP source ports ---- */

/* Uplinks N ports hash onto, on average, of `uplinks`. */
static double used(double uplinks, double ports)
{
	return uplinks * (1.0 - pow(1.0 - 1.0 / uplinks, ports));
}

/* The summary's end: how many more host pairs are alike, and their count. */
static void pairs_end(struct rt_finding *f, uint64_t pairs)
{
	if (pairs > 1)
		rt_text_appendf(f->summary, sizeof(f->summary), "; %llu more host pairs alike",
		                (unsigned long long)pairs - 1);
	rt_text_appendf(f->summary, sizeof(f->summary), ".");
	an_fd_u64(f, "host_pairs", pairs);
}

static void ecmp(struct an_fd *l, const struct rec *v, uint32_t n)
{
	const struct rt_results *r = l->r;
	struct rt_finding *f = NULL;
	uint64_t pairs = 0, qps_all = 0;
	uint32_t worst_qps = 0, worst_ports = 0, worst_id = 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		uint32_t ports = 0;
		for (j = i; j < n && v[j].pair == v[i].pair; j++)
			ports += j == i || v[j].value != v[j - 1].value;
		uint32_t qps = j - i;
		if (qps < ECMP_QPS || (uint64_t)ports * ECMP_PER_PORT > qps)
			continue;
		if (!f && !(f = an_fd_add(l, "ecmp_collapse", RT_SEV_WARNING, NULL)))
			return;
		pairs++;
		qps_all += qps;
		if (qps * worst_ports > worst_qps * ports || !worst_qps) {
			worst_qps = qps;
			worst_ports = ports;
			worst_id = v[i].id;
		}
		const struct rt_res_flow *fl = &r->flows[v[i].id];
		an_fd_host(f, fl->key.ipver, fl->key.src);
		an_fd_host(f, fl->key.ipver, fl->key.dst);
		an_fd_flow(f, fl);
	}
	if (!f)
		return;
	const struct rt_res_flow *w = &r->flows[worst_id];
	char s[48], d[48], port[32], now[48], each[48];
	rt_ip_to_str(w->key.ipver, w->key.src, s, sizeof(s));
	rt_ip_to_str(w->key.ipver, w->key.dst, d, sizeof(d));
	snprintf(port, sizeof(port), "%u", w->udp_sport);
	an_fd_summary(
	    f,
	    "%u QPs from %s to %s share %u UDP source port%s (%s), so ECMP and LAG "
	    "hashing put them on %s: with 4 uplinks they use %s of 4 on average, where a "
	    "port each would use %s",
	    worst_qps, s, d, worst_ports, worst_ports == 1 ? "" : "s",
	    w->udp_sport_varied ? "varying" : port, worst_ports == 1 ? "one path" : "few paths",
	    an_w_num(now, used(4, worst_ports), 2), an_w_num(each, used(4, worst_qps), 2));
	pairs_end(f, pairs);
	an_fd_u64(f, "qps", qps_all);
	an_fd_u64(f, "worst_pair_qps", worst_qps);
	an_fd_u64(f, "worst_pair_ports", worst_ports);
	an_fd_real(f, "qps_per_port", (double)worst_qps / worst_ports);
	static const char *const up[][2] = {{"uplinks_used_of_2", "uplinks_used_of_2_port_each"},
	                                    {"uplinks_used_of_4", "uplinks_used_of_4_port_each"},
	                                    {"uplinks_used_of_8", "uplinks_used_of_8_port_each"}};
	for (unsigned k = 0; k < 3; k++) {
		double u = 2 << k;
		an_fd_real(f, up[k][0], used(u, worst_ports));
		an_fd_real(f, up[k][1], used(u, worst_qps));
	}
	an_fd_fix(f, NULL,
	          "Give each QP its own UDP source port: RoCEv2 NICs derive it from the QP or the "
	          "GRH flow label, so set a flow label per QP (ibv_modify_qp's "
	          "ah_attr.grh.flow_label; rdma_cm sets one), or update the library that fixes it; "
	          "and hash ECMP/LAG on the UDP source port on the switches.");
}

/* ---- MTU: one RoCE MTU end to end ---- */

static void mtu_pairs(struct an_fd *l, const struct rec *v, uint32_t n)
{
	const struct rt_results *r = l->r;
	struct rt_finding *f = NULL;
	uint64_t pairs = 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j].pair == v[i].pair; j++)
			;
		if (v[i].value == v[j - 1].value)
			continue;
		if (!f && !(f = an_fd_add(l, "mtu_mismatch", RT_SEV_WARNING, NULL)))
			return;
		if (!pairs++) {
			char mtus[160] = "", hs[48], hd[48];
			for (uint32_t k = i, c; k < j; k = c) {
				for (c = k; c < j && v[c].value == v[k].value; c++)
					;
				rt_text_appendf(mtus, sizeof(mtus), "%s%u (%u QP%s)",
				                mtus[0] ? ", " : "", v[k].value, c - k,
				                c - k == 1 ? "" : "s");
			}
			const struct rt_res_flow *fl = &r->flows[v[i].id];
			an_fd_summary(
			    f,
			    "QPs between %s and %s use different RoCE MTUs (%s): the larger "
			    "one's frames are bigger than the smaller MTU somewhere on the path "
			    "allows, or one end's MTU is set lower",
			    rt_ip_to_str(fl->key.ipver, fl->key.src, hs, sizeof(hs)),
			    rt_ip_to_str(fl->key.ipver, fl->key.dst, hd, sizeof(hd)), mtus);
			an_fd_text(f, "mtus", "%s", mtus);
			an_fd_u64(f, "largest_frame_bytes", fl->max_frame);
		}
		for (uint32_t k = i; k < j; k++) {
			const struct rt_res_flow *fl = &r->flows[v[k].id];
			if (v[k].value == v[j - 1].value)
				an_fd_flow(f, fl);
			an_fd_host(f, fl->key.ipver, fl->key.src);
		}
	}
	if (!f)
		return;
	pairs_end(f, pairs);
	an_fd_fix(f, "check mtu on each host (doctor --hosts compares their MTUs)",
	          "Set one MTU end to end: a netdev MTU of 4200 or more for RoCE MTU 4096 on every "
	          "NIC, and at least as large on every switch port (a QP takes the smaller MTU of "
	          "its ends; a switch drops frames above its port's).");
}

/* Hosts whose QPs all use a smaller RoCE MTU than most QPs of the capture: below the link's. */
static void mtu_below(struct an_fd *l)
{
	const struct rt_results *r = l->r;
	uint64_t count[5] = {0};
	uint32_t *top = calloc(l->nhosts ? l->nhosts : 1, sizeof(*top));
	if (!top) {
		l->err = -ENOMEM;
		return;
	}
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!an_fd_data_flow(f) || !f->pmtu)
			continue;
		count[__builtin_ctz(f->pmtu) - 8]++;
		for (int end = 0; end < 2; end++) {
			uint32_t i = end ? l->dst[id] : l->src[id];
			top[i] = f->pmtu > top[i] ? f->pmtu : top[i];
		}
	}
	unsigned common = 0;
	for (unsigned k = 1; k < 5; k++)
		if (count[k] > count[common])
			common = k;
	struct rt_finding *f = NULL;
	uint64_t hosts = 0;
	for (uint32_t i = 0; i < l->nhosts && count[common]; i++) {
		if (!top[i] || top[i] >= 256u << common)
			continue;
		if (!f && !(f = an_fd_add(l, "mtu_mismatch", RT_SEV_WARNING, NULL)))
			break;
		hosts++;
		an_fd_host(f, l->host[i].ipver, l->host[i].ip);
		if (hosts == 1)
			an_fd_u64(f, "host_mtu", top[i]);
	}
	free(top);
	if (!f)
		return;
	char who[256];
	an_fd_summary(f,
	              "The QPs of %s use a RoCE MTU below the %u most of this capture's QPs use: "
	              "more packets and headers for the same data.",
	              an_fd_hosts_words(f, hosts, who), 256u << common);
	an_fd_u64(f, "common_mtu", 256u << common);
	an_fd_u64(f, "hosts", hosts);
	an_fd_fix(f, "check mtu on those hosts",
	          "Raise those hosts' netdev MTU (4200 or more for RoCE MTU 4096) and their switch "
	          "ports', if the path allows it.");
}

void an_fd_paths(struct an_fd *l)
{
	uint32_t n;
	struct rec *v = records(l, 1, &n);
	if (v) {
		mtu_pairs(l, v, n);
		mtu_below(l);
		free(v);
		v = records(l, 0, &n);
	}
	if (v)
		ecmp(l, v, n);
	else
		l->err = -ENOMEM;
	free(v);
}

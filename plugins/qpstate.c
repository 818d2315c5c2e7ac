/* The plugin's per-QP engine: flow table, request PSNs, pairing, CE->CNP links, PFC time. */
#include "plugins/qpstate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/opcodes.h"

#define PSN_MASK            0xffffffu
#define OP_READ_REQ         0x0c
#define OP_READ_RESP_FIRST  0x0d
#define OP_READ_RESP_MIDDLE 0x0e
#define OP_READ_RESP_ONLY   0x10
#define OP_ATOMIC_ACK       0x12
/* After this many failed pairing attempts a flow tries only every 64th response. */
#define PAIR_TRIES 64

/* One direction of one QP: (source IP, destination IP, destination QP). */
struct qp_flow {
	uint8_t src[16], dst[16];
	uint8_t ipver;
	bool has_req, in_retrans, nak_pending, any_ce;
	uint16_t pair_tries;
	uint32_t dest_qp;
	uint32_t next_hosts; /* next flow with the same (ipver, src, dst), RT_QP_NONE at the end */
	uint32_t reverse;    /* the paired flow the other way, RT_QP_NONE */
	uint32_t peer_qp;    /* the sender's QP when known, RT_QP_NONE */
	uint32_t pmtu;       /* learned from full-size first/middle packets, 0 unknown */
	/* request PSNs: oldest kept for pairing, highest usable, where the next new request may
	 * start */
	uint32_t psn_lo, psn_hi, next_psn, next_psn_max;
	uint64_t packets, first_ts, last_req_ts;
	uint32_t nak_frame;         /* latest NAK/RNR NAK for this requester, while nak_pending */
	uint32_t burst_nak;         /* NAK frame of the resend burst under way */
	struct rt_qp_note *ce_note; /* first CE-marked frame since the last CNP, NULL none */
	uint32_t ce_frame;
};

/* The PFC/PAUSE state of one sending MAC: the frame whose pause runs, per class. */
struct qp_mac {
	uint8_t mac[6];
	struct rt_qp_pause_note *note[RT_QP_CLASSES];
	uint64_t start[RT_QP_CLASSES];
};

struct rt_qp {
	uint64_t quantum_ps; /* one PFC quantum (512 bit times) in picoseconds */
	struct qp_flow *flows;
	uint32_t nflows, cap;
	/* open addressing, power-of-two sizes, RT_QP_NONE = empty */
	uint32_t *ftab; /* flow key -> flow index */
	uint32_t *htab; /* (ipver, src, dst) -> the newest flow of that host pair */
	uint32_t tab_mask;
	struct qp_mac *macs;
	uint32_t nmacs, cap_macs;
};

/* FNV-1a over the bytes of a key. */
static uint32_t hash_bytes(uint32_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static uint32_t hash_hosts(uint8_t ipver, const uint8_t *src, const uint8_t *dst)
{
	uint32_t h = hash_bytes(2166136261u, &ipver, 1);
	h = hash_bytes(h, src, 16);
	return hash_bytes(h, dst, 16);
}

static uint32_t hash_flow(uint8_t ipver, const uint8_t *src, const uint8_t *dst, uint32_t qpn)
{
	uint8_t q[3] = {(uint8_t)(qpn >> 16), (uint8_t)(qpn >> 8), (uint8_t)qpn};
	return hash_bytes(hash_hosts(ipver, src, dst), q, sizeof(q));
}

static bool same_hosts(const struct qp_flow *f, uint8_t ipver, const uint8_t *src,
                       const uint8_t *dst)
{
	return f->ipver == ipver && !memcmp(f->src, src, 16) && !memcmp(f->dst, dst, 16);
}

struct rt_qp *rt_qp_new(uint64_t link_speed_bps)
{
	struct rt_qp *qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	if (!link_speed_bps)
		link_speed_bps = 100000000000ull;
	qp->quantum_ps = (512000000000000ull + link_speed_bps / 2) / link_speed_bps;
	return qp;
}

void rt_qp_free(struct rt_qp *qp)
{
	if (!qp)
		return;
	free(qp->flows);
	free(qp->ftab);
	free(qp->htab);
	free(qp->macs);
	free(qp);
}

uint32_t rt_qp_flow_count(const struct rt_qp *qp)
{
	return qp->nflows;
}

/* Slot of a flow key in ftab: its flow's or the empty one where it belongs. */
static uint32_t *ftab_slot(const struct rt_qp *qp, uint8_t ipver, const uint8_t *src,
                           const uint8_t *dst, uint32_t qpn)
{
	uint32_t i = hash_flow(ipver, src, dst, qpn) & qp->tab_mask;
	for (;; i = (i + 1) & qp->tab_mask) {
		uint32_t fi = qp->ftab[i];
		if (fi == RT_QP_NONE ||
		    (qp->flows[fi].dest_qp == qpn && same_hosts(&qp->flows[fi], ipver, src, dst)))
			return &qp->ftab[i];
	}
}

static uint32_t *htab_slot(const struct rt_qp *qp, uint8_t ipver, const uint8_t *src,
                           const uint8_t *dst)
{
	uint32_t i = hash_hosts(ipver, src, dst) & qp->tab_mask;
	for (;; i = (i + 1) & qp->tab_mask) {
		uint32_t fi = qp->htab[i];
		if (fi == RT_QP_NONE || same_hosts(&qp->flows[fi], ipver, src, dst))
			return &qp->htab[i];
	}
}

/* Newest flow from src to dst (follow next_hosts for the others), RT_QP_NONE when none. */
static uint32_t hosts_head(const struct rt_qp *qp, uint8_t ipver, const uint8_t *src,
                           const uint8_t *dst)
{
	if (!qp->htab)
		return RT_QP_NONE;
	return *htab_slot(qp, ipver, src, dst);
}

/* Doubles both tables (or makes the first ones) and re-inserts every flow. */
static int grow_tables(struct rt_qp *qp)
{
	uint32_t size = qp->tab_mask ? (qp->tab_mask + 1) * 2 : 64;
	uint32_t *ft = malloc((size_t)size * sizeof(*ft));
	uint32_t *ht = malloc((size_t)size * sizeof(*ht));
	if (!ft || !ht) {
		free(ft);
		free(ht);
		return -ENOMEM;
	}
	memset(ft, 0xff, (size_t)size * sizeof(*ft));
	memset(ht, 0xff, (size_t)size * sizeof(*ht));
	free(qp->ftab);
	free(qp->htab);
	qp->ftab = ft;
	qp->htab = ht;
	qp->tab_mask = size - 1;
	/* in creation order, so each host pair ends with its newest flow in htab */
	for (uint32_t fi = 0; fi < qp->nflows; fi++) {
		const struct qp_flow *f = &qp->flows[fi];
		*ftab_slot(qp, f->ipver, f->src, f->dst, f->dest_qp) = fi;
		*htab_slot(qp, f->ipver, f->src, f->dst) = fi;
	}
	return 0;
}

/* The flow of a record, created when new; RT_QP_NONE when out of memory. */
static uint32_t flow_get(struct rt_qp *qp, const struct rt_record *rec)
{
	uint8_t ipver = rec->ip_version == 4 ? 4 : 6;
	uint8_t src[16] = {0}, dst[16] = {0};
	size_t alen = ipver == 4 ? 4 : 16;
	memcpy(src, rec->src_ip, alen);
	memcpy(dst, rec->dst_ip, alen);
	uint32_t qpn = rec->dest_qp & PSN_MASK;
	if (qp->ftab) {
		uint32_t fi = *ftab_slot(qp, ipver, src, dst, qpn);
		if (fi != RT_QP_NONE)
			return fi;
	}
	if ((uint64_t)(qp->nflows + 1) * 2 > (uint64_t)qp->tab_mask + 1 && grow_tables(qp) < 0)
		return RT_QP_NONE;
	if (qp->nflows == qp->cap) {
		uint32_t ncap = qp->cap ? qp->cap * 2 : 32;
		struct qp_flow *nf = realloc(qp->flows, (size_t)ncap * sizeof(*nf));
		if (!nf)
			return RT_QP_NONE;
		qp->flows = nf;
		qp->cap = ncap;
	}
	uint32_t fi = qp->nflows++;
	struct qp_flow *f = &qp->flows[fi];
	memset(f, 0, sizeof(*f));
	memcpy(f->src, src, 16);
	memcpy(f->dst, dst, 16);
	f->ipver = ipver;
	f->dest_qp = qpn;
	f->reverse = RT_QP_NONE;
	f->peer_qp = RT_QP_NONE;
	*ftab_slot(qp, ipver, src, dst, qpn) = fi;
	uint32_t *hs = htab_slot(qp, ipver, src, dst);
	f->next_hosts = *hs;
	*hs = fi;
	return fi;
}

static void link_flows(struct rt_qp *qp, uint32_t a, uint32_t b)
{
	qp->flows[a].reverse = b;
	qp->flows[b].reverse = a;
	qp->flows[a].peer_qp = qp->flows[b].dest_qp;
	qp->flows[b].peer_qp = qp->flows[a].dest_qp;
}

/*
 * Response flow ri carries PSN `psn`: pair it with the unpaired request flow
 * the other way whose PSN range holds it (the most recently active one).
 */
static void try_pair(struct rt_qp *qp, uint32_t ri, uint32_t psn, uint64_t ts)
{
	struct qp_flow *r = &qp->flows[ri];
	uint16_t tries = r->pair_tries;
	if (tries < UINT16_MAX)
		r->pair_tries++;
	if (tries >= PAIR_TRIES && (tries % PAIR_TRIES))
		return;
	uint32_t best = RT_QP_NONE;
	for (uint32_t fi = hosts_head(qp, r->ipver, r->dst, r->src); fi != RT_QP_NONE;
	     fi = qp->flows[fi].next_hosts) {
		const struct qp_flow *f = &qp->flows[fi];
		if (fi == ri || f->reverse != RT_QP_NONE || !f->has_req || f->first_ts > ts)
			continue;
		if (rt_psn_diff(psn, f->psn_lo) < 0 || rt_psn_diff(psn, f->psn_hi) > 1)
			continue;
		if (best == RT_QP_NONE || f->last_req_ts > qp->flows[best].last_req_ts)
			best = fi;
	}
	if (best != RT_QP_NONE)
		link_flows(qp, best, ri);
}

/*
 * The data flow a CNP in flow ci throttles: its pair if known, else the flow
 * the other way whose sender QP is the CNP's destination QP, else the only
 * CE-marked unpaired flow the other way, else the only unpaired one.
 */
static uint32_t cnp_target(struct rt_qp *qp, uint32_t ci)
{
	const struct qp_flow *c = &qp->flows[ci];
	if (c->reverse != RT_QP_NONE)
		return c->reverse;
	uint32_t only = RT_QP_NONE, only_ce = RT_QP_NONE, pick = RT_QP_NONE;
	unsigned n = 0, n_ce = 0;
	for (uint32_t fi = hosts_head(qp, c->ipver, c->dst, c->src); fi != RT_QP_NONE;
	     fi = qp->flows[fi].next_hosts) {
		const struct qp_flow *f = &qp->flows[fi];
		if (fi == ci || f->reverse != RT_QP_NONE || !f->packets)
			continue;
		if (f->peer_qp == c->dest_qp) {
			pick = fi;
			break;
		}
		n++;
		only = fi;
		if (f->any_ce) {
			n_ce++;
			only_ce = fi;
		}
	}
	if (pick == RT_QP_NONE)
		pick = n_ce == 1 ? only_ce : n == 1 ? only : RT_QP_NONE;
	if (pick != RT_QP_NONE)
		link_flows(qp, pick, ci);
	return pick;
}

static void handle_cnp(struct rt_qp *qp, uint32_t ci, uint32_t frame, struct rt_qp_note *note)
{
	uint32_t ti = cnp_target(qp, ci);
	if (ti == RT_QP_NONE)
		return;
	struct qp_flow *t = &qp->flows[ti];
	note->peer_flow_id = ti;
	if (t->ce_note) {
		note->cnp_for_frame = t->ce_frame;
		t->ce_note->cnp_frame = frame;
		t->ce_note = NULL;
	}
}

static void handle_response(struct rt_qp *qp, uint32_t ri, const struct rt_record *rec, uint8_t op,
                            uint32_t frame, struct rt_qp_note *note)
{
	bool has_aeth = (rec->hdrs & RT_H_AETH) != 0;
	if (qp->flows[ri].reverse == RT_QP_NONE && (has_aeth || op == OP_READ_RESP_MIDDLE))
		try_pair(qp, ri, rec->psn & PSN_MASK, rec->ts_ns);
	uint32_t fi = qp->flows[ri].reverse;
	if (fi != RT_QP_NONE)
		note->peer_flow_id = fi;
	if (!has_aeth)
		return;
	enum rt_aeth_type type = rt_aeth_type(rec->aeth_syndrome);
	if (type != RT_AETH_NAK && type != RT_AETH_RNR_NAK)
		return;
	note->flags |= type == RT_AETH_NAK ? RT_QP_NAK : RT_QP_RNR_NAK;
	note->nak_code = rec->aeth_syndrome & 0x1f;
	if (fi != RT_QP_NONE) {
		qp->flows[fi].nak_pending = true;
		qp->flows[fi].nak_frame = frame;
	}
}

/* PSNs a request uses: 1, or for an RDMA READ request one per response packet (a range while the
 * PMTU is unknown). */
static void request_span(struct qp_flow *f, const struct rt_record *rec, uint8_t op, uint32_t *lo,
                         uint32_t *hi)
{
	if ((op == 0x00 || op == 0x01 || op == 0x06 || op == 0x07) && rec->payload_len >= 256 &&
	    rec->payload_len <= 4096 && !(rec->payload_len & (rec->payload_len - 1)))
		f->pmtu = rec->payload_len;
	*lo = *hi = 1;
	if (op != OP_READ_REQ || !(rec->hdrs & RT_H_RETH) || !rec->reth_len)
		return;
	uint64_t len = rec->reth_len;
	if (f->pmtu) {
		*lo = *hi = (uint32_t)((len + f->pmtu - 1) / f->pmtu);
	} else {
		*hi = (uint32_t)((len + 255) / 256); /* the smallest PMTU: the most packets */
	}
	if (*hi > RT_QP_PSN_WINDOW)
		*hi = RT_QP_PSN_WINDOW;
	if (*lo > *hi)
		*lo = *hi;
}

static void handle_request(struct qp_flow *f, const struct rt_record *rec, uint8_t tr, uint8_t op,
                           struct rt_qp_note *note)
{
	uint32_t p = rec->psn & PSN_MASK;
	uint32_t span_lo, span_hi;
	request_span(f, rec, op, &span_lo, &span_hi);
	bool first = !f->has_req;
	if (first) {
		f->has_req = true;
		f->psn_lo = p;
	} else {
		int32_t past_max = rt_psn_diff(p, f->next_psn_max);
		int32_t past_next = rt_psn_diff(p, f->next_psn);
		if (past_next >= 0 && past_max <= 0) {
			/* in order */
		} else if (past_max > 0) {
			if ((uint32_t)past_max > RT_QP_PSN_WINDOW) {
				note->flags |= RT_QP_PSN_JUMP;
				f->psn_lo = p;
			} else {
				note->psn_gap = (uint32_t)past_max;
			}
		} else if ((uint32_t)-past_next > RT_QP_PSN_WINDOW) {
			note->flags |= RT_QP_PSN_JUMP;
			f->psn_lo = f->psn_hi = p;
		} else if (tr == RT_TR_UC) {
			note->flags |= RT_QP_DUPLICATE;
			return;
		} else {
			note->flags |= RT_QP_RETRANS;
			if (!f->in_retrans) {
				f->in_retrans = true;
				f->burst_nak = f->nak_pending ? f->nak_frame : 0;
				f->nak_pending = false;
			}
			note->nak_frame = f->burst_nak;
			f->last_req_ts = rec->ts_ns;
			return;
		}
	}
	f->in_retrans = false;
	f->next_psn = (p + span_lo) & PSN_MASK;
	f->next_psn_max = (p + span_hi) & PSN_MASK;
	uint32_t hi = (p + span_hi - 1) & PSN_MASK;
	if (first || rt_psn_diff(hi, f->psn_hi) > 0)
		f->psn_hi = hi;
	if ((uint32_t)rt_psn_diff(f->psn_hi, f->psn_lo) > (1u << 22))
		f->psn_lo = (f->psn_hi - (1u << 22)) & PSN_MASK;
	f->last_req_ts = rec->ts_ns;
}

/* UD: the DETH names the sender's QP; pair with the flow the other way to it when there is one. */
static void handle_ud(struct rt_qp *qp, uint32_t fi, const struct rt_record *rec)
{
	struct qp_flow *f = &qp->flows[fi];
	if (!(rec->hdrs & RT_H_DETH) || f->reverse != RT_QP_NONE)
		return;
	if (f->peer_qp == RT_QP_NONE)
		f->peer_qp = rec->deth_src_qp & PSN_MASK;
	if (!qp->ftab)
		return;
	uint32_t ri = *ftab_slot(qp, f->ipver, f->dst, f->src, f->peer_qp);
	if (ri == RT_QP_NONE || ri == fi)
		return;
	const struct qp_flow *r = &qp->flows[ri];
	if (r->reverse == RT_QP_NONE && (r->peer_qp == RT_QP_NONE || r->peer_qp == f->dest_qp))
		link_flows(qp, fi, ri);
}

int rt_qp_roce(struct rt_qp *qp, const struct rt_record *rec, uint32_t frame,
               struct rt_qp_note *note)
{
	memset(note, 0, sizeof(*note));
	note->peer_flow_id = RT_QP_NONE;
	uint32_t fi = flow_get(qp, rec);
	note->flow_id = fi;
	if (fi == RT_QP_NONE)
		return -ENOMEM;
	struct qp_flow *f = &qp->flows[fi];
	if (!f->packets)
		f->first_ts = rec->ts_ns;
	f->packets++;
	bool cnp = rec->opcode == RT_OPCODE_CNP;
	if ((rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && (rec->ecn & 3) == 3) {
		note->flags |= RT_QP_CE;
		f->any_ce = true;
		if (!cnp && !f->ce_note) {
			f->ce_note = note;
			f->ce_frame = frame;
		}
	}
	if (cnp) {
		handle_cnp(qp, fi, frame, note);
		return 0;
	}
	uint8_t tr = (uint8_t)rt_opcode_transport(rec->opcode), op = rec->opcode & 0x1f;
	if (tr == RT_TR_UD) {
		handle_ud(qp, fi, rec);
	} else if (tr == RT_TR_RC || tr == RT_TR_UC || tr == RT_TR_XRC) {
		if (op >= OP_READ_RESP_FIRST && op <= OP_ATOMIC_ACK)
			handle_response(qp, fi, rec, op, frame, note);
		else
			handle_request(f, rec, tr, op, note);
	}
	return 0;
}

static struct qp_mac *mac_get(struct rt_qp *qp, const uint8_t *mac)
{
	for (uint32_t i = 0; i < qp->nmacs; i++)
		if (!memcmp(qp->macs[i].mac, mac, 6))
			return &qp->macs[i];
	if (qp->nmacs == qp->cap_macs) {
		uint32_t ncap = qp->cap_macs ? qp->cap_macs * 2 : 8;
		struct qp_mac *nm = realloc(qp->macs, (size_t)ncap * sizeof(*nm));
		if (!nm)
			return NULL;
		qp->macs = nm;
		qp->cap_macs = ncap;
	}
	struct qp_mac *m = &qp->macs[qp->nmacs++];
	memset(m, 0, sizeof(*m));
	memcpy(m->mac, mac, 6);
	return m;
}

int rt_qp_pause(struct rt_qp *qp, const struct rt_record *rec, struct rt_qp_pause_note *note)
{
	memset(note, 0, sizeof(*note));
	struct qp_mac *m = mac_get(qp, rec->src_mac);
	if (!m)
		return -ENOMEM;
	uint64_t ts = rec->ts_ns;
	for (unsigned c = 0; c < RT_QP_CLASSES; c++) {
		uint16_t quanta;
		if (rec->kind == RT_KIND_PFC && c < 8 && (rec->pfc_enable & (1u << c)))
			quanta = rec->pfc_quanta[c];
		else if (rec->kind == RT_KIND_PAUSE && c == RT_QP_PAUSE_CLASS)
			quanta = rec->pause_quanta;
		else
			continue;
		/* a new frame for the class replaces the running pause: XON ends it, XOFF restarts
		 * it */
		struct rt_qp_pause_note *prev = m->note[c];
		if (prev && ts >= m->start[c] && ts - m->start[c] < prev->paused_ns[c])
			prev->paused_ns[c] = ts - m->start[c];
		note->classes |= (uint16_t)(1u << c);
		note->paused_ns[c] = ((uint64_t)quanta * qp->quantum_ps + 500) / 1000;
		m->note[c] = note;
		m->start[c] = ts;
	}
	return 0;
}

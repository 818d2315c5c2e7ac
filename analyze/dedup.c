/* Duplicate RoCE packets: the same packet seen twice (two capture points, mirrored twice, overlapping files) counts once. */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "dissect/opcodes.h"

/*
 * A packet is identified by a fingerprint of what no hop changes: IP
 * version and addresses, destination QP, PSN, opcode, UDP source port, IPv4
 * identification, payload and pad length, and the AETH and immediate data
 * where present (ACKs repeat PSNs). Link layer, TTL, DSCP and ECN are left
 * out: a router or a mark changes them.
 *
 * Where a copy was seen is its "hop": the capture interface (pcapng
 * interface, SLL2 interface index, ERSPAN session and tunnel source) and
 * what a router changes (MACs, VLANs, TTL). The same packet at another hop
 * is a copy within AN_DUP_SPAN_NS (a queue between two capture points can
 * hold a packet that long). At a hop that already saw it, it is a copy only
 * within the short window (--dup-window: overlapping files, one port
 * mirrored twice), once per hop, and not when it can be a resend: the
 * start of a go-back-N its flow owes a NAK (an RNR NAK: once its shortest
 * timer passed), or the next PSN of a resend run. Any other repeat is a new
 * packet (a resend), which itself may have copies.
 *
 * Memory: a two-way set-associative table, one cache line per set, of the
 * packets seen lately: a lookup and an insert touch one line. It holds
 * AN_DUP_MIN packets (128 KiB: the last 100 ms at low rates, many times
 * the window at 10 M packets/s) and doubles, up to AN_DUP_MAX, while packets a
 * copy of could still come keep being pushed out: younger than the window,
 * or, once a copy at another capture point showed that late copies come,
 * younger than 100 ms. Those are counted (forgotten early).
 */

#define AN_RNR_TIMER_MIN_NS 10000u /* the shortest RNR NAK timer (AETH timer code 1: 0.01 ms) */

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

static uint64_t fingerprint(const struct rt_record *rec)
{
	uint64_t h = mix(0x2545f4914f6cdd1dull, (uint64_t)rec->ip_version << 56 | (uint64_t)rec->opcode << 48 |
							(uint64_t)(rec->dest_qp & AN_PSN_MASK) << 24 |
							(rec->psn & AN_PSN_MASK));
	if (rec->ip_version == 4) {
		uint32_t a, b;
		memcpy(&a, rec->src_ip, 4);
		memcpy(&b, rec->dst_ip, 4);
		h = mix(h, (uint64_t)a << 32 | b);
	} else {
		uint64_t a[2], b[2];
		memcpy(a, rec->src_ip, 16);
		memcpy(b, rec->dst_ip, 16);
		h = mix(mix(h, a[0] ^ b[1]), a[1] ^ (b[0] << 1));
	}
	h = mix(h, (uint64_t)rec->udp_sport << 48 | (uint64_t)rec->ip_id << 32 | rec->payload_len << 2 |
		       rec->padcnt);
	if (rec->hdrs & (RT_H_AETH | RT_H_IMMDT))
		h = mix(h, (uint64_t)rec->aeth_syndrome << 56 | (uint64_t)rec->aeth_msn << 32 | rec->immediate);
	return h ? h : 1; /* 0 marks an empty entry */
}

/* Six MAC bytes as a number (built in registers: no store and reload). */
static inline uint64_t mac48(const uint8_t *m)
{
	uint32_t a;
	uint16_t b;
	memcpy(&a, m, 4);
	memcpy(&b, m + 4, 2);
	return (uint64_t)a << 16 | b;
}

static uint32_t hop_of(const struct rt_record *rec)
{
	uint64_t h = mix(0x9e3779b97f4a7c15ull, (uint64_t)rec->interface_id << 32 | rec->sll_ifindex);
	h = mix(h, mac48(rec->src_mac) << 8 | rec->ttl);
	h = mix(h, mac48(rec->dst_mac) << 16 | (uint64_t)rec->vlan[0] << 4 | rec->nvlan);
	if (rec->layers & RT_L_GRE) {
		uint64_t o[2];
		memcpy(o, rec->encap.outer_src_ip, 16);
		h = mix(h, o[0] ^ o[1] ^ rec->encap.erspan_session);
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Is entry x a packet still in the span? */
static inline bool live(const struct an_dup_entry *x, uint64_t now)
{
	return x->fp && now - x->ts <= AN_DUP_SPAN_NS;
}

/* The way of a set a new packet takes: an empty or expired one, else the older one. */
static struct an_dup_entry *victim(struct an_dups *d, struct an_dup_entry *set, uint64_t now)
{
	if (!live(&set[0], now))
		return &set[0];
	if (!live(&set[1], now))
		return &set[1];
	struct an_dup_entry *v = set[0].ts <= set[1].ts ? &set[0] : &set[1];
	if (now - v->ts <= (d->points ? AN_DUP_SPAN_NS : d->window_ns)) {
		d->evicted++;
		d->evicted_since_grow++;
	}
	return v;
}

static int dup_resize(struct an_dups *d, uint32_t nsets, uint64_t now)
{
	struct an_dup_entry *e = aligned_alloc(64, (size_t)nsets * 2 * sizeof(*e));
	if (!e)
		return -1;
	memset(e, 0, (size_t)nsets * 2 * sizeof(*e));
	struct an_dup_entry *old = d->e;
	uint32_t oldn = d->nsets;
	d->e = e;
	d->nsets = nsets;
	for (uint64_t i = 0; old && i < (uint64_t)oldn * 2; i++)
		if (live(&old[i], now))
			*victim(d, &e[(old[i].fp & (nsets - 1)) * 2], now) = old[i];
	free(old);
	d->evicted_since_grow = 0;
	return 0;
}

int an_dup_init(struct an_dups *d, uint64_t window_ns)
{
	memset(d, 0, sizeof(*d));
	d->window_ns = window_ns;
	return window_ns ? dup_resize(d, AN_DUP_MIN / 2, 0) : 0;
}

void an_dup_free(struct an_dups *d)
{
	free(d->e);
	d->e = NULL;
}

static bool is_request(uint8_t opcode)
{
	uint8_t tr = (uint8_t)rt_opcode_transport(opcode), op = opcode & 0x1f;
	return (tr == RT_TR_RC || tr == RT_TR_XRC) && !(op >= 0x0d && op <= 0x12);
}

/*
 * Can `rec`, a repeat at the same hop, be a resend? Only as the start of a
 * go-back-N (the PSN of a NAK or RNR NAK its flow is waiting to act on) or
 * the next PSN of the resend run under way; any other PSN cannot be.
 */
static bool may_be_resend(struct rt_analyzer *an, const struct rt_record *rec)
{
	if (!is_request(rec->opcode))
		return false;
	struct an_key k;
	an_key_from(&k, rec->ip_version == 4 ? 4 : 6, rec->src_ip, rec->dst_ip, rec->dest_qp);
	uint32_t fi = an_flow_get(an, &k, false);
	if (fi == AN_NONE)
		return false;
	const struct an_flow *f = &an->flows[fi];
	uint32_t p = rec->psn & AN_PSN_MASK;
	if (f->nak_pending == 2) /* an RNR NAK: the retry waits its timer, 10 us at the least */
		return p == f->nak_psn && rec->ts_ns >= f->nak_ts + AN_RNR_TIMER_MIN_NS;
	if (f->nak_pending)
		return p == f->nak_psn;
	return f->in_retrans && p == ((f->last_psn + 1) & AN_PSN_MASK);
}

bool an_dup_check(struct rt_analyzer *an, const struct rt_record *rec, struct an_dup_hit *hit)
{
	struct an_dups *d = &an->dups;
	uint64_t ts = rec->ts_ns, now = an->now, fp = fingerprint(rec);
	struct an_dup_entry *set = &d->e[(fp & (d->nsets - 1)) * 2], *in = NULL;
	__builtin_prefetch(set, 1);
	uint32_t hop = hop_of(rec);
	/* the newest packet with this fingerprint */
	for (int k = 0; k < 2; k++)
		if (set[k].fp == fp && live(&set[k], now) && (!in || set[k].ts > in->ts))
			in = &set[k];
	if (in) {
		uint64_t dt = ts > in->ts ? ts - in->ts : in->ts - ts;
		bool known = false;
		for (unsigned i = 0; i < in->nhops; i++)
			known |= in->hop[i] == hop;
		bool copy = true;
		if (!known) {
			if (in->nhops < AN_DUP_HOPS)
				in->hop[in->nhops++] = hop;
			d->other_interface++;
			d->points = true; /* two capture points: copies may come much later */
		} else if (dt <= d->window_ns && !in->same_copy && !may_be_resend(an, rec)) {
			in->same_copy = true;
			d->same_interface++;
		} else {
			copy = false; /* a new packet: it takes the place of the old one */
		}
		if (copy) {
			uint64_t cur = an->tot.packets;
			hit->frame = cur - (uint32_t)((uint32_t)cur - in->frame);
			hit->ecn = in->ecn;
			if ((rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && rec->ecn == 3)
				in->ecn = 3; /* marked between the two capture points: counted now */
			return true;
		}
	} else {
		if (d->evicted_since_grow > d->nsets / 4 && d->nsets < AN_DUP_MAX / 2 &&
		    dup_resize(d, d->nsets * 2, now) == 0)
			set = &d->e[(fp & (d->nsets - 1)) * 2];
		in = victim(d, set, now);
	}
	in->fp = fp;
	in->ts = ts;
	in->frame = (uint32_t)an->tot.packets;
	in->hop[0] = hop;
	in->nhops = 1;
	in->same_copy = false;
	in->ecn = (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) ? rec->ecn & 3 : 0;
	return false;
}

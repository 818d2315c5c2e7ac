/* Duplicate RoCE packets: the same packet seen twice (two capture points, mirrored twice, overlapping files) counts once. */
#include "analyze/dedup.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "dissect/opcodes.h"

/*
 * A packet is identified by a fingerprint of what no hop changes: IP
 * version and addresses, destination QP, PSN, opcode, UDP source port, IPv4
 * identification, payload and pad length, and the AETH and immediate data
 * where present (ACKs repeat PSNs). Link layer, TTL, DSCP and ECN are left
 * out: a router or a mark changes them.
 *
 * Where a copy was seen is its "hop" (capture point): the capture
 * interface (pcapng interface, SLL2 interface index, ERSPAN session and
 * tunnel source) and what a router changes (MACs, VLANs, TTL). Frames of a
 * packet are counted per hop (two hops are followed). A frame at a hop that
 * saw fewer frames of it than the other hop is a copy: frames reach the
 * second point in the order they passed the first, so this also pairs the
 * copies of identical packets (CNPs to one QP) in flight together. A frame
 * at a new hop is a copy; at the hop ahead, or level, a new packet, but for
 * one again at that hop within the short window (--dup-window: overlapping
 * files, one port mirrored twice, a mirror of both directions captured
 * twice by `-i any`), which is a copy, as often as it comes (with one hop
 * so far, too), unless it can be a resend: the start of a go-back-N its
 * flow owes a NAK (an RNR NAK: once its shortest timer passed), or the next
 * PSN of a resend run.
 * CNPs to one QP are all alike and an NP may send them microseconds apart:
 * one again at the same point is a copy only once packets with a PSN of
 * their own were seen copied there (the capture does double packets).
 * A packet is forgotten 100 ms after its latest frame (AN_DUP_SPAN_NS).
 *
 * Memory: per shard of host pairs (an_pair_shard(): what a shard does
 * depends on its own packets only), an eight-way set-associative table,
 * four cache lines per set (asked for together), of the packets seen
 * lately: a lookup and an insert touch one set (with two ways, a few of
 * many packets awaiting their copy from a point 2 ms behind shared a set
 * and pushed one another out: counted twice). A new packet takes the first
 * way no copy can come for any more, else the oldest. It starts at the
 * shard's first packet with room for
 * AN_DUP_MIN packets (8 KiB) and doubles, up to AN_DUP_MAX (8 MiB, so
 * that a capture of one busy host pair remembers 262,144 packets), while
 * the packets a copy of could still come (the packet rate times the
 * window; once copies came from two hops, times 100 ms) would fill more
 * than an eighth of it. Such packets pushed out all the same are counted
 * (forgotten early). The first size is small so that the tables of every
 * shard stay in a core's cache at the usual rates and window: 4096
 * packets a shard (8 MiB for 64 shards) made a lookup wait for memory,
 * 44% of analyze's time on a capture of 10,000 flows at 10 M packets/s
 * (16% at 1024 packets, 9% at 256). The size is checked every
 * AN_DUP_CHECK packets, an eighth of the first size, so that packets
 * coming faster fit until the next check (a burst of 4000 packets 1 ns
 * apart, tests/capture/check_big_inputs.py, pushed one out early when
 * checked every 64); at an eighth full, a set of
 * eight ways is seldom full of packets still wanted (a table of 512 for
 * the 100 packets of the window of tests/analyze/test_dedup.c
 * test_bursts_one_timestamp pushed 9 of its 20,000 out early).
 */

#define AN_DUP_CHECK 32u /* packets between two checks of the table's size (AN_DUP_MIN / 8) */
/* the least time a rate is told from (or the window, when shorter): packets with one timestamp
 * (a microsecond capture's burst) are no rate of one per nanosecond */
#define AN_DUP_RATE_SPAN_NS 1000000u
#define AN_RNR_TIMER_MIN_NS 10000u /* the shortest RNR NAK timer (AETH timer code 1: 0.01 ms) */

uint64_t an_dup_fingerprint(const struct rt_record *rec)
{
	uint64_t h = rt_hash_mix(0x2545f4914f6cdd1dull,
	                         (uint64_t)rec->ip_version << 56 | (uint64_t)rec->opcode << 48 |
	                             (uint64_t)(rec->dest_qp & AN_PSN_MASK) << 24 |
	                             (rec->psn & AN_PSN_MASK));
	if (rec->ip_version == 4) {
		uint32_t a, b;
		memcpy(&a, rec->src_ip, 4);
		memcpy(&b, rec->dst_ip, 4);
		h = rt_hash_mix(h, (uint64_t)a << 32 | b);
	} else {
		uint64_t a[2], b[2];
		memcpy(a, rec->src_ip, 16);
		memcpy(b, rec->dst_ip, 16);
		h = rt_hash_mix(rt_hash_mix(h, a[0] ^ b[1]), a[1] ^ (b[0] << 1));
	}
	h = rt_hash_mix(h, (uint64_t)rec->udp_sport << 48 | (uint64_t)rec->ip_id << 32 |
	                       rec->payload_len << 2 | rec->padcnt);
	if (rec->hdrs & (RT_H_AETH | RT_H_IMMDT))
		h = rt_hash_mix(h, (uint64_t)rec->aeth_syndrome << 56 |
		                       (uint64_t)rec->aeth_msn << 32 | rec->immediate);
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

static uint16_t hop_of(const struct rt_record *rec)
{
	/* the parts are spread by multiplications that run side by side, then mixed once */
	uint64_t h = ((uint64_t)rec->interface_id << 32 | rec->sll_ifindex) ^
	             (mac48(rec->src_mac) << 8 | rec->ttl) * 0xff51afd7ed558ccdull ^
	             (mac48(rec->dst_mac) << 16 | (uint64_t)rec->vlan[0] << 4 | rec->nvlan) *
	                 0xc4ceb9fe1a85ec53ull;
	if (rec->layers & RT_L_GRE) {
		uint64_t o[2];
		memcpy(o, rec->encap.outer_src_ip, 16);
		h ^= (o[0] ^ o[1] ^ rec->encap.erspan_session) * 0x9e3779b97f4a7c15ull;
	}
	h = rt_hash_mix(0x9e3779b97f4a7c15ull, h);
	h ^= h >> 32;
	return (uint16_t)(h ^ (h >> 16));
}

/* Is entry x a packet still in the span? */
static inline bool live(const struct an_dup_entry *x, uint64_t now)
{
	return x->fp && now - x->ts <= AN_DUP_SPAN_NS;
}

/*
 * Could a copy of entry x still come? (Then pushing it out loses a
 * duplicate.) One at the same point within the window; from another point
 * within AN_DUP_SPAN_NS (a third point may still bring one when two saw it).
 */
static bool still_wanted(const struct an_dups *d, const struct an_dup_shard *s,
                         const struct an_dup_entry *x, uint64_t now)
{
	return live(x, now) && (s->points || d->several || now - x->ts <= d->window_ns);
}

/* The way of a set a new packet takes: one no copy can come for any more (empty, expired, past the window at one point), else the oldest. */
static struct an_dup_entry *victim(const struct an_dups *d, const struct an_dup_shard *s,
                                   struct an_dup_entry *set, uint64_t now)
{
	struct an_dup_entry *oldest = &set[0];
	for (unsigned k = 0; k < AN_DUP_WAYS; k++) {
		if (!still_wanted(d, s, &set[k], now))
			return &set[k];
		if (set[k].ts < oldest->ts)
			oldest = &set[k];
	}
	return oldest;
}

static int dup_resize(const struct an_dups *d, struct an_dup_shard *s, uint32_t nsets, uint64_t now)
{
	struct an_dup_entry *e =
	    aligned_alloc(sizeof(*e) * AN_DUP_WAYS, (size_t)nsets * AN_DUP_WAYS * sizeof(*e));
	if (!e)
		return -1;
	memset(e, 0, (size_t)nsets * AN_DUP_WAYS * sizeof(*e));
	struct an_dup_entry *old = s->e;
	uint32_t oldn = s->nsets;
	s->e = e;
	s->nsets = nsets;
	for (uint64_t i = 0; old && i < (uint64_t)oldn * AN_DUP_WAYS; i++) {
		if (!live(&old[i], now))
			continue;
		struct an_dup_entry *v = victim(d, s, &e[an_dup_set(old[i].fp, nsets)], now);
		if (still_wanted(d, s, v, now))
			s->evicted++;
		*v = old[i];
	}
	free(old);
	return 0;
}

int an_dup_init(struct an_dups *d, uint64_t window_ns, bool several)
{
	memset(d, 0, sizeof(*d));
	d->window_ns = window_ns;
	d->several = several;
	if (window_ns && !(d->s = calloc(AN_SHARDS, sizeof(*d->s))))
		return -1;
	return 0;
}

void an_dup_free(struct an_dups *d)
{
	for (unsigned i = 0; d->s && i < AN_SHARDS; i++)
		free(d->s[i].e);
	free(d->s);
	d->s = NULL;
}

void an_dup_totals(const struct an_dups *d, struct an_dup_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; d->s && i < AN_SHARDS; i++) {
		t->other_interface += d->s[i].other_interface;
		t->same_interface += d->s[i].same_interface;
		t->evicted += d->s[i].evicted;
	}
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
static bool may_be_resend(const struct an_dup_flow *fl, const struct rt_record *rec)
{
	if (!is_request(rec->opcode))
		return false;
	struct an_flowtab *ft = fl->ft;
	uint32_t fi = an_flow_get_hashed(ft, fl->key, fl->hash, false);
	if (fi == AN_NONE)
		return false;
	const struct an_flow *f = &ft->flows[fi];
	uint32_t p = rec->psn & AN_PSN_MASK;
	if (f->nak_pending && f->x) {
		if (f->nak_pending ==
		    AN_NAK_RNR) /* an RNR NAK: the retry waits its timer, 10 us at the least */
			return p == f->x->nak_psn &&
			       rec->ts_ns >= f->x->nak_ts + AN_RNR_TIMER_MIN_NS;
		return p == f->x->nak_psn;
	}
	return (f->flags & AN_FLOW_IN_RETRANS) && p == ((f->last_psn + 1) & AN_PSN_MASK);
}

/*
 * The table's size, checked after 2, 4, 8, ... packets, then every
 * AN_DUP_CHECK, and when copies first come from two points: the packets a
 * copy of could still come (the packet rate times the window, or times 100 ms
 * once copies come from two points) should fill at most an eighth of it;
 * double it until they do, up to AN_DUP_MAX. The rate is the packets
 * since the check that began the measure over the time since, that time
 * taken as AN_DUP_RATE_SPAN_NS at least (or the window when shorter): no
 * rate is made of packets sharing a timestamp, and the measure goes on
 * over the checks until that time has passed.
 */
static void dup_size(const struct an_dups *d, struct an_dup_shard *s, uint64_t now)
{
	uint64_t horizon = s->points || d->several ? AN_DUP_SPAN_NS : d->window_ns;
	uint64_t least = horizon < AN_DUP_RATE_SPAN_NS ? horizon : AN_DUP_RATE_SPAN_NS;
	uint64_t dt = now > s->rate_ts ? now - s->rate_ts : 0;
	double since = (double)(s->inserts - s->rate_inserts);
	double wanted = since * (double)horizon / (double)(dt > least ? dt : least);
	uint32_t n = s->nsets;
	while (wanted * 8 > (double)n * AN_DUP_WAYS && n < AN_DUP_MAX / AN_DUP_WAYS)
		n *= 2;
	if (n != s->nsets)
		(void)dup_resize(d, s, n, now); /* out of memory: the table stays as it is */
	if (dt >= least) {
		s->rate_ts = now;
		s->rate_inserts = s->inserts;
	}
}

/* The live entry of fingerprint fp in its set, or NULL. */
static struct an_dup_entry *entry_of(struct an_dup_entry *set, uint64_t fp, uint64_t now)
{
	for (unsigned k = 0; k < AN_DUP_WAYS; k++)
		if (set[k].fp == fp && live(&set[k], now))
			return &set[k];
	return NULL;
}

bool an_dup_check(struct an_dups *dups, unsigned shard, const struct an_dup_flow *fl,
                  const struct rt_record *rec, uint64_t fp, uint64_t now, uint64_t frame,
                  struct an_dup_hit *hit)
{
	uint64_t ts = rec->ts_ns;
	struct an_dup_shard *d = &dups->s[shard];
	if (!d->e && dup_resize(dups, d, AN_DUP_MIN / AN_DUP_WAYS, now) < 0) {
		dups->nomem = true; /* every frame counts: the analysis fails at its end */
		return false;
	}
	struct an_dup_entry *set = &d->e[an_dup_set(fp, d->nsets)], *in;
	uint16_t hop = hop_of(rec);
	in = entry_of(set, fp, now);
	if (in) {
		/*
		 * At a point that saw fewer frames of it than the other: a copy
		 * (frames of identical packets reach the second point in their
		 * order); at the point ahead, or level: a new frame, unless it
		 * is the same point's again within the window (a copy).
		 */
		unsigned k = 0;
		while (k < in->nhops && in->hop[k] != hop)
			k++;
		bool copy, cnp = rec->opcode == RT_OPCODE_CNP;
		uint64_t dt = ts > in->ts ? ts - in->ts : in->ts - ts;
		if (k == in->nhops) {
			if (k < AN_DUP_HOPS) {
				in->hop[k] = hop;
				in->seen[k] = 1;
				in->nhops++;
			}
			copy = true; /* beyond AN_DUP_HOPS points: a copy, not followed */
			d->other_interface++;
			if (!d->points) {
				d->points = true;
				dup_size(dups, d, now);
				/* where the table put it */
				in = entry_of(&d->e[an_dup_set(fp, d->nsets)], fp, now);
			}
		} else if (in->nhops == 2 && (in->seen[k] < in->seen[1 - k] || cnp ||
		                              dt > dups->window_ns || may_be_resend(fl, rec))) {
			copy = in->seen[k] < in->seen[1 - k];
			d->other_interface += copy;
			if (in->seen[k] < UINT16_MAX)
				in->seen[k]++;
		} else {
			/*
			 * Again at the same point within the window (one point, or a point
			 * ahead of the other): a copy, as often as it comes (a mirror of
			 * both directions doubled by `-i any`), unless it can be a resend.
			 */
			copy = dt <= dups->window_ns && (!cnp || d->same_point_seen) &&
			       !may_be_resend(fl, rec);
			d->same_interface += copy;
			d->same_point_seen |= copy && !cnp;
			if (!copy && in->seen[k] < UINT16_MAX)
				in->seen[k]++;
		}
		if (in->nhops == 2) { /* only the difference matters */
			uint16_t m = in->seen[0] < in->seen[1] ? in->seen[0] : in->seen[1];
			in->seen[0] -= m;
			in->seen[1] -= m;
		}
		uint64_t before = in->ts;
		in->ts = ts;
		if (copy) {
			hit->frame = frame - (uint32_t)((uint32_t)frame - in->frame);
			hit->ts = before;
			hit->ecn = in->ecn;
			hit->point = in->point;
			if ((rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && rec->ecn == 3)
				in->ecn =
				    3; /* marked between the two capture points: counted now */
			return true;
		}
		/* a new frame of the packet (a resend, the next CNP): counted */
		in->frame = (uint32_t)frame;
		in->point = (int8_t)fl->point;
		in->ecn = (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) ? rec->ecn & 3 : 0;
		return false;
	}
	d->inserts++;
	if (d->inserts % AN_DUP_CHECK == 0 ||
	    (d->inserts < AN_DUP_CHECK && !(d->inserts & (d->inserts - 1)))) {
		dup_size(dups, d, now);
		set = &d->e[an_dup_set(fp, d->nsets)];
	}
	in = victim(dups, d, set, now);
	if (still_wanted(dups, d, in, now))
		d->evicted++;
	in->fp = fp;
	in->ts = ts;
	in->frame = (uint32_t)frame;
	in->point = (int8_t)fl->point;
	in->hop[0] = hop;
	in->seen[0] = 1;
	in->nhops = 1;
	in->ecn = (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) ? rec->ecn & 3 : 0;
	return false;
}

void an_dup_merge(struct an_dups *dst, struct an_dups *src)
{
	for (unsigned i = 0; dst->s && src->s && i < AN_SHARDS; i++) {
		struct an_dup_shard *d = &dst->s[i], *s = &src->s[i];
		if (!d->e) {
			*d = *s;
			memset(s, 0, sizeof(*s));
			continue;
		}
		d->points |= s->points;
		d->same_point_seen |= s->same_point_seen;
		d->other_interface += s->other_interface;
		d->same_interface += s->same_interface;
		d->evicted += s->evicted;
		d->inserts += s->inserts;
	}
}

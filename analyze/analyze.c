/* Analyzer core: the per-record dispatch to the parts, time and buckets, the end, the side inputs. */
#include "analyze/analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/reaction.h"
#include "dissect/opcodes.h"
#include "dissect/pktkind.h"

/*
 * A pause fills the buckets it spans with rows; rows of pause alone stay
 * within this many per frame read (plus AN_FILL_SLACK): beyond, the bucket
 * is refused (analyze/README.md, Sinks).
 */
#define AN_FILL_PER_FRAME 1000u
#define AN_FILL_SLACK     1000000u

void rt_analyzer_opts_init(struct rt_analyzer_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->link_speed_bps = 100000000000ull;
	opts->storm_ns = 10000000ull;
	opts->episode_gap_ns = 1000000ull;
	opts->rate_window_ns = 100000ull;
	opts->dup_window_ns = 10000ull;
	opts->udp_port = RT_ROCEV2_PORT;
	opts->vantage_window_ns = 10000000ull;
}

/*
 * Frames at vantage point `point` drive flow f's order-sensitive figures
 * (an_feed) when it is the flow's home: the point of its first frame so
 * asked, or the point of a packet no other point saw (not a copy) when its
 * home's capture stopped (no frame for a vantage window), unless copies of
 * its packets came from another point later than the window (the clocks
 * are further apart than it: a point's copies would read as resends).
 */
static bool follows(void *ctx, struct an_flow *f, int point)
{
	const struct rt_analyzer *an = ctx;
	if (point < 0)
		return true;
	unsigned h = f->home;
	if (!h || (h != (unsigned)point + 1 && !an->copied && !(f->flags & AN_FLOW_ONE_POINT) &&
	           an->vp.pt[h - 1].last + an->vp.window_ns < an->now)) {
		f->home = (uint8_t)(point + 1);
		if (f->x)
			f->x->home_ts = 0;
	}
	return f->home == (unsigned)point + 1;
}

struct rt_analyzer *rt_analyzer_new(const struct rt_analyzer_opts *opts, char *errbuf)
{
	struct rt_analyzer *an = calloc(1, sizeof(*an));
	if (!an) {
		rt_errorf(errbuf, ENOMEM, "analyzer");
		errno = ENOMEM;
		return NULL;
	}
	an->o = *opts;
	if (!an->o.link_speed_bps)
		an->o.link_speed_bps = 100000000000ull;
	if (!an->o.episode_gap_ns)
		an->o.episode_gap_ns = 1000000ull;
	if (an->o.rate_window_ns < 4)
		an->o.rate_window_ns = 100000ull;
	if (!an->o.storm_ns)
		an->o.storm_ns = 10000000ull;
	an->stall_min_ns = an->o.storm_ns / 2;
	if (!an->o.vantage_window_ns)
		an->o.vantage_window_ns = 10000000ull;
	an_ep_init(&an->ep, an->o.episode_gap_ns);
	an_pfc_init(&an->pfc, an->o.link_speed_bps, an->o.storm_ns, &an->ep);
	an_bk_init(&an->bk, &an->ft, &an->tot, &an->pfc);
	an_side_init(&an->side, &an->ft, &an->bk);
	an->tr =
	    (struct an_transport){.ft = &an->ft, .pair = &an->pair, .tot = &an->tot, .bk = &an->bk};
	an->ecn = (struct an_ecn){.ft = &an->ft,
	                          .pair = &an->pair,
	                          .tot = &an->tot,
	                          .bk = &an->bk,
	                          .ep = &an->ep,
	                          .pfc = &an->pfc,
	                          .rpx = &an->rpx};
	an_rp_ctx_init(&an->rpx, an->o.rate_window_ns);
	if (an_select_init(&an->sel, &an->o, errbuf) < 0) {
		rt_analyzer_free(an);
		errno = EINVAL;
		return NULL;
	}
	if (an_flows_init(&an->ft, an->o.max_flows) < 0 ||
	    an_pair_init(&an->pair, &an->ft, an_ecn_settle, &an->ecn) < 0 ||
	    an_dup_init(&an->dups, an->o.dup_window_ns, an->o.vantage && an->o.vantage_clocks) <
	        0) {
		rt_errorf(errbuf, ENOMEM, "analyzer");
		rt_analyzer_free(an);
		errno = ENOMEM;
		return NULL;
	}
	an_vp_init(&an->vp, an->o.vantage, an->o.vantage_window_ns);
	an_vp_sample(&an->vp, an->o.vantage_sample_k, an->o.vantage_sample_m);
	an_pp_init(&an->pk, &an->o);
	if (an->vp.on) { /* several points may come: each flow follows one */
		an->tr.fw = an->ecn.fw = (struct an_follow){follows, an};
	}
	return an;
}

void rt_analyzer_free(struct rt_analyzer *an)
{
	if (!an)
		return;
	for (unsigned i = 0; i < an->sinks.n; i++)
		if (an->sinks.s[i].free)
			an->sinks.s[i].free(an->sinks.s[i].ctx);
	an_flows_free(&an->ft);
	an_pair_free(&an->pair);
	an_pfc_free(&an->pfc);
	an_ep_free(&an->ep);
	an_cm_free(&an->cm);
	an_bk_free(&an->bk);
	an_side_free(&an->side);
	an_dup_free(&an->dups);
	an_vp_free(&an->vp);
	an_rp_ctx_free(&an->rpx);
	an_macs_free(&an->macs);
	an_facts_free(&an->facts);
	an_pp_free(&an->pk);
	free(an->replay_keys);
	free(an->replay_key_chunks);
	an_results_free(an->res);
	free(an);
}

/* The end, a side file, records fed since: a results view built before is built anew. */
static void results_stale(struct rt_analyzer *an)
{
	an_results_free(an->res);
	an->res = NULL;
}

/* ---- time ---- */

/* "2us", "500ms": a bucket length for people (whole units only). */
static void fmt_len(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"s", 1000000000ull}, {"ms", 1000000ull}, {"us", 1000ull}, {"ns", 1}};
	for (unsigned i = 0;; i++)
		if (ns % units[i].ns == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ns / units[i].ns),
			         units[i].unit);
			return;
		}
}

/*
 * Would the running pauses fill more buckets, up to their end, than the
 * rows allowed for the frames read? Then the buckets stop here, refused
 * with a bucket length that would do.
 */
static bool fill_refused(struct rt_analyzer *an)
{
	struct an_buckets *bk = &an->bk;
	uint64_t need = an_bk_fill_ahead(bk, UINT64_MAX, an_pfc_last_expiry(&an->pfc));
	uint64_t allowed = AN_FILL_PER_FRAME * an->tot.c.packets + AN_FILL_SLACK;
	if (bk->fill + need <= allowed)
		return false;
	/* the shortest 1-2-5 bucket that brings the rows within what is allowed */
	uint64_t want = bk->len * ((bk->fill + need + allowed - 1) / allowed), nice = want;
	for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10)
		if (p >= want || 2 * p >= want || 5 * p >= want) {
			nice = p >= want ? p : 2 * p >= want ? 2 * p : 5 * p;
			break;
		}
	char len[32], better[32];
	fmt_len(len, sizeof(len), bk->len);
	fmt_len(better, sizeof(better), nice);
	if (!an->sinks.err)
		an->sinks.err = rt_errmsg(
		    an->sinks.errbuf, E2BIG,
		    "--bucket %s is too short for the pauses of this capture: their rows would "
		    "pass the %llu allowed (%u per frame read); use --bucket %s or longer",
		    len, (unsigned long long)allowed, AN_FILL_PER_FRAME, better);
	bk->len = 0; /* no more buckets */
	return true;
}

void an_advance(struct rt_analyzer *an, uint64_t ts)
{
	struct an_buckets *bk = &an->bk;
	uint64_t b;
	if (!an_bk_passed(bk, ts, &b) || (an->pfc.active && fill_refused(an)))
		return;
	while (b > bk->cur) {
		if (an->pfc.active)
			an_pfc_advance(&an->pfc, bk->cur + bk->len);
		an_bk_close(bk, b, an->pfc.active > 0);
	}
}

void rt_analyzer_tick(struct rt_analyzer *an, uint64_t now_ns)
{
	if (now_ns <= an->now)
		return;
	an->now = now_ns;
	an_advance(an, now_ns);
	if (an->pfc.active && now_ns >= an->pfc.next_expiry)
		an_pfc_advance(&an->pfc, now_ns);
}

/* ---- per record ---- */

/* A CE-marked data packet's time: the span of the flow's marks (the NP side, allocated by the CE mark). */
static inline void ce_time(struct an_flow *f, const struct rt_record *rec)
{
	if (!f->np || rec->opcode == RT_OPCODE_CNP)
		return;
	if (!f->np->first_ce_ts)
		f->np->first_ce_ts = rec->ts_ns;
	f->np->last_ce_ts = rec->ts_ns;
}

/*
 * What the findings read of a packet before the flow counts it: its UDP
 * source port, its length, and a silence since the flow's previous packet
 * that a pause overlapped (kept when long: a stall).
 */
static inline void packet_facts(struct rt_analyzer *an, struct an_flow *f, uint32_t fi,
                                const struct rt_record *rec)
{
	uint64_t ts = rec->ts_ns;
	if (rec->opcode != RT_OPCODE_CNP) {
		if (!(f->flags & AN_FLOW_SPORT)) {
			f->udp_sport = rec->udp_sport;
			f->flags |= AN_FLOW_SPORT;
		} else if (rec->udp_sport != f->udp_sport) {
			f->flags |= AN_FLOW_SPORTS;
		}
	}
	if (rec->wirelen > f->max_len)
		f->max_len = (uint16_t)(rec->wirelen > UINT16_MAX ? UINT16_MAX : rec->wirelen);
	if (f->packets && ts > f->last_ts && ts - f->last_ts >= an->stall_min_ns &&
	    an_paused_since(an, f->last_ts))
		an_facts_stall(&an->facts, fi, f->last_ts, ts - f->last_ts);
}

/*
 * A copy of a packet already counted (an_dup_check): counted apart on its
 * flow. A CE mark the packet picked up between the two capture points is
 * counted now, in place of the codepoint it was counted with.
 */
static void follow_frame(struct rt_analyzer *an, const struct rt_record *rec, uint32_t fi,
                         int point, unsigned feed);

static void handle_copy(struct rt_analyzer *an, const struct rt_record *rec,
                        const struct rt_an_flow_key *k, uint32_t h, const struct an_dup_hit *hit,
                        int point)
{
	an->tot.copies++;
	an->tot.copy_bytes += rec->wirelen;
	uint32_t fi = an_flow_get_hashed(&an->ft, k, h, false);
	if (an->note) {
		an->note->flags |= RT_AN_NOTE_COPY;
		an->note->copy_of_frame = hit->frame;
	}
	if (fi == AN_NONE)
		return;
	struct an_flow *f = &an->ft.flows[fi];
	struct an_xport *x = an_xport(f);
	if (an->note)
		an->note->flow_id = f->id;
	if (x)
		x->duplicates++;
	if (hit->ecn != 3 && (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && (rec->ecn & 3) == 3 &&
	    f->ecn[hit->ecn]) {
		f->ecn[hit->ecn]--;
		an->tot.ecn[hit->ecn]--;
		an_ecn_ce(&an->ecn, fi, rec, an->frame, an->note);
		ce_time(f, rec);
	}
	if (point < 0 || hit->point == point)
		return;
	/* later than the window at another point: the clocks are too far apart to follow it there
	 * (not said by a CNP: identical CNPs in flight together pair up by their counts alone) */
	if (hit->point >= 0 && rec->opcode != RT_OPCODE_CNP && rec->ts_ns > hit->ts &&
	    rec->ts_ns - hit->ts > an->vp.window_ns)
		f->flags |= AN_FLOW_ONE_POINT;
	/* a packet counted at another point: where this one is the flow's home, it is followed */
	follow_frame(an, rec, fi, point, AN_FEED_FOLLOW);
}

/* The flow of a RoCE record with a BTH (created at its first packet), AN_NONE when none is kept. */
static uint32_t record_flow(struct rt_analyzer *an, const struct rt_record *rec,
                            const struct rt_an_flow_key *k, uint32_t h)
{
	uint32_t fi = an_flow_get_hashed(&an->ft, k, h, true);
	if (fi == AN_NONE) {
		if (an->ft.full) { /* beyond --max-flows: in the totals only */
			an->ft.beyond_packets++;
			an->ft.beyond_bytes += rec->wirelen;
		}
		return AN_NONE;
	}
	struct an_flow *f = &an->ft.flows[fi];
	if (f->id == AN_NONE) {
		an_flow_assign_id(&an->ft, fi, an->frame);
		an_ep_log_flow(&an->ep, f->id, k);
		if (f->id != AN_NONE)
			an_select_flow(&an->sel, f);
	}
	return fi;
}

/*
 * A flow's first and latest frame at its home point (several points are
 * matched): its duration and rate come from one clock. Until its first frame
 * since the matching began, every frame it had was at one point, its home:
 * its counted first and latest.
 */
static void home_span(const struct an_flow *f, struct an_xport *x, uint64_t ts, bool followed)
{
	if (!x->span_from) {
		x->span_from = x->span_to = f->home;
		x->span_first = f->packets ? f->first_ts : ts;
		x->span_last = f->packets ? f->last_ts : ts;
	}
	if (!followed)
		return;
	if (x->span_to != f->home || ts > x->span_last)
		x->span_last = ts;
	x->span_to = f->home;
}

/*
 * The RP windows' packet gaps, from the frames the flow follows: with one
 * point, every counted frame (its previous one is f->last_ts); with several,
 * those at its home point.
 */
static void rp_packet(struct rt_analyzer *an, struct an_flow *f, const struct rt_record *rec,
                      int point, unsigned feed)
{
	bool followed = (feed & AN_FEED_FOLLOW) && an_follows(&an->tr.fw, f, point);
	struct an_xport *x = an->vp.matching ? an_xport(f) : NULL;
	if (x)
		home_span(f, x, rec->ts_ns, followed);
	if (!followed || (an->vp.matching && !x))
		return;
	/* one point: the counted frames are the followed ones; several: its home point's */
	uint64_t prev = x ? x->home_ts : f->packets ? f->last_ts : 0;
	if (prev >
	    rec->ts_ns) { /* its own packets out of order: its windows and round trips suffer */
		struct an_tallies *fd = &an->tally;
		fd->flow_back++;
		if (prev - rec->ts_ns > fd->flow_back_max)
			fd->flow_back_max = prev - rec->ts_ns;
		fd->flows_back += !(f->flags & AN_FLOW_DISORDER);
		f->flags |= AN_FLOW_DISORDER;
	}
	an->rpx.apart |= x != NULL;
	an_rp_packet(&an->rpx, f, rec->ts_ns, rec->wirelen, point < 0 ? 0u : (unsigned)point, prev);
	if (!x)
		return;
	x->home_ts = rec->ts_ns;
	x->home_n++;
	x->home_ce += (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) && (rec->ecn & 3) == 3;
}

/*
 * What a frame of flow fi (a RoCE record with a BTH) feeds beyond its counts:
 * the RP windows, the CNP's RP reaction, the transport. feed AN_FEED_FOLLOW
 * alone: a copy at the flow's home of a packet counted at another point.
 */
static void follow_frame(struct rt_analyzer *an, const struct rt_record *rec, uint32_t fi,
                         int point, unsigned feed)
{
	struct an_flow *f = &an->ft.flows[fi];
	if (!(feed & AN_FEED_COUNT))
		rp_packet(an, f, rec, point, feed);
	if (rec->opcode == RT_OPCODE_CNP) {
		an_ecn_cnp(&an->ecn, fi, rec, an->note, point, feed);
		return;
	}
	uint8_t tr = (uint8_t)rt_opcode_transport(rec->opcode);
	uint16_t opf = rt_opcode_flags(rec->opcode);
	if (tr == RT_TR_UD) {
		if (feed & AN_FEED_COUNT)
			an_tr_ud(&an->tr, fi, rec);
	} else if (tr == RT_TR_RC || tr == RT_TR_UC || tr == RT_TR_XRC) {
		if (opf & RT_OPF_RESP)
			an_tr_response(&an->tr, fi, rec, opf, an->frame, an->note, point, feed);
		else
			an_tr_request(&an->tr, fi, rec, tr, opf, an->note, point, feed);
	}
}

/* A RoCE record at vantage point `point` (-1: none); with a BTH, its flow's key and hash k, h. */
static void handle_roce(struct rt_analyzer *an, const struct rt_record *rec, bool bth,
                        const struct rt_an_flow_key *k, uint32_t h, int point)
{
	uint64_t ts = rec->ts_ns;
	an->tot.c.roce_packets++;
	an->tot.c.roce_bytes += rec->wirelen;
	if (rec->icrc == RT_ICRC_BAD)
		an->tot.c.icrc_bad++;
	if (!bth)
		return;
	uint32_t fi = record_flow(an, rec, k, h);
	if (fi == AN_NONE)
		return;
	struct an_flow *f = &an->ft.flows[fi];
	if (an->note)
		an->note->flow_id = f->id;
	if (an->sel.kinds && (an->sel.kinds >> rt_pkt_kind(rec) & 1u))
		f->flags |= AN_FLOW_KIND;
	bool first = !f->packets;
	if (first)
		f->first_ts = ts;
	packet_facts(an, f, fi, rec);
	rp_packet(an, f, rec, point, AN_FEED_COUNT | AN_FEED_FOLLOW);
	f->last_ts = ts;
	f->packets++;
	f->bytes += rec->wirelen;
	if (first)
		an_pair_first_packet(&an->pair, fi);
	an_bk_mark(&an->bk, f, fi);
	f->dscp = rec->dscp;
	if (rec->nvlan) {
		f->pcp = rec->pcp[rec->nvlan - 1];
		f->flags |= AN_FLOW_TAGGED;
	}
	if (rec->layers & (RT_L_IPV4 | RT_L_IPV6)) {
		unsigned ecn = rec->ecn & 3u;
		if (ecn == 3) {
			an_ecn_ce(&an->ecn, fi, rec, an->frame, an->note);
			ce_time(f, rec);
		} else {
			f->ecn[ecn]++;
			an->tot.ecn[ecn]++;
		}
	}
	if (rec->opcode == RT_OPCODE_CNP)
		an_facts_cnp(&an->facts, fi, rec->dscp, rec->nvlan > 0,
		             rec->nvlan ? rec->pcp[rec->nvlan - 1] : 0);
	uint8_t tr = (uint8_t)rt_opcode_transport(rec->opcode);
	if (f->transport == AN_TRANSPORT_NONE && tr != RT_TR_CNP)
		f->transport = tr;
	follow_frame(an, rec, fi, point, AN_FEED_COUNT | AN_FEED_FOLLOW);
}

/* The MACs of a RoCE frame (with the IPs behind them) or of a PFC/PAUSE frame's sender, at `point`. */
static inline void macs_frame(struct rt_analyzer *an, const struct rt_record *rec, int point)
{
	if ((rec->kind == RT_KIND_ROCE || rec->kind == RT_KIND_CNP) &&
	    (rec->layers & (RT_L_IPV4 | RT_L_IPV6))) {
		uint8_t v = rec->ip_version == 4 ? 4 : 6;
		an_macs_see(&an->macs, 0, rec->src_mac, point, v, rec->src_ip, an->frame, an->part);
		an_macs_see(&an->macs, 1, rec->dst_mac, point, v, rec->dst_ip, an->frame, an->part);
	} else if (rec->kind == RT_KIND_PFC || rec->kind == RT_KIND_PAUSE) {
		an_macs_see(&an->macs, 0, rec->src_mac, point, 0, NULL, an->frame, an->part);
	}
}

void rt_analyzer_feed(struct rt_analyzer *an, const struct rt_record *rec)
{
	rt_analyzer_feed_frame(an, rec, an->tot.c.packets + 1);
}

void rt_analyzer_feed_frame(struct rt_analyzer *an, const struct rt_record *rec, uint64_t frame)
{
	uint64_t ts = rec->ts_ns, fp = 0;
	an->frame = frame;
	bool first = !an->tot.c.packets;
	/*
	 * A RoCE packet's flow and duplicate set are in memory no cache holds
	 * when flows are many: their loads are asked for now and overlap what
	 * comes before they are read.
	 */
	bool roce = (rec->kind == RT_KIND_ROCE || rec->kind == RT_KIND_CNP),
	     bth = roce && rt_record_has_bth(rec);
	struct rt_an_flow_key k;
	uint32_t h = 0;
	unsigned shard = 0;
	if (bth) {
		an_key_of(&k, rec);
		h = an_flow_hash(&k);
		an_flow_prefetch_slot(&an->ft, h);
		if (an->dups.s || an->vp.on || an->pk.on)
			fp = an_dup_fingerprint(rec);
		if (an->dups.s) {
			shard = an_pair_shard(rec);
			an_dup_prefetch(&an->dups, shard, fp);
		}
	}
	if (first || ts < an->first_ts)
		an->first_ts = ts;
	if (ts > an->last_ts)
		an->last_ts = ts;
	if (ts > an->now)
		an->now = ts;
	an_frame_clock(an, ts, rec->wirelen);
	if (an_paused(an)) /* a pause runs: the RP windows around now are not measured */
		an->rpx.paused_ts = an->now;
	int point = an->vp.on && rec->point < AN_VP_POINTS ? (int)rec->point : -1;
	if (!an->part) {
		an_tally_frame(&an->tally, rec, first, point);
		an->pair.disordered |= an->tally.ts_back + an->tally.ts_back_across != 0;
	} else if (an_tally_counts(&an->tally, rec)) { /* the stage keeps the order */
		an_ep_log_port(&an->ep, rec->udp_dport, rec->other_port_rocev2);
	}
	if (bth)
		an_flow_prefetch(&an->ft, h);
	struct an_dup_hit hit;
	bool copy = bth && an->dups.s &&
	            an_dup_check(&an->dups, shard, &(struct an_dup_flow){&an->ft, &k, h, point},
	                         rec, fp, an->now, an->frame, &hit);
	if (an->vp.on)
		an_vp_frame(&an->vp, rec, bth ? fp : 0, copy, an->now);
	macs_frame(an, rec, point);
	an->copied = copy;
	if (copy) {
		if (an->pk.on) /* a copy that makes its packet CE: a partial keeps it */
			an_pp_frame(an, rec, &k, h, fp, true, hit.ecn);
		handle_copy(an, rec, &k, h, &hit,
		            point); /* counted once: the frame counts, the packet does not */
		return;
	}
	if (!an->part)
		an_ep_packet(&an->ep, an->now, rec->wirelen, an->pfc.active > 0);
	if (rec->events & RT_EV_TRUNCATION_MASK & ~RT_EV_ICRC_TRUNCATED) /* a header cut */
		an->tot.truncated++;
	switch (rec->kind) {
	case RT_KIND_ROCE:
	case RT_KIND_CNP:
		handle_roce(an, rec, bth, &k, h, point);
		if (an->pk.on && bth) /* a partial's packets: CE-marked, sampled */
			an_pp_frame(an, rec, &k, h, fp, false, 0);
		if (rec->layers & RT_L_CM)
			an_cm_mad(&an->cm, &an->pair, rec);
		break;
	case RT_KIND_PFC:
	case RT_KIND_PAUSE:
		if (!an->part) /* a part's stage handles them in their order */
			an_pfc_frame(&an->pfc, rec, an->now, point, an->note);
		if (an_paused(an))
			an->rpx.paused_ts = an->now;
		break;
	case RT_KIND_MALFORMED:
		an->tot.malformed++;
		break;
	default:
		an->tot.other++;
		break;
	}
}

void rt_analyzer_feed_note(struct rt_analyzer *an, const struct rt_record *rec,
                           struct rt_an_note *note)
{
	memset(note, 0, sizeof(*note));
	note->frame = an->tot.c.packets + 1;
	note->flow_id = RT_AN_NONE;
	note->peer_flow_id = RT_AN_NONE;
	an->note = note;
	rt_analyzer_feed(an, rec);
	an->note = NULL;
}

/* ---- the end ---- */

void rt_analyzer_interrupt(struct rt_analyzer *an)
{
	an->stop = 1;
}

/* The last buckets: the current one, then those a pause still running fills. False when stopped. */
static bool finish_buckets(struct rt_analyzer *an)
{
	struct an_buckets *bk = &an->bk;
	if (!bk->len || bk->cur == UINT64_MAX)
		return true;
	if (an->pfc.active && fill_refused(an))
		return true;
	for (;;) {
		if (an->stop)
			return false;
		uint64_t end = bk->cur + bk->len;
		if (an->pfc.active)
			an_pfc_advance(&an->pfc, end);
		bool paused = an->pfc.active > 0;
		an_bk_close(bk, end, paused);
		if (!paused)
			return true;
	}
}

int rt_analyzer_finish(struct rt_analyzer *an, char *errbuf)
{
	results_stale(an);
	bool whole = finish_buckets(an);
	an_pfc_advance(&an->pfc, UINT64_MAX);
	an_ep_finish(&an->ep);
	an_vp_finish(&an->vp);
	whole = an_pair_finish(&an->pair, &an->stop) && whole;
	an_select_finish(&an->sel, &an->ft);
	for (uint32_t fi = 0; fi < an->ft.n; fi++) {
		struct an_flow *f = &an->ft.flows[fi];
		if (f->rp)
			an_rp_finish(&an->rpx, f);
		if (f->np)
			an_np_finish(f->np);
	}
	for (unsigned i = 0; i < an->sinks.n; i++) {
		const struct rt_an_sink *s = &an->sinks.s[i];
		char eb[RT_ERRBUF_SIZE] = "";
		int rc;
		if (s->end && !an->sinks.failed[i] && (rc = s->end(s->ctx, an, eb)) < 0)
			an_sink_failed(an, i, rc, eb);
	}
	if (an->sinks.err)
		return rt_analyzer_status(an, errbuf);
	if (an->dups.nomem)
		return rt_errmsg(
		    errbuf, ENOMEM,
		    "out of memory for the duplicates' tables: copies would count as packets");
	return whole ? 0 : rt_errmsg(errbuf, EINTR, "interrupted at the end of the capture");
}

/* ---- side inputs ---- */

void rt_analyzer_input_error(struct rt_analyzer *an, const char *message)
{
	snprintf(an->input_error, sizeof(an->input_error), "%s", message ? message : "");
}

void rt_analyzer_capture_drops(struct rt_analyzer *an, uint64_t if_dropped, uint64_t os_dropped)
{
	an->tally.drops_known = true;
	an->tally.if_dropped = if_dropped;
	an->tally.os_dropped = os_dropped;
}

int rt_analyzer_load_counters(struct rt_analyzer *an, const char *path, char *errbuf)
{
	results_stale(an);
	an->side.before_capture = !an->tot.c.packets;
	return an_side_load_counters(&an->side, path, errbuf);
}

int rt_analyzer_load_source_log(struct rt_analyzer *an, const char *path, char *errbuf)
{
	results_stale(an);
	an->side.before_capture = !an->tot.c.packets;
	return an_side_load_source_log(&an->side, path, errbuf);
}

void rt_analyzer_one_point(struct rt_analyzer *an)
{
	an->vp.alone = true;
}

int rt_analyzer_vantage_points(struct rt_analyzer *an, const struct rt_an_vantage *vp, unsigned n,
                               char *errbuf)
{
	return an_vp_describe(&an->vp, vp, n) < 0 ? rt_errorf(errbuf, ENOMEM, "vantage points") : 0;
}

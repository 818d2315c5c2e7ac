/* What the Wireshark plugin keeps with each frame: the analyzer's note from the first pass, and the links later frames complete. */
#include "plugins/rocetrace_notes.h"

#include <string.h>

#include <epan/proto_data.h>
#include <epan/wmem_scopes.h>

#include "dissect/opcodes.h"

/*
 * Per-file state, rebuilt for every file (and every re-dissection): the
 * analyzer, fed every frame once in the first pass so that its frame numbers
 * are Wireshark's; the frames a later frame may complete (CE-marked frames
 * get their CNP, PFC/PAUSE frames their pause cut short); and, per flow, the
 * frame that last carried each request PSN, which a retransmission names.
 */
static struct rt_analyzer *file_an;
static uint32_t file_fed;       /* frames fed to file_an */
static wmem_map_t *file_linked; /* frame number -> its roce_note or pause_note */
static wmem_tree_t *file_sent;  /* (flow id, PSN) -> struct sent */

/* A request PSN as it was last sent. */
struct sent {
	uint32_t frame;
	uint64_t ts_ns;
};

void rt_notes_register(void)
{
	file_linked = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
	                                     g_direct_equal);
	file_sent = wmem_tree_new_autoreset(wmem_epan_scope(), wmem_file_scope());
}

void rt_notes_start(uint64_t link_bps)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = link_bps;
	rt_analyzer_free(file_an);
	file_an = rt_analyzer_new(&o, errbuf); /* NULL (out of memory): frames get no analysis */
	file_fed = 0;
}

void rt_notes_stop(void)
{
	rt_analyzer_free(file_an);
	file_an = NULL;
	file_fed = 0;
}

/* An RC, UC or XRC request: what the analyzer tracks PSNs of. */
static bool is_request(uint8_t opcode)
{
	enum rt_transport tr = rt_opcode_transport(opcode);
	return (tr == RT_TR_RC || tr == RT_TR_UC || tr == RT_TR_XRC) &&
	       !(rt_opcode_flags(opcode) & RT_OPF_RESP);
}

/* The request PSN this frame sends: a retransmission names the frame that sent it before. */
static void index_psn(struct roce_note *n, const struct rt_record *rec, uint32_t frame)
{
	uint32_t flow = n->flow_id, psn = rec->psn;
	wmem_tree_key_t key[] = {{1, &flow}, {1, &psn}, {0, NULL}};
	struct sent *s = wmem_tree_lookup32_array(file_sent, key);
	if (s && (n->flags & RT_AN_NOTE_RETRANS)) {
		n->resend_of = s->frame;
		n->resend_after_ns = rec->ts_ns >= s->ts_ns ? rec->ts_ns - s->ts_ns : 0;
	}
	if (!s) {
		s = wmem_new(wmem_file_scope(), struct sent);
		wmem_tree_insert32_array(file_sent, key, s);
	}
	s->frame = frame;
	s->ts_ns = rec->ts_ns;
}

/* Keep a RoCE frame's note; a CNP's note completes the CE-marked frame it answers. */
static void keep_roce_note(int proto, packet_info *pinfo, const struct rt_record *rec,
                           const struct rt_an_note *an)
{
	struct roce_note *n = wmem_new0(wmem_file_scope(), struct roce_note);
	n->flow_id = an->flow_id;
	n->peer_flow_id = an->peer_flow_id;
	n->psn_gap = an->psn_gap;
	n->nak_frame = (uint32_t)an->nak_frame;
	n->cnp_for_frame = (uint32_t)an->cnp_for_frame;
	n->cnp_delay_ns = an->cnp_delay_ns;
	n->copy_of = (uint32_t)an->copy_of_frame;
	n->rtt_ns = an->rtt_ns;
	n->rtt_frame = (uint32_t)an->rtt_frame;
	n->resend_wait_ns = an->resend_wait_ns;
	n->flags = an->flags;
	n->nak_code = an->nak_code;
	if (!(n->flags & RT_AN_NOTE_COPY) && is_request(rec->opcode))
		index_psn(n, rec, pinfo->num);
	p_add_proto_data(wmem_file_scope(), pinfo, proto, 0, n);
	if (n->flags & RT_AN_NOTE_CE)
		wmem_map_insert(file_linked, GUINT_TO_POINTER(pinfo->num), n);
	if (n->cnp_for_frame) {
		struct roce_note *ce =
		    wmem_map_lookup(file_linked, GUINT_TO_POINTER(n->cnp_for_frame));
		if (ce)
			ce->cnp_frame = pinfo->num;
	}
}

/* Keep a PFC/PAUSE frame's note; it cuts short the pauses of the sender's earlier frames. */
static void keep_pause_note(int proto, packet_info *pinfo, const struct rt_an_note *an)
{
	struct pause_note *pn = wmem_new0(wmem_file_scope(), struct pause_note);
	pn->classes = an->pause_classes;
	memcpy(pn->paused_ns, an->paused_ns, sizeof(pn->paused_ns));
	p_add_proto_data(wmem_file_scope(), pinfo, proto, 1, pn);
	wmem_map_insert(file_linked, GUINT_TO_POINTER(pinfo->num), pn);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		if (!(an->pause_cut & (1u << c)))
			continue;
		struct pause_note *prev =
		    wmem_map_lookup(file_linked, GUINT_TO_POINTER((guint)an->pause_cut_frame[c]));
		if (prev)
			prev->paused_ns[c] = an->pause_cut_ns[c];
	}
}

void rt_notes_first_pass(int proto, packet_info *pinfo, const struct rt_record *rec)
{
	if (!file_an || pinfo->num <= file_fed)
		return;
	while (file_fed + 1 < pinfo->num) {
		struct rt_record skipped;
		memset(&skipped, 0, sizeof(skipped));
		skipped.kind = RT_KIND_OTHER;
		rt_analyzer_feed(file_an, &skipped);
		file_fed++;
	}
	struct rt_an_note note;
	rt_analyzer_feed_note(file_an, rec, &note);
	file_fed++;
	if (note.flow_id != RT_AN_NONE)
		keep_roce_note(proto, pinfo, rec, &note);
	else if (note.pause_classes)
		keep_pause_note(proto, pinfo, &note);
}

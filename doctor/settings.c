/* A target's settings that must agree across a cluster: taken from its facts, written into its
 * JSON report for doctor --hosts to compare. */
#include "common/json.h"
#include "common/outbuf.h"
#include "doctor/facts.h"
#include "doctor/settings.h"

void rt_doc_settings_of(const struct rt_doc_facts *f, struct rt_doc_settings *s)
{
	const struct rt_doc_qos *q = &f->qos;
	bool here = f->netdev[0] && f->netdev_exists;
	s->mtu = here && f->mtu.known ? f->mtu.v : -1;
	s->trust = !q->trust_known             ? NULL
	           : q->trust == RT_TRUST_DSCP ? "dscp"
	           : q->trust == RT_TRUST_PCP  ? "pcp"
	                                       : NULL;
	s->pfc = q->pfc_known ? q->pfc_en : -1;
	s->dscp2prio_known = q->map_known;
	for (int d = 0; d < 64; d++)
		s->dscp2prio[d] = q->map_known ? q->dscp2prio[d] : -1;
	s->cnp_dscp = here && f->cnp_dscp.known ? (int)f->cnp_dscp.v : -1;
	s->cnp_prio = here && f->cnp_prio.known ? (int)f->cnp_prio.v : -1;
	for (int p = 0; p < 8; p++) {
		s->ecn_np[p] = here && f->ecn_np[p].known ? f->ecn_np[p].v != 0 : -1;
		s->ecn_rp[p] = here && f->ecn_rp[p].known ? f->ecn_rp[p].v != 0 : -1;
	}
}

static void int_or_null(struct rt_json *j, int64_t v)
{
	if (v >= 0)
		rt_json_i64(j, v);
	else
		rt_json_null(j);
}

/* [true, false, null, ...]: per priority */
static void switches(struct rt_json *j, const int8_t on[8])
{
	rt_json_arr(j);
	for (int p = 0; p < 8; p++) {
		rt_json_next(j);
		if (on[p] < 0)
			rt_json_null(j);
		else
			rt_json_bool(j, on[p] != 0);
	}
	rt_json_arr_end(j);
}

void rt_doc_settings_json(struct rt_json *j, const struct rt_doc_settings *s)
{
	rt_json_obj(j);
	RT_JSON_KEY(j, "mtu");
	int_or_null(j, s->mtu);
	RT_JSON_KEY(j, "trust");
	rt_json_str_or_null(j, s->trust);
	RT_JSON_KEY(j, "pfc");
	if (s->pfc < 0) {
		rt_json_null(j);
	} else {
		rt_json_arr(j);
		for (int p = 0; p < 8; p++)
			if (s->pfc & (1 << p)) {
				rt_json_next(j);
				rt_json_u64(j, (uint64_t)p);
			}
		rt_json_arr_end(j);
	}
	RT_JSON_KEY(j, "dscp2prio");
	if (!s->dscp2prio_known) {
		rt_json_null(j);
	} else {
		rt_json_arr(j);
		for (int d = 0; d < 64; d++) {
			rt_json_next(j);
			int_or_null(j, s->dscp2prio[d]);
		}
		rt_json_arr_end(j);
	}
	RT_JSON_KEY(j, "cnp_dscp");
	int_or_null(j, s->cnp_dscp);
	RT_JSON_KEY(j, "cnp_prio");
	int_or_null(j, s->cnp_prio);
	RT_JSON_KEY(j, "ecn_np");
	switches(j, s->ecn_np);
	RT_JSON_KEY(j, "ecn_rp");
	switches(j, s->ecn_rp);
	rt_json_obj_end(j);
}

/* A target's settings that must agree across a cluster (struct rt_doc_settings): from its facts,
 * into its JSON report. */
#ifndef RT_DOCTOR_SETTINGS_H
#define RT_DOCTOR_SETTINGS_H

#include "doctor/doctor.h"

struct rt_doc_facts;
struct rt_json;

/* The settings in the facts (what is unknown marked so). Pure: reads nothing else. */
void rt_doc_settings_of(const struct rt_doc_facts *f, struct rt_doc_settings *s);

/*
 * The settings as one JSON object: {"mtu":N,"trust":"dscp"|"pcp","pfc":[P...],
 * "dscp2prio":[64 × P|null],"cnp_dscp":D,"cnp_prio":P,"ecn_np":[8 × bool|null],
 * "ecn_rp":[...]}; each null when unknown.
 */
void rt_doc_settings_json(struct rt_json *j, const struct rt_doc_settings *s);

#endif

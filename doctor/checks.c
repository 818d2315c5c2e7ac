/* doctor's checks: facts in, verdicts and settings out. Reads nothing itself: runs each area in
 * order. */
#include <stdio.h>
#include <string.h>

#include "doctor/internal.h"
#include "doctor/settings.h"

void rt_doc_judge(const struct rt_doc_facts *f, const struct rt_doctor_config *cfg,
                  struct rt_doc_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dev, sizeof(t->dev), "%s", f->rdma ? f->dev : "");
	t->port = f->rdma ? f->port : 0;
	snprintf(t->netdev, sizeof(t->netdev), "%s", f->netdev);
	t->gid_index = -1;
	rt_doc_judge_port(f, cfg, t);
	rt_doc_judge_qos(f, cfg, t);
	rt_doc_judge_counters(f, cfg, t);
	rt_doc_settings_of(f, &t->settings);
}

/* DCQCN reaction point: rate cut on CNP, alpha update and decay, timer and byte-counter recovery. */
#include "traffic/dcqcn.h"

#include <string.h>

void rt_dcqcn_params_default(struct rt_dcqcn_params *p, double line_mbps)
{
	memset(p, 0, sizeof(*p));
	p->g = 1.0 / 256.0;
	p->alpha_period_ns = 55000;
	p->timer_ns = 55000;
	p->byte_counter = 10u * 1000 * 1000;
	p->f = 5;
	p->rai_mbps = 40.0;
	p->rhai_mbps = 100.0;
	p->line_mbps = line_mbps;
	p->min_mbps = 10.0;
}

void rt_dcqcn_init(struct rt_dcqcn *s, const struct rt_dcqcn_params *p, uint64_t now_ns)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->rc = s->rt = p->line_mbps;
	s->alpha = 1.0;
	s->alpha_due_ns = now_ns + p->alpha_period_ns;
	s->timer_due_ns = now_ns + p->timer_ns;
}

void rt_dcqcn_on_cnp(struct rt_dcqcn *s, uint64_t now_ns)
{
	s->rt = s->rc;
	s->rc = s->rc * (1.0 - s->alpha / 2.0);
	if (s->rc < s->p.min_mbps)
		s->rc = s->p.min_mbps;
	s->alpha = (1.0 - s->p.g) * s->alpha + s->p.g;
	s->t_stage = s->bc_stage = 0;
	s->bytes = 0;
	s->alpha_due_ns = now_ns + s->p.alpha_period_ns;
	s->timer_due_ns = now_ns + s->p.timer_ns;
	s->cuts++;
}

/*
 * One increase event after a stage counter moved. Fast recovery while both
 * counters are at most F; hyper increase (by i * R_HAI, i = min - F) once both
 * exceed F; additive increase in between. The current rate then moves half way
 * to the target.
 */
static void increase(struct rt_dcqcn *s)
{
	unsigned hi = s->t_stage > s->bc_stage ? s->t_stage : s->bc_stage;
	unsigned lo = s->t_stage < s->bc_stage ? s->t_stage : s->bc_stage;
	if (hi > s->p.f) {
		if (lo > s->p.f)
			s->rt += (double)(lo - s->p.f) * s->p.rhai_mbps;
		else
			s->rt += s->p.rai_mbps;
		if (s->rt > s->p.line_mbps)
			s->rt = s->p.line_mbps;
	}
	s->rc = (s->rt + s->rc) / 2.0;
	if (s->rc > s->p.line_mbps)
		s->rc = s->p.line_mbps;
}

unsigned rt_dcqcn_on_time(struct rt_dcqcn *s, uint64_t now_ns)
{
	while (s->alpha_due_ns <= now_ns) {
		s->alpha *= 1.0 - s->p.g;
		s->alpha_due_ns += s->p.alpha_period_ns;
	}
	unsigned events = 0;
	while (s->timer_due_ns <= now_ns) {
		s->timer_due_ns += s->p.timer_ns;
		if (s->rc >= s->p.line_mbps)
			continue;
		s->t_stage++;
		increase(s);
		events++;
	}
	return events;
}

unsigned rt_dcqcn_on_bytes(struct rt_dcqcn *s, uint64_t n)
{
	unsigned events = 0;
	s->bytes += n;
	while (s->p.byte_counter && s->bytes >= s->p.byte_counter) {
		s->bytes -= s->p.byte_counter;
		if (s->rc >= s->p.line_mbps)
			continue;
		s->bc_stage++;
		increase(s);
		events++;
	}
	return events;
}

uint64_t rt_dcqcn_next_due(const struct rt_dcqcn *s)
{
	return s->alpha_due_ns < s->timer_due_ns ? s->alpha_due_ns : s->timer_due_ns;
}

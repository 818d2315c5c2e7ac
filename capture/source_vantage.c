/* The file source's vantage points: files grouped by where they were captured, the capture points within them, their statistics. */
#include "capture/source_files.h"
#include "common/satmath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- vantage points ---- */

struct vpoint *rt_files_vp_add(struct files_priv *p, const char *name, bool named, int group)
{
	if (p->nvp == p->capvp) {
		unsigned ncap = p->capvp ? p->capvp * 2 : 4;
		struct vpoint *nv = realloc(p->vp, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		p->vp = nv;
		p->capvp = ncap;
	}
	struct vpoint *v = &p->vp[p->nvp];
	memset(v, 0, sizeof(*v));
	if (!(v->name = strdup(name)))
		return NULL;
	v->named = named;
	v->group = group;
	p->nvp++;
	unsigned n = atomic_load_explicit(&p->ncp, memory_order_relaxed);
	if (named && n < MAX_POINTS) { /* its first capture point, bound at its first frame */
		memset(&p->cp[n], 0, sizeof(p->cp[n]));
		p->cp[n].vp = (int)p->nvp - 1;
		p->cp[n].vp_name = v->name;
		p->cp[n].vp_named = true;
		snprintf(p->cp[n].name, sizeof(p->cp[n].name), "%s", name);
		atomic_store_explicit(&p->ncp, n + 1, memory_order_release);
	}
	return v;
}

static bool name_taken(const struct files_priv *p, const char *name)
{
	for (unsigned i = 0; i < p->nvp; i++)
		if (strcmp(p->vp[i].name, name) == 0)
			return true;
	return false;
}

/* A new point named after file f: its short name, else its path, else the path and a number. */
static struct vpoint *vp_for_file(struct files_priv *p, const struct in_file *f)
{
	char name[4200];
	rt_fileset_point_name(f->path, name, sizeof(name));
	if (name_taken(p, name))
		snprintf(name, sizeof(name), "%s", f->path);
	for (unsigned k = 2; name_taken(p, name); k++)
		snprintf(name, sizeof(name), "%s#%u", f->path, k);
	return rt_files_vp_add(p, name, false, f->group);
}

/* files.h has the rule */
int rt_files_assign_vantage(struct files_priv *p, unsigned fi, char *errbuf)
{
	struct in_file *f = &p->f[fi];
	int best = -1;
	if (f->vantage) {
		for (unsigned i = 0; i < p->nvp && best < 0; i++)
			if (p->vp[i].named && strcmp(p->vp[i].name, f->vantage) == 0)
				best = (int)i;
	} else {
		bool best_pred = false;
		for (unsigned i = 0; i < p->nvp; i++) {
			const struct vpoint *v = &p->vp[i];
			if (v->named || v->group != f->group || v->reading)
				continue;
			bool pred = f->pred >= 0 && p->f[f->pred].vp == (int)i;
			if (best < 0 || (pred && !best_pred) ||
			    (pred == best_pred && v->end_ns > p->vp[best].end_ns)) {
				best = (int)i;
				best_pred = pred;
			}
		}
	}
	if (best < 0) {
		if (!vp_for_file(p, f))
			return rt_errorf(errbuf, ENOMEM, "%s", f->shown);
		best = (int)p->nvp - 1;
	}
	struct vpoint *v = &p->vp[best];
	if (v->nfiles == v->cap) {
		unsigned ncap = v->cap ? v->cap * 2 : 4;
		unsigned *nf = realloc(v->files, ncap * sizeof(*nf));
		if (!nf)
			return rt_errorf(errbuf, ENOMEM, "%s", f->shown);
		v->files = nf;
		v->cap = ncap;
	}
	v->files[v->nfiles++] = fi;
	v->reading++;
	p->reading++;
	f->vp = best;
	return 0;
}

int rt_files_new_global_id(struct files_priv *p, int v, uint32_t local, uint32_t *out)
{
	struct vpoint *vp = &p->vp[v];
	if (local >= vp->nmap) {
		uint32_t *nm = realloc(vp->map, ((size_t)local + 1) * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		for (uint32_t i = vp->nmap; i <= local; i++)
			nm[i] = NO_ID;
		vp->map = nm;
		vp->nmap = local + 1;
	}
	/* the first point keeps its numbers (a single file's frames stay as they are) */
	uint32_t g = v == 0 && (local >= p->nowner || p->owner[local] < 0) ? local : p->nowner;
	if (g >= p->nowner) {
		int *no = realloc(p->owner, ((size_t)g + 1) * sizeof(*no));
		if (!no)
			return -ENOMEM;
		for (uint32_t i = p->nowner; i <= g; i++)
			no[i] = -1;
		p->owner = no;
		p->nowner = g + 1;
	}
	p->owner[g] = v;
	vp->map[local] = g;
	*out = g;
	return 0;
}

/* ---- statistics ---- */

/* The drops file f recorded for interface `local`, live while it is read. */
static void drops_of(const struct in_file *f, uint32_t local, struct rt_pcapfile_iface_drops *d)
{
	memset(d, 0, sizeof(*d));
	if (f->pf)
		rt_pcapfile_iface_drops(f->pf, local, d);
	else if (local < f->ndrops)
		*d = f->drops[local];
}

int rt_files_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	(void)errbuf;
	struct files_priv *p = src->priv;
	st->received = p->received;
	for (unsigned v = 0; v < p->nvp; v++) {
		const struct vpoint *vp = &p->vp[v];
		uint32_t nif = 0;
		for (unsigned k = 0; k < vp->nfiles; k++) {
			const struct in_file *f = &p->f[vp->files[k]];
			uint32_t n = f->pf ? rt_pcapfile_interfaces(f->pf) : f->ndrops;
			if (n > nif)
				nif = n;
		}
		for (uint32_t i = 0; i < nif; i++) {
			/* one capture's files share isb_starttime and count from it: the last one holds all */
			struct rt_pcapfile_iface_drops cur = {0}, d;
			for (unsigned k = 0; k < vp->nfiles; k++) {
				drops_of(&p->f[vp->files[k]], i, &d);
				if (!d.known)
					continue;
				if (cur.known && d.start != cur.start) {
					st->if_dropped =
					    rt_sat_add_u64(st->if_dropped, cur.if_dropped);
					st->dropped = rt_sat_add_u64(st->dropped, cur.os_dropped);
				}
				cur = d;
			}
			if (cur.known) {
				st->if_dropped = rt_sat_add_u64(st->if_dropped, cur.if_dropped);
				st->dropped = rt_sat_add_u64(st->dropped, cur.os_dropped);
				st->drops_known = true;
			}
		}
	}
	return 0;
}

/* ---- what the stream is made of ---- */

static const struct files_priv *priv_of(const struct rt_source *src)
{
	return src && src->ops == &rt_source_file_ops ? src->priv : NULL;
}

unsigned rt_source_file_count(const struct rt_source *src)
{
	const struct files_priv *p = priv_of(src);
	return p ? (unsigned)p->n : 0;
}

int rt_source_file_info(const struct rt_source *src, unsigned i, struct rt_source_file_info *out)
{
	const struct files_priv *p = priv_of(src);
	if (!p || i >= p->n)
		return -ENOENT;
	const struct in_file *f = &p->f[i];
	*out = (struct rt_source_file_info){
	    .path = f->path,
	    .vantage = f->vp,
	    .linktype = f->linktype,
	    .snaplen = f->snaplen,
	    .gzip = f->gzip,
	    .done = f->state == F_DONE,
	    .frames = f->frames,
	    .first_ns = f->empty ? 0 : f->first_ns,
	    .last_ns = f->last_ns,
	};
	return 0;
}

unsigned rt_source_vantage_count(const struct rt_source *src)
{
	const struct files_priv *p = priv_of(src);
	return p ? p->nvp : 0;
}

int rt_source_vantage_point(const struct rt_source *src, unsigned i, struct rt_vantage_point *out)
{
	const struct files_priv *p = priv_of(src);
	if (!p || i >= p->nvp)
		return -ENOENT;
	const struct vpoint *v = &p->vp[i];
	uint64_t frames = 0;
	for (unsigned k = 0; k < v->nfiles; k++)
		frames += p->f[v->files[k]].frames;
	*out = (struct rt_vantage_point){
	    .name = v->name,
	    .vantage = i,
	    .named = v->named,
	    .nfiles = v->nfiles,
	    .files = v->files,
	    .frames = frames,
	};
	return 0;
}

/* ---- capture points: the places the analysis tells apart ---- */

static int find_point(const struct files_priv *p, unsigned n, uint32_t id, uint32_t ifindex)
{
	for (unsigned i = 0; i < n; i++)
		if (atomic_load_explicit(&p->cp[i].bound, memory_order_acquire) &&
		    p->cp[i].id == id && p->cp[i].ifindex == ifindex)
			return (int)i;
	return -1;
}

/*
 * Capture point c's name among the first n (files.h has the rule), from
 * what does not change once a point is counted: safe on any thread.
 */
static void name_point(const struct files_priv *p, unsigned n, const struct cpoint *c, char *name,
                       size_t size)
{
	bool ifaces = false, indexes = false, name_shared = false, alone = !c->vp_named;
	bool bound = atomic_load_explicit(&c->bound, memory_order_acquire);
	for (unsigned i = 0; i < n && bound; i++) {
		const struct cpoint *o = &p->cp[i];
		alone &= o->vp == c->vp;
		if (o->vp != c->vp || !atomic_load_explicit(&o->bound, memory_order_acquire))
			continue;
		ifaces |= o->local != c->local;
		indexes |= o->local == c->local && o->ifindex != c->ifindex;
		name_shared |= o->local != c->local && strcmp(o->ifname, c->ifname) == 0;
	}
	char sub[160] = "";
	if (ifaces && *c->ifname && !name_shared)
		snprintf(sub, sizeof(sub), "%s", c->ifname);
	else if (ifaces)
		snprintf(sub, sizeof(sub), "if %u", c->local);
	if (indexes)
		snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "%sifindex %u",
		         *sub ? "/" : "", c->ifindex);
	if (!*sub)
		snprintf(name, size, "%s", c->vp_name);
	else if (alone)
		snprintf(name, size, "%s", sub);
	else
		snprintf(name, size, "%s/%s", c->vp_name, sub);
}

int rt_files_find_point(struct files_priv *p, const struct rt_frame *fr, uint32_t ifindex)
{
	unsigned n = atomic_load_explicit(&p->ncp, memory_order_relaxed);
	int c = find_point(p, n, fr->interface_id, ifindex);
	if (c < 0) {
		const struct in_file *f = &p->f[fr->file];
		const struct vpoint *v = &p->vp[f->vp];
		for (unsigned i = 0; i < n && c < 0; i++) /* its named vantage point's first */
			if (p->cp[i].vp == f->vp &&
			    !atomic_load_explicit(&p->cp[i].bound, memory_order_relaxed))
				c = (int)i;
		if (c < 0 && n == MAX_POINTS)
			return -1;
		if (c < 0) {
			c = (int)n++;
			memset(&p->cp[c], 0, sizeof(p->cp[c]));
		}
		struct cpoint *cp = &p->cp[c];
		cp->id = fr->interface_id;
		cp->ifindex = ifindex;
		cp->vp = f->vp;
		cp->vp_name = v->name;
		cp->vp_named = v->named;
		for (uint32_t k = 0; k < v->nmap; k++)
			if (v->map[k] == cp->id)
				cp->local = k;
		if (f->pf)
			snprintf(cp->ifname, sizeof(cp->ifname), "%s",
			         rt_pcapfile_iface_name(f->pf, cp->local));
		atomic_store_explicit(&cp->bound, true, memory_order_release);
		atomic_store_explicit(&p->ncp, n, memory_order_release);
		/* a new point may rename the others (their names say what tells them apart) */
		for (unsigned i = 0; i < n; i++)
			name_point(p, n, &p->cp[i], p->cp[i].name, sizeof(p->cp[i].name));
	}
	p->last_cp = (unsigned)c;
	return c;
}

/* Vantage points of files none of whose frames came (empty files, a name given to no frame): the k-th, or -1. */
static int pointless(const struct files_priv *p, unsigned n, unsigned k)
{
	for (unsigned v = 0; v < p->nvp; v++) {
		bool has = false;
		for (unsigned i = 0; i < n && !has; i++)
			has = p->cp[i].vp == (int)v;
		if (!has && k-- == 0)
			return (int)v;
	}
	return -1;
}

unsigned rt_source_point_count(const struct rt_source *src)
{
	const struct files_priv *p = priv_of(src);
	if (!p)
		return 0;
	unsigned n = atomic_load_explicit(&p->ncp, memory_order_acquire), k = 0;
	while (pointless(p, n, k) >= 0)
		k++;
	return n + k;
}

unsigned rt_source_capture_points(const struct rt_source *src)
{
	const struct files_priv *p = priv_of(src);
	return p ? atomic_load_explicit(&p->ncp, memory_order_acquire) : 0;
}

int rt_source_point(const struct rt_source *src, unsigned i, struct rt_vantage_point *out)
{
	const struct files_priv *p = priv_of(src);
	if (!p)
		return -ENOENT;
	unsigned n = atomic_load_explicit(&p->ncp, memory_order_acquire);
	if (i < n) {
		const struct cpoint *c = &p->cp[i];
		const struct vpoint *v = &p->vp[c->vp];
		*out = (struct rt_vantage_point){.name = c->name,
		                                 .vantage = (unsigned)c->vp,
		                                 .named = v->named,
		                                 .nfiles = v->nfiles,
		                                 .files = v->files,
		                                 .frames = c->frames};
		return 0;
	}
	int v = pointless(p, n, i - n);
	return v < 0 ? -ENOENT : rt_source_vantage_point(src, (unsigned)v, out);
}

bool rt_source_one_point(const struct rt_source *src)
{
	const struct files_priv *p = priv_of(src);
	if (!p || !p->n)
		return false;
	/* one classic pcap file, or several that --vantage names as one point, of one link type */
	const struct in_file *f0 = &p->f[0];
	for (size_t i = 0; i < p->n; i++) {
		const struct in_file *f = &p->f[i];
		if (f->pcapng || f->linktype != f0->linktype || f->linktype == RT_LINK_LINUX_SLL2 ||
		    (p->n > 1 && (!f->vantage || strcmp(f->vantage, f0->vantage) != 0)))
			return false;
	}
	return true;
}

int rt_source_point_of(const struct rt_source *src, uint32_t interface_id, uint32_t sll_ifindex)
{
	const struct files_priv *p = priv_of(src);
	return p ? find_point(p, atomic_load_explicit(&p->ncp, memory_order_acquire), interface_id,
	                      sll_ifindex)
	         : -1;
}

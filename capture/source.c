/* Capture source registry: picks the source whose is_ours() claims a device name, and the ops wrappers. */
#include "capture/source.h"
#include "capture/internal.h"
#include "common/sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !RT_HAVE_IBVERBS
static bool rdma_is_ours(const char *name, const struct rt_source_config *cfg)
{
	return rt_rdma_name_is_device(cfg->sysfs_root, name);
}

static int rdma_refuse(struct rt_source *src, const char *name, const struct rt_source_config *cfg,
                       char *errbuf)
{
	(void)src;
	(void)cfg;
	return rt_errorf(errbuf, EPROTONOSUPPORT,
	                 "%s: an RDMA device, but this rocetrace was built without libibverbs",
	                 name);
}

/* Without libibverbs an RDMA device is still recognised and listed, but cannot be opened. */
static const struct rt_source_ops verbs_unbuilt_ops = {
    .kind = "verbs",
    .is_ours = rdma_is_ours,
    .open = rdma_refuse,
    .list = rt_rdma_source_list,
};
#endif

/* Tried in order; the libpcap live source claims whatever the others do not. */
static const struct rt_source_ops *const registry[] = {
    &rt_source_file_ops,
#if RT_HAVE_IBVERBS
    &rt_source_verbs_ops,
#else
    &verbs_unbuilt_ops,
#endif
    &rt_source_pcap_ops,
};

struct rdma_list {
	rt_source_list_fn fn;
	void *ctx;
};

static void rdma_port(void *ctx, const struct rt_rdma_port *p)
{
	const struct rdma_list *l = ctx;
	struct rt_source_device d;

	snprintf(d.name, sizeof(d.name), "%s:%u", p->dev, p->port);
	snprintf(d.desc, sizeof(d.desc), "link_layer %-10s state %-8s netdev %s", p->link_layer,
	         p->state, p->netdev);
	l->fn(l->ctx, &d);
}

int rt_rdma_source_list(const struct rt_source_config *cfg, rt_source_list_fn fn, void *ctx,
                        char *errbuf)
{
	struct rdma_list l = {fn, ctx};

	(void)errbuf;
	return rt_rdma_list_ports(cfg->sysfs_root, rdma_port, &l);
}

int rt_source_list(const char *kind, const struct rt_source_config *cfg, rt_source_list_fn fn,
                   void *ctx, char *errbuf)
{
	static const struct rt_source_config defaults;
	int total = 0;

	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		if (strcmp(registry[i]->kind, kind) || !registry[i]->list)
			continue;
		int n = registry[i]->list(cfg ? cfg : &defaults, fn, ctx, errbuf);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

bool rt_source_kind_built(const char *kind)
{
	return strcmp(kind, "verbs") != 0 || RT_HAVE_IBVERBS;
}

static int open_with(const struct rt_source_ops *ops, struct rt_source **out, const char *name,
                     const struct rt_source_config *cfg, char *errbuf)
{
	static const struct rt_source_config defaults;
	struct rt_source *src = calloc(1, sizeof(*src));
	if (!src)
		return rt_errorf(errbuf, ENOMEM, "%s", name);
	src->ops = ops;
	snprintf(src->name, sizeof(src->name), "%s", name);
	int rc = ops->open(src, name, cfg ? cfg : &defaults, errbuf);
	if (rc < 0) {
		free(src);
		return rc;
	}
	*out = src;
	return 0;
}

int rt_source_open(struct rt_source **out, const char *name, const struct rt_source_config *cfg,
                   char *errbuf)
{
	static const struct rt_source_config defaults;
	if (!cfg)
		cfg = &defaults;
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (registry[i]->is_ours(name, cfg))
			return open_with(registry[i], out, name, cfg, errbuf);
	return rt_errorf(errbuf, ENODEV, "%s: no capture source claims this name", name);
}

int rt_source_open_file(struct rt_source **out, const char *path,
                        const struct rt_source_config *cfg, char *errbuf)
{
	return open_with(&rt_source_file_ops, out, path, cfg, errbuf);
}

int rt_source_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	int n = src->ops->next(src, frames, max, errbuf);
	for (int i = 0; i < n; i++) {
		if (!frames[i].seq)
			frames[i].seq = src->seq + 1;
		if (!frames[i].linktype)
			frames[i].linktype = src->linktype;
		src->seq = frames[i].seq;
	}
	return n;
}

int rt_source_hold(struct rt_source *src, const uint8_t **base, size_t *len)
{
	return src->ops->hold ? src->ops->hold(src, base, len) : -ENOTSUP;
}

int rt_source_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	memset(st, 0, sizeof(*st));
	return src->ops->stats ? src->ops->stats(src, st, errbuf) : 0;
}

void rt_source_break(struct rt_source *src)
{
	if (src->ops->breakloop)
		src->ops->breakloop(src);
}

void rt_source_close(struct rt_source *src)
{
	if (!src)
		return;
	src->ops->close(src);
	free(src);
}

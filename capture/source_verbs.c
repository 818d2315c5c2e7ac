/* Verbs sniffer source: a raw-packet QP and a sniffer flow fill one receive ring. */
#include "capture/internal.h"
#include "common/clock.h"
#include "common/sysfs.h"
#include "common/verbs_ops.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct verbs_priv {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_flow *flow;
	uint8_t *ring; /* slots × slot_size bytes, registered as one MR */
	uint32_t slots, slot_size;
	struct ibv_recv_wr *wrs; /* one work request and SGE per slot */
	struct ibv_sge *sges;
	uint32_t *pending; /* slots to re-post at the next next() call */
	uint32_t n_pending;
	uint32_t posted; /* slots owned by the NIC */
	uint32_t snaplen;
	int timeout_ms;
	unsigned port;
	/* timestamps */
	uint64_t khz;         /* hca_core_clock (RT_TS_HW_RAW) */
	uint64_t raw0, wall0; /* a raw clock reading and the wall clock at that moment */
	/* software filter */
	pcap_t *dead;
	struct bpf_program prog;
	bool have_prog;
	atomic_bool brk;
	bool flushed; /* a flush completion: the QP is in the error state */
	/* stats */
	uint64_t received, err_completions, ring_empty, filtered;
};

static bool verbs_is_ours(const char *name, const struct rt_source_config *cfg)
{
	return rt_rdma_name_is_device(cfg->sysfs_root, name);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts = {0, 0};
	rt_verbs_ops.clock_gettime(clk, &ts);
	return rt_timespec_ns(&ts);
}

/* Release in order: flow, QP, CQ, MR, PD, context; whatever was created. */
static void teardown(struct verbs_priv *p)
{
	if (p->flow)
		rt_verbs_ops.destroy_flow(p->flow);
	if (p->qp)
		ibv_destroy_qp(p->qp);
	if (p->cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(p->cq));
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	if (p->have_prog)
		pcap_freecode(&p->prog);
	if (p->dead)
		pcap_close(p->dead);
	free(p->ring);
	free(p->wrs);
	free(p->sges);
	free(p->pending);
	free(p);
}

/* An error message for a failed verbs step, naming the usual causes. */
static int verbs_error(char *errbuf, int err, const char *dev, const char *what)
{
	if (err == 0)
		err = EIO;
	switch (err) {
	case EPERM:
	case EACCES:
		return rt_errorf(errbuf, err,
		                 "%s: %s: needs CAP_NET_RAW (run as root or grant the capability)",
		                 dev, what);
	case EOPNOTSUPP:
		return rt_errorf(
		    errbuf, err,
		    "%s: %s: the NIC or its firmware has no sniffer (all-traffic flow) support",
		    dev, what);
	default:
		return rt_errorf(errbuf, err, "%s: %s", dev, what);
	}
}

static struct ibv_context *open_context(const char *dev, char *errbuf, int *rc)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list) {
		*rc =
		    rt_errorf(errbuf, errno ? errno : ENODEV, "%s: cannot list RDMA devices", dev);
		return NULL;
	}
	struct ibv_device *found = NULL;
	for (int i = 0; i < n && !found; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev) == 0)
			found = list[i];
	struct ibv_context *ctx = NULL;
	if (!found)
		*rc = rt_errorf(errbuf, 0,
		                "%s: libibverbs does not list this RDMA device "
		                "(no provider library for it, or no /dev/infiniband/uverbs*)",
		                dev);
	else if (!(ctx = ibv_open_device(found)))
		*rc = rt_errorf(errbuf, errno ? errno : ENODEV,
		                "%s: cannot open the device "
		                "(/dev/infiniband/uverbs* access)",
		                dev);
	ibv_free_device_list(list);
	if (!found)
		*rc = -ENODEV;
	return ctx;
}

/* Extended CQ with the best timestamps the device gives; records the mode in src->ts_source. */
static int create_cq(struct rt_source *src, struct verbs_priv *p, const char *dev, char *errbuf)
{
	struct ibv_cq_init_attr_ex attr = {
	    .cqe = p->slots,
	    .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	p->cq = rt_verbs_ops.create_cq_ex(p->ctx, &attr);
	if (p->cq) {
		src->ts_source = RT_TS_HW_WALLCLOCK;
		return 0;
	}
	struct ibv_device_attr_ex dattr;
	struct ibv_values_ex vals = {.comp_mask = IBV_VALUES_MASK_RAW_CLOCK};
	memset(&dattr, 0, sizeof(dattr));
	if (rt_verbs_ops.query_device_ex(p->ctx, NULL, &dattr) == 0 && dattr.hca_core_clock > 0 &&
	    rt_verbs_ops.query_rt_values_ex(p->ctx, &vals) == 0 &&
	    (vals.comp_mask & IBV_VALUES_MASK_RAW_CLOCK)) {
		attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		p->cq = rt_verbs_ops.create_cq_ex(p->ctx, &attr);
		if (p->cq) {
			p->khz = dattr.hca_core_clock;
			p->raw0 = (uint64_t)vals.raw_clock.tv_sec * 1000000000u +
			          (uint64_t)vals.raw_clock.tv_nsec;
			p->wall0 = clock_ns(CLOCK_REALTIME);
			src->ts_source = RT_TS_HW_RAW;
			return 0;
		}
	}
	attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	p->cq = rt_verbs_ops.create_cq_ex(p->ctx, &attr);
	if (!p->cq)
		return verbs_error(errbuf, errno, dev, "cannot create a completion queue");
	src->ts_source = RT_TS_SOFTWARE;
	return 0;
}

/* Receive slot size: the port netdev's MTU plus Ethernet and two VLAN tags, in 64-byte units. */
static uint32_t slot_size(const struct rt_source_config *cfg, const char *dev, unsigned port)
{
	char netdev[RT_DEVNAME_MAX], path[4096];
	uint64_t mtu;
	if (rt_rdma_port_netdev(cfg->sysfs_root, dev, port, netdev) < 0)
		return RT_VERBS_DEFAULT_SLOT;
	snprintf(path, sizeof(path), "%s/class/net/%s/mtu", rt_sysfs_root(cfg->sysfs_root), netdev);
	if (rt_sysfs_read_u64(path, &mtu) < 0 || mtu < 68 || mtu > 65536)
		return RT_VERBS_DEFAULT_SLOT;
	return (uint32_t)((mtu + 22 + 63) & ~(uint64_t)63);
}

static void queue_repost(struct verbs_priv *p, uint32_t slot)
{
	p->pending[p->n_pending++] = slot;
}

/* Post every pending slot in one chained call. */
static int repost(struct rt_source *src, struct verbs_priv *p, char *errbuf)
{
	if (p->n_pending == 0)
		return 0;
	for (uint32_t i = 0; i < p->n_pending; i++) {
		struct ibv_recv_wr *wr = &p->wrs[p->pending[i]];
		wr->next = i + 1 < p->n_pending ? &p->wrs[p->pending[i + 1]] : NULL;
	}
	struct ibv_recv_wr *bad = NULL;
	int err = rt_verbs_ops.post_recv(p->qp, &p->wrs[p->pending[0]], &bad);
	if (err)
		return rt_errorf(errbuf, err, "%s: cannot post receive buffers", src->name);
	p->posted += p->n_pending;
	p->n_pending = 0;
	return 0;
}

static int setup_filter(struct verbs_priv *p, const char *bpf, char *errbuf)
{
	if (!bpf || !*bpf)
		return 0;
	p->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)p->slot_size,
	                                               PCAP_TSTAMP_PRECISION_NANO);
	if (!p->dead)
		return rt_errorf(errbuf, ENOMEM, "filter '%s'", bpf);
	if (pcap_compile(p->dead, &p->prog, bpf, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return rt_errorf(errbuf, 0, "bad filter '%s': %s", bpf, pcap_geterr(p->dead));
	p->have_prog = true;
	return 0;
}

static int verbs_open(struct rt_source *src, const char *name, const struct rt_source_config *cfg,
                      char *errbuf)
{
	char dev[RT_DEVNAME_MAX];
	unsigned port;
	int rc = 0;
	if (rt_rdma_split_name(name, dev, &port) < 0)
		return rt_errorf(errbuf, EINVAL, "%s: expected DEVICE or DEVICE:PORT (port 1-255)",
		                 name);
	uint32_t slots = cfg->buffer_count ? cfg->buffer_count : RT_VERBS_DEFAULT_RING;
	if (slots < RT_VERBS_MIN_RING)
		return rt_errorf(errbuf, EINVAL,
		                 "%s: -B %u: the receive ring needs at least %u buffers", name,
		                 slots, RT_VERBS_MIN_RING);
	struct verbs_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return rt_errorf(errbuf, ENOMEM, "%s", name);
	p->slots = slots;
	p->port = port;
	p->slot_size = slot_size(cfg, dev, port);
	p->snaplen = cfg->snaplen && cfg->snaplen < p->slot_size ? cfg->snaplen : p->slot_size;
	p->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 100;
	size_t ring_bytes = (size_t)slots * p->slot_size;
	p->ring = aligned_alloc(4096, (ring_bytes + 4095) & ~(size_t)4095);
	p->wrs = calloc(slots, sizeof(*p->wrs));
	p->sges = calloc(slots, sizeof(*p->sges));
	p->pending = calloc(slots, sizeof(*p->pending));
	if (!p->ring || !p->wrs || !p->sges || !p->pending) {
		rc = rt_errorf(errbuf, ENOMEM, "%s: receive ring of %u × %u bytes", name, slots,
		               p->slot_size);
		goto fail;
	}
	if ((rc = setup_filter(p, cfg->bpf, errbuf)) < 0)
		goto fail;

	p->ctx = open_context(dev, errbuf, &rc);
	if (!p->ctx)
		goto fail;
	struct ibv_port_attr pattr;
	memset(&pattr, 0, sizeof(pattr));
	int err = rt_verbs_ops.query_port(p->ctx, (uint8_t)port, &pattr);
	if (err) {
		rc = rt_errorf(errbuf, err, "%s: port %u", dev, port);
		goto fail;
	}
	if (pattr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		rc = rt_errorf(errbuf, EPROTONOSUPPORT,
		               "%s: port %u is not an Ethernet (RoCE) port; the sniffer needs one",
		               dev, port);
		goto fail;
	}
	if (!(p->pd = ibv_alloc_pd(p->ctx))) {
		rc = verbs_error(errbuf, errno, dev, "cannot allocate a protection domain");
		goto fail;
	}
	if ((rc = create_cq(src, p, dev, errbuf)) < 0)
		goto fail;
	if (!(p->mr = ibv_reg_mr(p->pd, p->ring, ring_bytes, IBV_ACCESS_LOCAL_WRITE))) {
		err = errno;
		if (err == ENOMEM || err == EAGAIN)
			rc = rt_errorf(errbuf, err,
			               "%s: cannot register the %zu-byte receive ring: "
			               "memlock limit too low (raise it with `ulimit -l`, or use a "
			               "smaller -B)",
			               dev, ring_bytes);
		else
			rc = verbs_error(errbuf, err, dev, "cannot register the receive ring");
		goto fail;
	}
	struct ibv_qp_init_attr qattr = {
	    .send_cq = ibv_cq_ex_to_cq(p->cq),
	    .recv_cq = ibv_cq_ex_to_cq(p->cq),
	    .cap = {.max_send_wr = 1, .max_recv_wr = slots, .max_send_sge = 1, .max_recv_sge = 1},
	    .qp_type = IBV_QPT_RAW_PACKET,
	};
	if (!(p->qp = ibv_create_qp(p->pd, &qattr))) {
		rc = verbs_error(errbuf, errno, dev, "cannot create a raw packet QP");
		goto fail;
	}
	struct ibv_qp_attr mattr = {.qp_state = IBV_QPS_INIT, .port_num = (uint8_t)port};
	if ((err = ibv_modify_qp(p->qp, &mattr, IBV_QP_STATE | IBV_QP_PORT)) != 0) {
		rc = verbs_error(errbuf, err, dev, "cannot move the QP to INIT");
		goto fail;
	}
	for (uint32_t i = 0; i < slots; i++) {
		p->sges[i] = (struct ibv_sge){
		    .addr = (uintptr_t)(p->ring + (size_t)i * p->slot_size),
		    .length = p->slot_size,
		    .lkey = p->mr->lkey,
		};
		p->wrs[i] = (struct ibv_recv_wr){.wr_id = i, .sg_list = &p->sges[i], .num_sge = 1};
		queue_repost(p, i);
	}
	if ((rc = repost(src, p, errbuf)) < 0)
		goto fail;
	mattr = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR};
	if ((err = ibv_modify_qp(p->qp, &mattr, IBV_QP_STATE)) != 0) {
		rc = verbs_error(errbuf, err, dev, "cannot move the QP to RTR");
		goto fail;
	}
	struct ibv_flow_attr fattr = {
	    .type = IBV_FLOW_ATTR_SNIFFER,
	    .size = sizeof(fattr),
	    .num_of_specs = 0,
	    .port = (uint8_t)port,
	};
	if (!(p->flow = rt_verbs_ops.create_flow(p->qp, &fattr))) {
		err = errno;
		if (err == ENOTSUP || err == ENOSYS)
			err = EOPNOTSUPP;
		rc = verbs_error(errbuf, err, dev, "cannot create the sniffer flow");
		goto fail;
	}
	src->priv = p;
	src->linktype = RT_LINK_ETHERNET;
	src->snaplen = p->snaplen;
	return 0;
fail:
	teardown(p);
	return rc;
}

static uint64_t frame_ts(struct rt_source *src, struct verbs_priv *p, uint64_t batch_ns)
{
	switch (src->ts_source) {
	case RT_TS_HW_WALLCLOCK:
		return rt_verbs_ops.wc_read_completion_wallclock_ns(p->cq);
	case RT_TS_HW_RAW: {
		uint64_t raw = rt_verbs_ops.wc_read_completion_ts(p->cq);
		if (raw >= p->raw0)
			return p->wall0 + rt_verbs_cycles_to_ns(raw - p->raw0, p->khz);
		return p->wall0 - rt_verbs_cycles_to_ns(p->raw0 - raw, p->khz);
	}
	default:
		return batch_ns;
	}
}

/* Take the current completion; returns true when it is a frame to deliver into *f. */
static bool take_completion(struct rt_source *src, struct verbs_priv *p, uint64_t batch_ns,
                            struct rt_frame *f)
{
	uint32_t slot = (uint32_t)p->cq->wr_id;
	if (slot >= p->slots)
		return false; /* not one of ours: nothing to re-post */
	p->posted--;
	queue_repost(p, slot);
	if (p->cq->status != IBV_WC_SUCCESS) {
		p->err_completions++;
		if (p->cq->status == IBV_WC_WR_FLUSH_ERR)
			p->flushed = true;
		return false;
	}
	uint32_t len = rt_verbs_ops.wc_read_byte_len(p->cq);
	const uint8_t *data = p->ring + (size_t)slot * p->slot_size;
	uint32_t caplen = len < p->snaplen ? len : p->snaplen;
	uint64_t ts = frame_ts(src, p, batch_ns);
	if (p->have_prog) {
		struct pcap_pkthdr h = {
		    .ts = {(time_t)(ts / 1000000000u), (suseconds_t)(ts % 1000000000u)},
		    .caplen = caplen,
		    .len = len};
		if (!pcap_offline_filter(&p->prog, &h, data)) {
			p->filtered++;
			return false;
		}
	}
	*f = (struct rt_frame){.data = data, .caplen = caplen, .wirelen = len, .ts_ns = ts};
	p->received++;
	return true;
}

static void idle_sleep(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

/* Re-posting into a QP in the error state only flushes the buffers again: stop instead. */
static int flushed_error(struct rt_source *src, char *errbuf)
{
	return rt_errorf(errbuf, EIO,
	                 "%s: the receive queue was flushed: the QP is in the error state "
	                 "(device reset or fatal error)",
	                 src->name);
}

static int verbs_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	struct verbs_priv *p = src->priv;
	if (max < 1)
		return -EINVAL;
	if (p->flushed)
		return flushed_error(src, errbuf);
	if (max > RT_VERBS_POLL_BATCH)
		max = RT_VERBS_POLL_BATCH;
	/* The frames of the previous call are no longer used: give their buffers back. */
	int rc = repost(src, p, errbuf);
	if (rc < 0)
		return rc;
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + (uint64_t)p->timeout_ms * 1000000u;
	long idle = 1000;
	for (;;) {
		if (atomic_exchange(&p->brk, false))
			return -EINTR;
		struct ibv_poll_cq_attr pattr = {0};
		int err = rt_verbs_ops.start_poll(p->cq, &pattr);
		if (err == ENOENT) {
			if (clock_ns(CLOCK_MONOTONIC) >= deadline)
				return -EAGAIN;
			idle_sleep(idle);
			if (idle < 1000000)
				idle *= 2;
			/* Buffers of error or filtered completions go back while we wait. */
			if ((rc = repost(src, p, errbuf)) < 0)
				return rc;
			continue;
		}
		if (err)
			return rt_errorf(errbuf, err, "%s: polling the completion queue",
			                 src->name);
		uint64_t batch_ns = src->ts_source == RT_TS_SOFTWARE ? clock_ns(CLOCK_REALTIME) : 0;
		int n = 0;
		do {
			if (take_completion(src, p, batch_ns, &frames[n]))
				n++;
		} while (n < max && (err = rt_verbs_ops.next_poll(p->cq)) == 0);
		rt_verbs_ops.end_poll(p->cq);
		if (p->posted == 0)
			p->ring_empty++;
		if (err && err != ENOENT)
			return rt_errorf(errbuf, err, "%s: polling the completion queue",
			                 src->name);
		if (n > 0)
			return n;
		if (p->flushed)
			return flushed_error(src, errbuf);
		if ((rc = repost(src, p, errbuf)) < 0)
			return rc;
		/* Only filtered or failed completions: a busy port keeps the timeout all the same. */
		if (clock_ns(CLOCK_MONOTONIC) >= deadline)
			return -EAGAIN;
	}
}

static int verbs_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	(void)errbuf;
	struct verbs_priv *p = src->priv;
	st->received = p->received;
	st->ring_empty = p->ring_empty;
	/*
	 * Running empty leaves arriving frames without a buffer until the next
	 * re-post; the NIC does not say how many, so each time counts as one drop
	 * (a lower bound: the port's out_of_buffer counter, see --counters, has
	 * the NIC's own count).
	 */
	st->dropped = p->err_completions + p->ring_empty;
	st->drops_known = true;
	return 0;
}

static void verbs_break(struct rt_source *src)
{
	struct verbs_priv *p = src->priv;
	atomic_store(&p->brk, true);
}

static void verbs_close(struct rt_source *src)
{
	if (src->priv)
		teardown(src->priv);
	src->priv = NULL;
}

const struct rt_source_ops rt_source_verbs_ops = {
    .kind = "verbs",
    .is_ours = verbs_is_ours,
    .open = verbs_open,
    .next = verbs_next,
    .stats = verbs_stats,
    .breakloop = verbs_break,
    .close = verbs_close,
    .list = rt_rdma_source_list,
};

/* Benchmark (built and run by tools/bench.d/capture.sh): CPU per frame of the writer, and of the verbs sniffer's poll/re-post/write path with libibverbs wrapped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/internal.h"
#include "capture/writer.h"
#include "common/clock.h"
#include "rt_config.h"

#if RT_HAVE_IBVERBS
#include "common/verbs_ops.h"
#include "common/verbs_wrap.h"
#endif

/* 4178 bytes on the wire: a 4 KiB RoCEv2 payload (the design point of docs/CAPTURE.md) */
#define WIRE_LEN 4178u

static struct rt_writer *open_writer(const char *path, char *errbuf)
{
	struct rt_writer_config cfg = {.path = path};
	struct rt_writer *w;
	if (rt_writer_open(&w, &cfg, errbuf) < 0)
		return NULL;
	if (rt_writer_add_interface(w, "bench", RT_LINK_ETHERNET, 128, RT_TS_HW_WALLCLOCK, errbuf) <
	    0) {
		rt_writer_close(w, errbuf);
		return NULL;
	}
	return w;
}

/* The writer alone: n header-only frames (-s 128) into path. Prints ns of CPU per frame. */
static int bench_writer(const char *path, long n)
{
	static unsigned char frame[128];
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_writer *w = open_writer(path, errbuf);
	if (!w)
		return fprintf(stderr, "%s\n", errbuf), 1;
	uint64_t t0 = rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		struct rt_frame f = {.data = frame,
		                     .caplen = sizeof(frame),
		                     .wirelen = WIRE_LEN,
		                     .ts_ns = 1700000000000000000ull + (uint64_t)i * 333};
		frame[20] = (unsigned char)i;
		if (rt_writer_write(w, 0, &f, errbuf) < 0)
			return fprintf(stderr, "%s\n", errbuf), 1;
	}
	if (rt_writer_close(w, errbuf) < 0)
		return fprintf(stderr, "%s\n", errbuf), 1;
	printf("%.1f\n", (double)(rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0) / (double)n);
	return 0;
}

#if RT_HAVE_IBVERBS
/*
 * A fake NIC that completes every posted buffer at once, in the order
 * posted: the sniffer's ring never runs dry, so each next() is a full poll
 * session. The frames were written into the ring once, before the run
 * (a NIC's DMA costs the host no CPU).
 */
#define MAX_SLOTS (1u << 16)

static struct {
	uint32_t fifo[MAX_SLOTS]; /* posted slots, oldest first */
	uint32_t head, tail;      /* counters; the FIFO index is counter % MAX_SLOTS */
	uint64_t clock;
	uint64_t polls; /* poll sessions */
} nic;

static struct ibv_device fake_dev;
static struct ibv_context fake_ctx;
static struct ibv_pd fake_pd;
static struct ibv_mr fake_mr;
static struct ibv_qp fake_qp;
static struct ibv_cq_ex fake_cq;
static struct ibv_flow fake_flow;

static struct ibv_device *dev_list[2] = {&fake_dev, NULL};

struct ibv_device **__wrap_ibv_get_device_list(int *n)
{
	*n = 1;
	return dev_list;
}
void __wrap_ibv_free_device_list(struct ibv_device **list)
{
	(void)list;
}
const char *__wrap_ibv_get_device_name(struct ibv_device *dev)
{
	(void)dev;
	return "bench0";
}
struct ibv_context *__wrap_ibv_open_device(struct ibv_device *dev)
{
	(void)dev;
	return &fake_ctx;
}
int __wrap_ibv_close_device(struct ibv_context *ctx)
{
	(void)ctx;
	return 0;
}
struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx)
{
	(void)ctx;
	return &fake_pd;
}
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	(void)pd;
	return 0;
}
struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	(void)pd;
	(void)access;
	/* the frames the NIC will "receive": written once, as DMA would */
	for (size_t off = 0; off + 64 <= len; off += 64)
		memset((uint8_t *)addr + off, (int)(off >> 6), 64);
	return &fake_mr;
}
int __wrap_ibv_dereg_mr(struct ibv_mr *mr)
{
	(void)mr;
	return 0;
}
struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	(void)pd;
	(void)attr;
	return &fake_qp;
}
int __wrap_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	(void)qp;
	(void)attr;
	(void)mask;
	return 0;
}
int __wrap_ibv_destroy_qp(struct ibv_qp *qp)
{
	(void)qp;
	return 0;
}
int __wrap_ibv_destroy_cq(struct ibv_cq *cq)
{
	(void)cq;
	return 0;
}

static int fake_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	(void)ctx;
	(void)port;
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	attr->state = IBV_PORT_ACTIVE;
	return 0;
}

static struct ibv_cq_ex *fake_create_cq_ex(struct ibv_context *ctx,
                                           struct ibv_cq_init_attr_ex *attr)
{
	(void)ctx;
	(void)attr;
	return &fake_cq; /* wall-clock completion timestamps, as mlx5 gives */
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	for (; wr; wr = wr->next)
		nic.fifo[nic.tail++ % MAX_SLOTS] = (uint32_t)wr->wr_id;
	return 0;
}

static struct ibv_flow *fake_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr)
{
	(void)qp;
	(void)attr;
	return &fake_flow;
}

static int fake_destroy_flow(struct ibv_flow *flow)
{
	(void)flow;
	return 0;
}

static int complete(struct ibv_cq_ex *cq)
{
	if (nic.head == nic.tail)
		return ENOENT;
	cq->wr_id = nic.fifo[nic.head++ % MAX_SLOTS];
	cq->status = IBV_WC_SUCCESS;
	return 0;
}

static int fake_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	(void)attr;
	nic.polls++;
	return complete(cq);
}

static int fake_next_poll(struct ibv_cq_ex *cq)
{
	return complete(cq);
}

static void fake_end_poll(struct ibv_cq_ex *cq)
{
	(void)cq;
}

static uint32_t fake_read_byte_len(struct ibv_cq_ex *cq)
{
	(void)cq;
	return WIRE_LEN;
}

static uint64_t fake_read_wallclock_ns(struct ibv_cq_ex *cq)
{
	(void)cq;
	return nic.clock += 334; /* 3 M frames/s */
}

/*
 * The sniffer with -s 128 and -B slots, n frames: through next() alone, or
 * also into a pcapng file at path. Prints ns of CPU per frame, and poll
 * sessions per frame.
 */
static int bench_verbs(const char *path, long n, uint32_t slots)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_frame frames[RT_VERBS_POLL_BATCH];
	struct rt_source src = {.ops = &rt_source_verbs_ops, .name = "bench0:1"};
	struct rt_source_config cfg = {
	    .snaplen = 128, .buffer_count = slots, .sysfs_root = "/nonexistent"};
	struct rt_writer *w = NULL;

	rt_verbs_ops.query_port = fake_query_port;
	rt_verbs_ops.create_cq_ex = fake_create_cq_ex;
	rt_verbs_ops.post_recv = fake_post_recv;
	rt_verbs_ops.create_flow = fake_create_flow;
	rt_verbs_ops.destroy_flow = fake_destroy_flow;
	rt_verbs_ops.start_poll = fake_start_poll;
	rt_verbs_ops.next_poll = fake_next_poll;
	rt_verbs_ops.end_poll = fake_end_poll;
	rt_verbs_ops.wc_read_byte_len = fake_read_byte_len;
	rt_verbs_ops.wc_read_completion_wallclock_ns = fake_read_wallclock_ns;
	if (slots > MAX_SLOTS || rt_source_verbs_ops.open(&src, "bench0:1", &cfg, errbuf) < 0)
		return fprintf(stderr, "verbs open: %s\n",
		               slots > MAX_SLOTS ? "ring too big" : errbuf),
		       1;
	if (path && !(w = open_writer(path, errbuf)))
		return fprintf(stderr, "%s\n", errbuf), 1;
	uint64_t polls0 = nic.polls;
	uint64_t t0 = rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	long done = 0;
	while (done < n) {
		int got = rt_source_verbs_ops.next(&src, frames, RT_VERBS_POLL_BATCH, errbuf);
		if (got < 0)
			return fprintf(stderr, "verbs next: %s\n", errbuf), 1;
		for (int i = 0; w && i < got; i++)
			if (rt_writer_write(w, 0, &frames[i], errbuf) < 0)
				return fprintf(stderr, "%s\n", errbuf), 1;
		done += got;
	}
	if (w && rt_writer_close(w, errbuf) < 0)
		return fprintf(stderr, "%s\n", errbuf), 1;
	uint64_t ns = rt_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
	printf("%.1f %.4f\n", (double)ns / (double)done,
	       (double)(nic.polls - polls0) / (double)done);
	rt_source_verbs_ops.close(&src);
	return 0;
}
#endif

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "writer"))
		return bench_writer(argv[2], atol(argv[3]));
#if RT_HAVE_IBVERBS
	if (argc >= 5 && !strcmp(argv[1], "verbs"))
		return bench_verbs(strcmp(argv[2], "-") ? argv[2] : NULL, atol(argv[3]),
		                   (uint32_t)atol(argv[4]));
#endif
	fprintf(stderr, "usage: %s writer FILE N | verbs FILE|- N SLOTS\n", argv[0]);
	return 2;
}

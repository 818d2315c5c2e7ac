/* A fake NIC for the verbs sniffer's unit tests: libibverbs' exported calls wrapped at link time, its inline ones replaced, every call logged. */
#ifndef RT_TEST_CAPTURE_FAKE_VERBS_H
#define RT_TEST_CAPTURE_FAKE_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "capture/internal.h"

#define MAX_LOG 256
#define RING    64
#define T0_REAL 1700000000000000000ull /* fake CLOCK_REALTIME, ns */

struct completion {
	uint64_t wr_id;
	enum ibv_wc_status status;
	uint32_t len;
	uint64_t ts;   /* wall-clock ns or raw cycles, per mode */
	uint8_t byte0; /* first byte written into the buffer */
};

struct fake_nic {
	const char *log[MAX_LOG];
	int n_log;
	const char *fail_step; /* the step that fails, or NULL */
	int fail_errno;
	/* timestamp support of the fake device */
	bool wallclock, rawclock;
	uint64_t khz, raw_now;
	/* what the source asked for */
	uint64_t cq_flags[4];
	int n_cq;
	struct ibv_qp_init_attr qp_attr;
	struct ibv_qp_attr modify[2];
	int modify_mask[2];
	int n_modify;
	struct ibv_flow_attr flow_attr;
	int flow_calls;
	/* receive buffers the NIC owns: address per wr_id, and post history */
	uint64_t buf_addr[RING];
	uint32_t buf_len[RING];
	bool owned[RING];
	uint64_t last_posted[RING];
	int n_last_posted;
	/* completions to deliver */
	struct completion cq[RING * 2];
	int cq_head, cq_tail;
	struct completion cur;
	uint64_t mono_ns;
	/* after the queue: this many more completions, each in a buffer the NIC owns, first byte 3 */
	int endless_left;
};

/* The fake NIC's state: what the source asked for, the buffers it owns, completions to deliver. */
extern struct fake_nic fake;
/* The one completion queue the fake gives out. */
extern struct ibv_cq_ex fake_cq;
/* A configuration with a ring of RING buffers and no sysfs tree. */
extern const struct rt_source_config ring_cfg;

/* A fresh fake with wall-clock and raw timestamps at 156.25 MHz, installed in rt_verbs_ops (a cmocka setup). */
int setup(void **state);
/* The real verbs entries back in rt_verbs_ops (a cmocka teardown). */
int teardown_api(void **state);
/* Queue a completion for buffer wr_id; its frame's first byte is wr_id. */
void queue(uint64_t wr_id, enum ibv_wc_status status, uint32_t len, uint64_t ts);
/* Open the verbs source on mock0:1 into `src`. */
int open_src(struct rt_source *src, const struct rt_source_config *cfg, char *errbuf);
/* The log from entry `from` on, joined with spaces. */
char *log_str(int from, char *buf, size_t size);

#endif

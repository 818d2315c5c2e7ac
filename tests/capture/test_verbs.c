/* Unit tests of the verbs sniffer with libibverbs wrapped at link time: open and teardown, completions, timestamps, the registry (the fake NIC is fake_verbs.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/internal.h"
#include "fake_verbs.h"

static void test_open_sequence_and_attributes(void **state)
{
	(void)state;
	struct rt_source src;
	char errbuf[RT_ERRBUF_SIZE], buf[1024];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	assert_string_equal(
	    log_str(0, buf, sizeof(buf)),
	    "get_device_list open_device free_device_list query_port alloc_pd create_cq_ex "
	    "reg_mr create_qp modify_qp_init post_recv modify_qp_rtr create_flow");
	/* raw packet QP on the one CQ, a receive queue as big as the ring */
	assert_int_equal(fake.qp_attr.qp_type, IBV_QPT_RAW_PACKET);
	assert_int_equal(fake.qp_attr.cap.max_recv_wr, RING);
	assert_ptr_equal(fake.qp_attr.recv_cq, ibv_cq_ex_to_cq(&fake_cq));
	/* INIT on port 1, then RTR */
	assert_int_equal(fake.modify[0].qp_state, IBV_QPS_INIT);
	assert_int_equal(fake.modify[0].port_num, 1);
	assert_int_equal(fake.modify_mask[0], IBV_QP_STATE | IBV_QP_PORT);
	assert_int_equal(fake.modify[1].qp_state, IBV_QPS_RTR);
	assert_int_equal(fake.modify_mask[1], IBV_QP_STATE);
	/* every buffer posted before RTR, in one call */
	assert_int_equal(fake.n_last_posted, RING);
	/* the sniffer flow: no specs, on the port */
	assert_int_equal(fake.flow_calls, 1);
	assert_int_equal(fake.flow_attr.type, IBV_FLOW_ATTR_SNIFFER);
	assert_int_equal(fake.flow_attr.num_of_specs, 0);
	assert_int_equal(fake.flow_attr.port, 1);
	assert_int_equal(fake.flow_attr.size, sizeof(struct ibv_flow_attr));
	/* wall-clock completion timestamps asked for first */
	assert_true(fake.cq_flags[0] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	assert_int_equal(src.ts_source, RT_TS_HW_WALLCLOCK);
	assert_int_equal(src.linktype, RT_LINK_ETHERNET);

	int mark = fake.n_log;
	rt_source_verbs_ops.close(&src);
	assert_string_equal(log_str(mark, buf, sizeof(buf)),
	                    "destroy_flow destroy_qp destroy_cq dereg_mr dealloc_pd close_device");
	assert_null(src.priv);
}

static void test_port_two(void **state)
{
	(void)state;
	struct rt_source src = {.ops = &rt_source_verbs_ops};
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_verbs_ops.open(&src, "mock0:2", &ring_cfg, errbuf), 0);
	assert_int_equal(fake.modify[0].port_num, 2);
	assert_int_equal(fake.flow_attr.port, 2);
	rt_source_verbs_ops.close(&src);
	setup(NULL);
	assert_int_equal(rt_source_verbs_ops.open(&src, "mock0:3", &ring_cfg, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "port 3"));
	setup(NULL);
	assert_int_equal(rt_source_verbs_ops.open(&src, "mock0:x", &ring_cfg, errbuf), -EINVAL);
	setup(NULL);
	assert_int_equal(rt_source_verbs_ops.open(&src, "nosuch0", &ring_cfg, errbuf), -ENODEV);
	assert_non_null(strstr(errbuf, "nosuch0"));
}

/* Fail at each step in turn: what was created is released, in order, and nothing else. */
static void test_teardown_on_every_failure(void **state)
{
	(void)state;
	static const struct {
		const char *step;
		const char *released;
	} cases[] = {
	    {"get_device_list", ""},
	    {"open_device", ""},
	    {"query_port", "close_device"},
	    {"alloc_pd", "close_device"},
	    {"create_cq_ex", "dealloc_pd close_device"},
	    {"reg_mr", "destroy_cq dealloc_pd close_device"},
	    {"create_qp", "destroy_cq dereg_mr dealloc_pd close_device"},
	    {"modify_qp_init", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	    {"post_recv", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	    {"modify_qp_rtr", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	    {"create_flow", "destroy_qp destroy_cq dereg_mr dealloc_pd close_device"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_source src;
		char errbuf[RT_ERRBUF_SIZE] = "", buf[1024];
		setup(NULL);
		fake.fail_step = cases[i].step;
		fake.fail_errno = EIO;
		assert_true(open_src(&src, &ring_cfg, errbuf) < 0);
		assert_true(strlen(errbuf) > 0);
		assert_null(src.priv);
		/* the log after the failing step holds the releases only */
		int at = -1;
		for (int k = 0; k < fake.n_log; k++)
			if (strcmp(fake.log[k], cases[i].step) == 0)
				at = k;
		assert_true(at >= 0);
		log_str(at + 1, buf, sizeof(buf));
		/* the device list is freed right after it is searched */
		const char *rest =
		    strncmp(buf, "free_device_list", 16) == 0 ? buf + 16 + (buf[16] == ' ') : buf;
		if (strcmp(rest, cases[i].released) != 0)
			fail_msg("failing %s released '%s', expected '%s'", cases[i].step, rest,
			         cases[i].released);
	}
}

static void test_error_messages(void **state)
{
	(void)state;
	struct rt_source src;
	char errbuf[RT_ERRBUF_SIZE];
	fake.fail_step = "create_qp";
	fake.fail_errno = EPERM;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -EPERM);
	assert_non_null(strstr(errbuf, "needs CAP_NET_RAW (run as root or grant the capability)"));

	setup(NULL);
	fake.fail_step = "create_flow";
	fake.fail_errno = EOPNOTSUPP;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -EOPNOTSUPP);
	assert_non_null(strstr(errbuf, "no sniffer"));

	setup(NULL);
	fake.fail_step = "create_flow";
	fake.fail_errno = EPERM;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -EPERM);
	assert_non_null(strstr(errbuf, "CAP_NET_RAW"));

	setup(NULL);
	fake.fail_step = "reg_mr";
	fake.fail_errno = ENOMEM;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), -ENOMEM);
	assert_non_null(strstr(errbuf, "ulimit -l"));

	setup(NULL);
	struct rt_source_config small = ring_cfg;
	small.buffer_count = 8;
	assert_int_equal(open_src(&src, &small, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "-B"));
}

static void test_error_completion_reposts_and_counts(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[8];
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	queue(5, IBV_WC_GENERAL_ERR, 0, 0);
	queue(6, IBV_WC_SUCCESS, 100, T0_REAL + 42);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 8, errbuf), 1);
	assert_int_equal(frames[0].caplen, 100);
	assert_int_equal(frames[0].wirelen, 100);
	assert_int_equal(frames[0].data[0], 6); /* slot 6's buffer */
	assert_int_equal(frames[0].ts_ns, T0_REAL + 42);
	assert_false(fake.owned[5]);
	assert_false(fake.owned[6]);
	assert_int_equal(rt_source_verbs_ops.stats(&src, &st, errbuf), 0);
	assert_int_equal(st.received, 1);
	assert_int_equal(st.dropped, 1);
	/* the next call gives both buffers back, the failed one included */
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 8, errbuf), -EAGAIN);
	assert_true(fake.owned[5]);
	assert_true(fake.owned[6]);
	assert_int_equal(fake.n_last_posted, 2);
	assert_int_equal(fake.last_posted[0], 5);
	assert_int_equal(fake.last_posted[1], 6);
	rt_source_verbs_ops.close(&src);
}

static void test_snaplen_filter_and_batches(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_source_config cfg = ring_cfg;
	cfg.snaplen = 64;
	cfg.bpf = "ether[0] != 3";
	assert_int_equal(open_src(&src, &cfg, errbuf), 0);
	assert_int_equal(src.snaplen, 64);
	for (uint64_t i = 0; i < 6; i++)
		queue(i, IBV_WC_SUCCESS, 1000, T0_REAL + i);
	/* frame 3 is filtered out; batches are limited by the caller's array */
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 4);
	assert_int_equal(frames[0].data[0], 0);
	assert_int_equal(frames[3].data[0], 4);
	assert_int_equal(frames[3].caplen, 64);
	assert_int_equal(frames[3].wirelen, 1000);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 1);
	assert_int_equal(frames[0].data[0], 5);
	/* the 5 buffers of the first call came back, the filtered one too */
	assert_int_equal(fake.n_last_posted, 5);
	rt_source_verbs_ops.close(&src);
}

static void test_ring_empty_counts_a_drop(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[RT_VERBS_POLL_BATCH];
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	for (uint64_t i = 0; i < RING; i++)
		queue(i, IBV_WC_SUCCESS, 60, T0_REAL);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, RT_VERBS_POLL_BATCH, errbuf), RING);
	rt_source_verbs_ops.stats(&src, &st, errbuf);
	assert_int_equal(st.ring_empty, 1);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.received, RING);
	rt_source_verbs_ops.close(&src);
}

static void test_timestamp_raw_clock(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	fake.wallclock = false;
	fake.raw_now = 1000000;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	assert_int_equal(src.ts_source, RT_TS_HW_RAW);
	assert_int_equal(fake.n_cq, 2);
	assert_true(fake.cq_flags[1] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	assert_false(fake.cq_flags[1] & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	/* 156.25 MHz: 156250000 cycles = 1 s, 15625 cycles = 100 us */
	queue(0, IBV_WC_SUCCESS, 60, 1000000 + 156250000ull);
	queue(1, IBV_WC_SUCCESS, 60, 1000000 + 15625);
	queue(2, IBV_WC_SUCCESS, 60, 1000000 - 15625);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 3);
	assert_int_equal(frames[0].ts_ns, T0_REAL + 1000000000ull);
	assert_int_equal(frames[1].ts_ns, T0_REAL + 100000ull);
	assert_int_equal(frames[2].ts_ns, T0_REAL - 100000ull);
	rt_source_verbs_ops.close(&src);
	/* the conversion itself: hours of cycles at 1 GHz do not overflow */
	assert_int_equal(rt_verbs_cycles_to_ns(3600ull * 1000000000u * 24, 1000000),
	                 3600ull * 1000000000u * 24);
	assert_int_equal(rt_verbs_cycles_to_ns(3, 1000), 3000); /* 3 cycles at 1 MHz */
}

static void test_timestamp_system_clock(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	fake.wallclock = false;
	fake.rawclock = false;
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	assert_int_equal(src.ts_source, RT_TS_SOFTWARE);
	assert_int_equal(fake.n_cq, 2);
	assert_int_equal(fake.cq_flags[1], IBV_WC_EX_WITH_BYTE_LEN);
	queue(0, IBV_WC_SUCCESS, 60, 777);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), 1);
	assert_int_equal(frames[0].ts_ns, T0_REAL);
	rt_source_verbs_ops.close(&src);
}

static void test_break_and_timeout(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	rt_source_verbs_ops.breakloop(&src);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), -EINTR);
	uint64_t before = fake.mono_ns;
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), -EAGAIN);
	/* waited about the 100 ms default */
	assert_true(fake.mono_ns - before >= 100000000u);
	assert_true(fake.mono_ns - before <= 200000000u);
	rt_source_verbs_ops.close(&src);
}

/*
 * A flush completion means the QP went to the error state: the frames before
 * it are delivered, then an error, instead of re-posting into a dead queue
 * (which only flushes again) for ever.
 */
static void test_flushed_queue_is_an_error(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[8];
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(open_src(&src, &ring_cfg, errbuf), 0);
	queue(1, IBV_WC_SUCCESS, 100, T0_REAL);
	queue(2, IBV_WC_WR_FLUSH_ERR, 0, 0);
	queue(3, IBV_WC_WR_FLUSH_ERR, 0, 0);
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 8, errbuf), 1);
	assert_int_equal(frames[0].data[0], 1);
	int post_calls = fake.n_log;
	errbuf[0] = '\0';
	int rc = rt_source_verbs_ops.next(&src, frames, 8, errbuf);
	assert_true(rc < 0 && rc != -EAGAIN && rc != -EINTR);
	assert_non_null(strstr(errbuf, "mock0:1"));
	assert_non_null(strstr(errbuf, "error state"));
	assert_int_equal(fake.n_log, post_calls);
	assert_false(fake.owned[2]); /* not handed back to the dead queue */
	rt_source_verbs_ops.close(&src);
}

/* A busy port whose every frame the filter drops still returns at the timeout (-EAGAIN). */
static void test_filtered_stream_keeps_the_timeout(void **state)
{
	(void)state;
	struct rt_source src;
	struct rt_frame frames[4];
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_source_config cfg = ring_cfg;
	cfg.bpf = "ether[0] != 3";
	assert_int_equal(open_src(&src, &cfg, errbuf), 0);
	fake.endless_left = 1000000;
	uint64_t before = fake.mono_ns;
	assert_int_equal(rt_source_verbs_ops.next(&src, frames, 4, errbuf), -EAGAIN);
	assert_true(fake.endless_left > 0); /* returned while filtered frames kept coming */
	assert_true(fake.mono_ns - before >= 100000000u);
	assert_true(fake.mono_ns - before <= 200000000u);
	assert_int_equal(rt_source_verbs_ops.stats(&src, &st, errbuf), 0);
	assert_int_equal(st.received, 0);
	rt_source_verbs_ops.close(&src);
}

static void test_registry_claims_rdma_names(void **state)
{
	(void)state;
	char root[] = "/tmp/rt-verbs-test-XXXXXX", path[512];
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/class", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/class/infiniband/mock0", root);
	assert_int_equal(mkdir(path, 0755), 0);
	struct rt_source_config cfg = ring_cfg;
	cfg.sysfs_root = root;
	assert_true(rt_source_verbs_ops.is_ours("mock0", &cfg));
	assert_true(rt_source_verbs_ops.is_ours("mock0:2", &cfg));
	assert_false(rt_source_verbs_ops.is_ours("eth0", &cfg));
	assert_false(rt_source_verbs_ops.is_ours("../mock0", &cfg));
	struct rt_source *src = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_open(&src, "mock0:1", &cfg, errbuf), 0);
	assert_string_equal(src->ops->kind, "verbs");
	rt_source_close(src);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open_sequence_and_attributes, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_port_two, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_teardown_on_every_failure, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_error_messages, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_error_completion_reposts_and_counts, setup,
	                                    teardown_api),
	    cmocka_unit_test_setup_teardown(test_snaplen_filter_and_batches, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_ring_empty_counts_a_drop, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_timestamp_raw_clock, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_timestamp_system_clock, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_break_and_timeout, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_filtered_stream_keeps_the_timeout, setup,
	                                    teardown_api),
	    cmocka_unit_test_setup_teardown(test_flushed_queue_is_an_error, setup, teardown_api),
	    cmocka_unit_test_setup_teardown(test_registry_claims_rdma_names, setup, teardown_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

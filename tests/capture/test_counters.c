/* Unit tests of the counter sampler and the sysfs lookups against a fake sysfs tree. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/counters.h"
#include "capture/source.h"
#include "common/sysfs.h"

static char root[] = "/tmp/rt-counters-test-XXXXXX";

static void put_file(const char *rel, const char *text)
{
	char path[512], cmd[1200];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int make_tree(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	put_file("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", "12\n");
	put_file("class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_handled", "40\n");
	put_file("class/infiniband/mlx5_0/ports/1/hw_counters/lifespan_note", "not a number\n");
	put_file("numbers/speed", "-1\n");
	put_file("numbers/flags", "0x1003\n");
	put_file("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "123456\n");
	put_file("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "lo\n");
	put_file("class/infiniband/mlx5_0/ports/2/counters/port_xmit_data", "1\n");
	put_file("class/infiniband/mlx5_1/device/net/ens1f1/mtu", "9000\n");
	put_file("class/infiniband/mlx5_1/ports/1/counters/port_rcv_data", "7\n");
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_sysfs_lookups(void **state)
{
	(void)state;
	char dev[RT_DEVNAME_MAX], netdev[RT_DEVNAME_MAX];
	unsigned port;
	assert_int_equal(rt_rdma_split_name("mlx5_0:2", dev, &port), 0);
	assert_string_equal(dev, "mlx5_0");
	assert_int_equal(port, 2);
	assert_int_equal(rt_rdma_split_name("rocep11s0", dev, &port), 0);
	assert_int_equal(port, 1);
	assert_int_equal(rt_rdma_split_name("mlx5_0:0", dev, &port), -EINVAL);
	assert_int_equal(rt_rdma_split_name("mlx5_0:", dev, &port), -EINVAL);
	assert_true(rt_rdma_name_is_device(root, "mlx5_0"));
	assert_true(rt_rdma_name_is_device(root, "mlx5_1:1"));
	assert_false(rt_rdma_name_is_device(root, "eth0"));
	assert_false(rt_rdma_name_is_device(root, "any"));
	/* gid_attrs/ndevs/0 first, device/net/ otherwise */
	assert_int_equal(rt_rdma_port_netdev(root, "mlx5_0", 1, netdev), 0);
	assert_string_equal(netdev, "lo");
	assert_int_equal(rt_rdma_port_netdev(root, "mlx5_1", 1, netdev), 0);
	assert_string_equal(netdev, "ens1f1");
	assert_int_equal(rt_rdma_find_by_netdev(root, "ens1f1", dev, &port), 0);
	assert_string_equal(dev, "mlx5_1");
	assert_int_equal(port, 1);
	assert_int_equal(rt_rdma_find_by_netdev(root, "eth9", dev, &port), -ENOENT);

	/* signed and hex numbers (a netdev's speed without link, its flags) */
	char path[512];
	int64_t v;
	snprintf(path, sizeof(path), "%s/numbers/speed", root);
	assert_int_equal(rt_sysfs_read_i64(path, &v), 0);
	assert_true(v == -1);
	snprintf(path, sizeof(path), "%s/numbers/flags", root);
	assert_int_equal(rt_sysfs_read_i64(path, &v), 0);
	assert_true(v == 0x1003);
	snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan_note",
	         root);
	assert_int_equal(rt_sysfs_read_i64(path, &v), -EINVAL);
	snprintf(path, sizeof(path), "%s/numbers/absent", root);
	assert_int_equal(rt_sysfs_read_i64(path, &v), -ENOENT);
}

/* What the sampler reads for a capture device: an RDMA name or a netdev, each found from the other. */
static void test_targets(void **state)
{
	(void)state;
	char rdev[RT_DEVNAME_MAX], netdev[RT_DEVNAME_MAX];
	struct rt_counters_config cc = {0};
	rt_counters_targets("mlx5_0", root, &cc, rdev, netdev);
	assert_string_equal(cc.dev, "mlx5_0");
	assert_int_equal(cc.port, 1);
	assert_string_equal(cc.netdev, "lo");

	memset(&cc, 0, sizeof(cc));
	rt_counters_targets("mlx5_0:2", root, &cc, rdev, netdev);
	assert_string_equal(cc.dev, "mlx5_0");
	assert_int_equal(cc.port, 2);
	assert_null(cc.netdev); /* port 2 has no netdev */

	memset(&cc, 0, sizeof(cc));
	rt_counters_targets("ens1f1", root, &cc, rdev, netdev);
	assert_string_equal(cc.netdev, "ens1f1");
	assert_string_equal(cc.dev, "mlx5_1");
	assert_int_equal(cc.port, 1);

	memset(&cc, 0, sizeof(cc));
	rt_counters_targets("eth9", root, &cc, rdev, netdev);
	assert_string_equal(cc.netdev, "eth9");
	assert_null(cc.dev);
}

/* Every line a JSON object as docs/FORMATS.md says; returns the number of lines. */
static int check_lines(const char *path, bool want_netdev)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char line[65536];
	int n = 0;
	while (fgets(line, sizeof(line), fp)) {
		n++;
		unsigned long long s, ns;
		int used = 0;
		assert_int_equal(sscanf(line, "{\"ts\":\"%llu.%9llu\"%n", &s, &ns, &used), 2);
		assert_int_equal(line[used - 11], '.'); /* nine fractional digits */
		assert_true(s > 1500000000ull);
		assert_non_null(strstr(line, ",\"dev\":\"mlx5_0\",\"port\":1,"));
		assert_non_null(strstr(line, "\"np_cnp_sent\":12"));
		assert_non_null(strstr(line, "\"rp_cnp_handled\":40"));
		assert_non_null(strstr(line, "\"port_xmit_data\":123456"));
		assert_null(strstr(line, "lifespan_note"));
		assert_true((strstr(line, "\"netdev\":") != NULL) == want_netdev);
		assert_non_null(strstr(line, "}}\n"));
	}
	fclose(fp);
	return n;
}

static void test_sample_lines(void **state)
{
	(void)state;
	char path[512], errbuf[RT_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/run.pcapng.counters.jsonl", root);
	/* lo has no ethtool statistics: no "netdev" key */
	struct rt_counters_config cfg = {.path = path,
	                                 .sysfs_root = root,
	                                 .dev = "mlx5_0",
	                                 .port = 1,
	                                 .netdev = "lo",
	                                 .interval_ns = 20000000};
	struct rt_counters *c;
	assert_int_equal(rt_counters_open(&c, &cfg, errbuf), 0);
	assert_int_equal(rt_counters_sample(c, errbuf), 0);
	assert_int_equal(rt_counters_count(c), 3);
	assert_int_equal(rt_counters_stop(c, errbuf), 0);
	assert_int_equal(check_lines(path, false), 2);
}

/* What rt_counters_set_sample_fn hands over: each sample's counters, port counters named by device and port. */
struct seen {
	unsigned calls, n;
	char dev[3][32], name[3][64];
	unsigned port[3];
	uint64_t value[3];
};

static void keep_sample(void *ctx, const struct rt_counter_value *v, unsigned n)
{
	struct seen *s = ctx;
	s->calls++;
	s->n = n;
	for (unsigned i = 0; i < n && i < 3; i++) {
		snprintf(s->dev[i], sizeof(s->dev[i]), "%s", v[i].dev);
		snprintf(s->name[i], sizeof(s->name[i]), "%s", v[i].name);
		s->port[i] = v[i].port;
		s->value[i] = v[i].value;
	}
}

static void test_sample_fn(void **state)
{
	(void)state;
	char path[512], errbuf[RT_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/fn.pcapng.counters.jsonl", root);
	struct rt_counters_config cfg = {.path = path,
	                                 .sysfs_root = root,
	                                 .dev = "mlx5_0",
	                                 .port = 1,
	                                 .netdev = "lo",
	                                 .interval_ns = 20000000};
	struct rt_counters *c;
	struct seen s = {0};
	assert_int_equal(rt_counters_open(&c, &cfg, errbuf), 0);
	rt_counters_set_sample_fn(c, keep_sample, &s);
	assert_int_equal(rt_counters_sample(c, errbuf), 0);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.n, 3); /* the three number files; "not a number" is left out */
	uint64_t sum = 0;
	for (unsigned i = 0; i < 3; i++) {
		assert_string_equal(s.dev[i], "mlx5_0");
		assert_int_equal(s.port[i], 1);
		if (!strcmp(s.name[i], "np_cnp_sent"))
			assert_int_equal(s.value[i], 12);
		if (!strcmp(s.name[i], "port_xmit_data"))
			assert_int_equal(s.value[i], 123456);
		sum += s.value[i];
	}
	assert_int_equal(sum, 12 + 40 + 123456);
	/* the final sample of the stop goes through it too */
	assert_int_equal(rt_counters_stop(c, errbuf), 0);
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.n, 3);
}

/* Lines of a file so far. */
static int count_lines(const char *path)
{
	FILE *fp = fopen(path, "r");
	int n = 0, c;

	if (!fp)
		return 0;
	while ((c = getc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

/* The "ts" of each line, in nanoseconds; returns how many. */
static int line_times(const char *path, uint64_t *ts, int max)
{
	FILE *fp = fopen(path, "r");
	char line[65536];
	int n = 0;

	assert_non_null(fp);
	while (n < max && fgets(line, sizeof(line), fp)) {
		unsigned long long s, ns;
		assert_int_equal(sscanf(line, "{\"ts\":\"%llu.%9llu\"", &s, &ns), 2);
		ts[n++] = s * 1000000000ull + ns;
	}
	fclose(fp);
	return n;
}

/*
 * The thread samples on its own until stopped. Nothing here depends on how
 * fast the machine is: the test waits (up to a minute) until three periodic
 * samples are written, and checks from the lines' own timestamps that the
 * k-th periodic sample was not taken before k intervals had passed since the
 * first one (a sampler ignoring its interval, or taking one sample twice,
 * fails), however late the thread ran.
 */
static void test_sampler_thread(void **state)
{
	(void)state;
	char path[512], errbuf[RT_ERRBUF_SIZE];
	const uint64_t interval = 20000000;
	snprintf(path, sizeof(path), "%s/thread.counters.jsonl", root);
	struct rt_counters_config cfg = {
	    .path = path, .sysfs_root = root, .dev = "mlx5_0", .port = 1, .interval_ns = interval};
	struct rt_counters *c;
	assert_int_equal(rt_counters_open(&c, &cfg, errbuf), 0);
	assert_int_equal(rt_counters_start(c, errbuf), 0);
	/* the start sample and three periodic ones, polled every 10 ms for at most 60 s */
	struct timespec poll = {0, 10000000};
	for (int i = 0; i < 6000 && count_lines(path) < 4; i++)
		nanosleep(&poll, NULL);
	assert_int_equal(rt_counters_stop(c, errbuf), 0);
	/* start, periodic samples, the stop sample: each line complete */
	int n = check_lines(path, false);
	assert_true(n >= 5);
	uint64_t ts[4096];
	assert_int_equal(line_times(path, ts, 4096), n);
	for (int k = 1; k < n; k++)
		assert_true(ts[k] >= ts[k - 1]);
	/* 1 ms of slack for the realtime clock being slewed against the monotonic one */
	for (int k = 1; k < n - 1; k++)
		if (ts[k] + 1000000 < ts[0] + (uint64_t)k * interval)
			fail_msg(
			    "periodic sample %d came %llu ns after the first, before %d intervals",
			    k, (unsigned long long)(ts[k] - ts[0]), k);
}

/* Start with a zero interval: refused, and stop still writes its sample and closes. */
static void test_zero_interval(void **state)
{
	(void)state;
	char path[512], errbuf[RT_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/zero.counters.jsonl", root);
	struct rt_counters_config cfg = {
	    .path = path, .sysfs_root = root, .dev = "mlx5_0", .port = 1};
	struct rt_counters *c;
	assert_int_equal(rt_counters_open(&c, &cfg, errbuf), 0);
	assert_int_equal(rt_counters_start(c, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "interval"));
	assert_int_equal(rt_counters_stop(c, errbuf), 0);
	assert_int_equal(check_lines(path, false), 2);
}

static void fixed_capture_stats(void *ctx, struct rt_source_stats *st)
{
	assert_string_equal(ctx, "stats");
	st->received = 1000;
	st->dropped = 42;
	st->if_dropped = 3;
	st->drops_known = true;
}

/* The capture's own counts as the last line, after the stop sample. */
static void test_capture_line(void **state)
{
	(void)state;
	char path[512], errbuf[RT_ERRBUF_SIZE], line[4096], last[4096] = "";
	snprintf(path, sizeof(path), "%s/cap.counters.jsonl", root);
	struct rt_counters_config cfg = {.path = path,
	                                 .sysfs_root = root,
	                                 .dev = "mlx5_0",
	                                 .port = 1,
	                                 .interval_ns = 1000000000};
	struct rt_counters *c;
	assert_int_equal(rt_counters_open(&c, &cfg, errbuf), 0);
	rt_counters_set_capture(c, "eth0", fixed_capture_stats, "stats");
	assert_int_equal(rt_counters_start(c, errbuf), 0);
	assert_int_equal(rt_counters_stop(c, errbuf), 0);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	int n = 0;
	while (fgets(line, sizeof(line), fp)) {
		memcpy(last, line, sizeof(line));
		n++;
	}
	fclose(fp);
	assert_int_equal(n, 3); /* start sample, stop sample, capture line */
	assert_non_null(
	    strstr(last, "\"capture\":{\"device\":\"eth0\",\"received\":1000,\"os_dropped\":42,"
	                 "\"if_dropped\":3}}\n"));
	assert_true(strncmp(last, "{\"ts\":\"", 7) == 0);
}

static void test_open_errors(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_counters *c;
	struct rt_counters_config cfg = {.path = "/nonexistent/dir/x.counters.jsonl",
	                                 .sysfs_root = root,
	                                 .dev = "mlx5_0",
	                                 .port = 1,
	                                 .interval_ns = 1000000000};
	assert_int_equal(rt_counters_open(&c, &cfg, errbuf), -ENOENT);
	assert_non_null(strstr(errbuf, "/nonexistent/dir/x.counters.jsonl"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sysfs_lookups),  cmocka_unit_test(test_targets),
	    cmocka_unit_test(test_sample_lines),   cmocka_unit_test(test_sample_fn),
	    cmocka_unit_test(test_sampler_thread), cmocka_unit_test(test_zero_interval),
	    cmocka_unit_test(test_capture_line),   cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, make_tree, remove_tree);
}

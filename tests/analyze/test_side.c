/* Unit tests of the side-file reader: every counter of a sample line, counters read exactly, bad lines counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/side.h"

struct fixture {
	struct an_buckets bk;
	struct an_side side;
	char path[64];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	an_side_init(&fx->side, NULL, &fx->bk);
	snprintf(fx->path, sizeof(fx->path), "/tmp/rt-test-side-XXXXXX");
	int fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	close(fd);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	an_side_free(&fx->side);
	free(fx->bk.series);
	unlink(fx->path);
	free(fx);
	return 0;
}

/* The counter `name` of the side's device `dev`: its index, or fail. */
static size_t counter(const struct an_side *s, const char *dev, const char *name)
{
	for (size_t k = 0; k < s->ncdev; k++) {
		if (strcmp(s->cdev[k].name, dev))
			continue;
		for (size_t i = 0; i < s->cdev[k].n; i++)
			if (!strcmp(s->cdev[k].names[i], name))
				return i;
	}
	fail_msg("no counter %s of %s", name, dev);
	return 0;
}

/* The counters file holding `text`, loaded. */
static void load(struct fixture *fx, const char *text)
{
	FILE *fp = fopen(fx->path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(an_side_load_counters(&fx->side, fx->path, errbuf), 0);
}

/* One sample of device mlx5_0 port 1: `n` queue counters, then the CNP and pause counters at `v`. */
static void write_sample(FILE *fp, unsigned sec, unsigned n, uint64_t v)
{
	fprintf(fp, "{\"ts\":\"%u.000000000\",\"dev\":\"mlx5_0\",\"port\":1,\"counters\":{", sec);
	for (unsigned i = 0; i < n; i++)
		fprintf(fp, "\"rx_queue_%u_packets\":%u,", i, i + sec);
	fprintf(fp,
	        "\"np_cnp_sent\":%llu,\"rp_cnp_handled\":%llu,\"rx_prio3_pause\":%llu,"
	        "\"tx_prio3_pause_duration\":%llu}}\n",
	        (unsigned long long)v, (unsigned long long)v * 2, (unsigned long long)v * 3,
	        (unsigned long long)v * 4);
}

/*
 * `capture --counters` writes every counter of a device on one line: with
 * many queues, thousands. The CNP and pause counters after the 1024th are
 * read too, and joined to the timeline.
 */
static void test_counters_past_1024(void **state)
{
	struct fixture *fx = *state;
	FILE *fp = fopen(fx->path, "w");
	assert_non_null(fp);
	write_sample(fp, 1700000000, 5000, 10);
	write_sample(fp, 1700000001, 5000, 17);
	assert_int_equal(fclose(fp), 0);
	fx->bk.len = 1000000; /* with buckets: the deltas join the timeline too */
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(an_side_load_counters(&fx->side, fx->path, errbuf), 0);
	const struct an_side *s = &fx->side;
	assert_int_equal(s->counter_lines, 2);
	assert_int_equal(s->counter_bad, 0);
	assert_int_equal(s->ncdev, 1);
	assert_int_equal(s->cdev[0].n, 5004);
	assert_int_equal(s->cdev[0].samples, 2);
	const struct an_counter_dev *d = &s->cdev[0];
	assert_true(an_side_delta(d, counter(s, "mlx5_0/1", "rx_queue_4999_packets")) == 1.0);
	assert_true(an_side_delta(d, counter(s, "mlx5_0/1", "np_cnp_sent")) == 7.0);
	assert_true(an_side_delta(d, counter(s, "mlx5_0/1", "rp_cnp_handled")) == 14.0);
	bool found = false;
	assert_true(an_side_sum_delta(s, "rx_prio3_pause", &found) == 21.0);
	assert_true(found);
	assert_true(an_side_sum_delta(s, "tx_prio3_pause_duration", &found) == 28.0);
	/* the timeline: CNPs sent, handled and pause frames of the second sample */
	assert_int_equal(fx->bk.nseries, 3);
	double want[3] = {7, 14, 21};
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(fx->bk.series[i].kind, AN_SER_NIC_CNP_SENT + i);
		assert_true(fx->bk.series[i].v == want[i]);
		assert_true(fx->bk.series[i].ts == 1700000001000000000ull);
	}
}

/* Counters up to 2^64-1 are read exactly; a line with a larger, negative or fractional one is a bad line. */
static void test_counters_exact(void **state)
{
	struct fixture *fx = *state;
	load(fx,
	     "{\"ts\":\"1.0\",\"netdev\":\"eth0\",\"counters\":{\"rx_bytes\":18446744073709551000,"
	     "\"tx_bytes\":9007199254740993,\"name\":\"x\"}}\n"
	     "{\"ts\":\"2.0\",\"netdev\":\"eth0\",\"counters\":{\"rx_bytes\":18446744073709551615,"
	     "\"tx_bytes\":9007199254740995}}\n"
	     "{\"ts\":\"3.0\",\"netdev\":\"eth0\",\"counters\":{\"rx_bytes\":18446744073709551616}}"
	     "\n"
	     "{\"ts\":\"3.0\",\"netdev\":\"eth0\",\"counters\":{\"rx_bytes\":-1}}\n"
	     "{\"ts\":\"3.0\",\"netdev\":\"eth0\",\"counters\":{\"tx_bytes\":9.5}}\n"
	     "{\"ts\":\"3.0\",\"netdev\":\"eth0\",\"counters\":{\"tx_bytes\":[1]}}\n"
	     "{\"ts\":\"3.0\",\"netdev\":\"eth0\",\"counters\":{\"tx_bytes\":1},\"more\":{}}\n");
	const struct an_side *s = &fx->side;
	assert_int_equal(s->counter_lines, 7);
	assert_int_equal(s->counter_bad, 5);
	const struct an_counter_dev *d = &s->cdev[0];
	assert_string_equal(d->name, "eth0");
	assert_int_equal(d->samples, 2);
	/* no double tells these apart from their neighbours */
	assert_true(an_side_delta(d, counter(s, "eth0", "rx_bytes")) == 615.0);
	assert_true(an_side_delta(d, counter(s, "eth0", "tx_bytes")) == 2.0);
}

/* The capture's statistics line: drop counts read exactly; one without both is bad. */
static void test_capture_line(void **state)
{
	struct fixture *fx = *state;
	load(fx, "{\"ts\":\"1.0\",\"capture\":{\"device\":\"eth0\",\"os_dropped\":1}}\n"
	         "{\"ts\":\"2.0\",\"capture\":{\"device\":\"eth0\",\"received\":5,"
	         "\"os_dropped\":18446744073709551615,\"if_dropped\":9007199254740993}}\n");
	assert_true(fx->side.drops_known);
	assert_true(fx->side.os_dropped == UINT64_MAX);
	assert_true(fx->side.if_dropped == 9007199254740993ull);
	assert_int_equal(fx->side.counter_bad, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_counters_past_1024, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_counters_exact, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_line, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

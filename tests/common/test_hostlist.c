/* Unit tests of Slurm hostlist expressions: expansions as scontrol show hostnames gave them, the
 * refusals, the limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostlist.h"

/* The names of hl joined with spaces, into buf. */
static const char *joined(const struct rt_hostlist *hl, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < hl->n && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? " " : "", hl->names[i]);
	return buf;
}

/* What `scontrol show hostnames EXPR` of Slurm 22.05.8 printed (lines joined with spaces). */
static const struct {
	const char *expr, *names;
} scontrol[] = {
    {"node[01-16,20]", "node01 node02 node03 node04 node05 node06 node07 node08 node09 node10 "
                       "node11 node12 node13 node14 node15 node16 node20"},
    {"h[1-3]", "h1 h2 h3"},
    {"a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4"},
    {"a[1-2]b[1-2]c[1-2]", "a1b1c1 a1b1c2 a2b1c1 a2b1c2 a1b2c1 a1b2c2 a2b2c1 a2b2c2"},
    {"a[1-2]b[1-2]c[1-2]d[1-2]",
     "a1b1c1d1 a1b1c1d2 a2b1c1d1 a2b1c1d2 a1b2c1d1 a1b2c1d2 a2b2c1d1 a2b2c1d2 a1b1c2d1 a1b1c2d2 "
     "a2b1c2d1 a2b1c2d2 a1b2c2d1 a1b2c2d2 a2b2c2d1 a2b2c2d2"},
    {"a[3,1-2]b[2,1]c[5]", "a3b2c5 a1b2c5 a2b2c5 a3b1c5 a1b1c5 a2b1c5"},
    {"n[001-3]", "n001 n002 n003"},
    {"n[1-0010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10"},
    {"n[8-12]", "n8 n9 n10 n11 n12"},
    {"n[098-101]", "n098 n099 n100 n101"},
    {"n[0]", "n0"},
    {"n[007]", "n007"},
    {"n[1-3,2]", "n1 n2 n3 n2"},
    {"rack[1-2]-node[01-02]", "rack1-node01 rack1-node02 rack2-node01 rack2-node02"},
    {"n1-[1-2]", "n1-1 n1-2"},
    {"[1-2]", "1 2"},
    {"n[1-2][3]", "n13 n23"},
    {"x", "x"},
    {"a,,b", "a b"},
    {"n[1-2] m,gpu[9-10]", "n1 n2 m gpu9 gpu10"},
    {"n[00-02]x[9-10]", "n00x9 n00x10 n01x9 n01x10 n02x9 n02x10"},
};

static void test_as_scontrol(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(scontrol) / sizeof(scontrol[0]); i++) {
		struct rt_hostlist hl = {0};
		char err[RT_ERRBUF_SIZE] = "", buf[1024];
		int rc = rt_hostlist_expand(&hl, scontrol[i].expr, 4096, err);
		if (rc != 0 || strcmp(joined(&hl, buf, sizeof(buf)), scontrol[i].names))
			fail_msg("%s: got '%s' (%s), want '%s'", scontrol[i].expr, buf, err,
			         scontrol[i].names);
		rt_hostlist_free(&hl);
	}
}

/* What is refused, with the sentence that says why (scontrol refuses all but the last four). */
static const struct {
	const char *expr, *error;
} refused[] = {
    {"n[3-1]", "'n[3-1]': the range 3-1 goes down"},
    {"n[]", "'n[]': empty brackets"},
    {"n[1-2", "'n[1-2': '[' without ']'"},
    {"n1-2]", "'n1-2]': ']' without '['"},
    {"n[[1-2]]", "'n[[1-2]]': brackets inside brackets"},
    {"n[a-b]", "'n[a-b]': 'a-b' is neither a number N nor a range N-M (digits only, below 2^64)"},
    {"n[1--2]", "'n[1--2]': '1--2' is neither a number N nor a range N-M"},
    {"n[1,]", "'n[1,]': '' is neither a number N nor a range N-M"},
    {"n[1-3]x", "'n[1-3]x': text after the last ']' ('x'), which Slurm does not allow either"},
    {"n[1-2].ib", "'n[1-2].ib': text after the last ']' ('.ib')"},
    {"n[1-70000]", "'n[1-70000]': more than 4096 hosts"},
    /* scontrol takes these, leniently: n1; n01 n02; n18446744073709551615; 1 0-padded */
    {"n[1-]", "'n[1-]': '1-' is neither"},
    {"n[ 1-2]", "'n[ 1-2]': ' 1-2' is neither"},
    {"n[18446744073709551616]", "'18446744073709551616' is neither"},
    {"n[1-18446744073709551616]", "'1-18446744073709551616' is neither"},
};

static void test_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct rt_hostlist hl = {0};
		char err[RT_ERRBUF_SIZE] = "";
		int rc = rt_hostlist_expand(&hl, refused[i].expr, 4096, err);
		if (rc >= 0 || !strstr(err, refused[i].error))
			fail_msg("%s: rc %d, '%s', want '%s'", refused[i].expr, rc, err,
			         refused[i].error);
		assert_int_equal(hl.n, 0);
		rt_hostlist_free(&hl);
	}
}

static void test_limits(void **state)
{
	(void)state;
	struct rt_hostlist hl = {0};
	char err[RT_ERRBUF_SIZE], buf[256];
	/* the largest numbers, and a count of names that wraps 64 bits */
	assert_int_equal(
	    rt_hostlist_expand(&hl, "n[18446744073709551614-18446744073709551615]", 10, err), 0);
	assert_string_equal(joined(&hl, buf, sizeof(buf)),
	                    "n18446744073709551614 n18446744073709551615");
	assert_int_equal(rt_hostlist_expand(&hl, "n[0-18446744073709551615]", 10, err), -E2BIG);
	assert_int_equal(
	    rt_hostlist_expand(&hl, "a[1-65536]b[1-65536]c[1-65536]d[1-65536]", 10, err), -E2BIG);
	/* max counts every name of hl: the second list must fit beside the first */
	assert_int_equal(rt_hostlist_expand(&hl, "m[1-8]", 10, err), 0);
	assert_int_equal(rt_hostlist_expand(&hl, "k[1-2]", 10, err), -E2BIG);
	assert_string_equal(err, "'k[1-2]': more than 10 hosts");
	assert_int_equal(hl.n, 10);
	rt_hostlist_free(&hl);
	/* a name longer than a DNS name */
	char longname[300];
	memset(longname, 'a', 256);
	strcpy(longname + 256, "[1-2]");
	assert_int_equal(rt_hostlist_expand(&hl, longname, 10, err), -EINVAL);
	assert_non_null(strstr(err, "a name longer than 255 characters"));
	longname[250] = '\0';
	strcat(longname, "[000001-2]");
	assert_int_equal(rt_hostlist_expand(&hl, longname, 10, err), -EINVAL);
	longname[250] = '\0';
	strcat(longname, "[1-2]");
	assert_int_equal(rt_hostlist_expand(&hl, longname, 10, err), 0);
	assert_int_equal(strlen(hl.names[1]), 251);
	rt_hostlist_free(&hl);
	/* one item at a time: rt_hostlist_add refuses a separator outside brackets */
	assert_int_equal(rt_hostlist_add(&hl, "a,b", 3, 10, err), -EINVAL);
	assert_int_equal(rt_hostlist_add(&hl, "", 0, 10, err), -EINVAL);
	assert_string_equal(err, "an empty host name");
	/* a failed item leaves what came before it */
	assert_int_equal(rt_hostlist_expand(&hl, "a,b[1-2],c[2-1]", 10, err), -EINVAL);
	assert_string_equal(joined(&hl, buf, sizeof(buf)), "a b1 b2");
	rt_hostlist_free(&hl);
}

static void test_item_len(void **state)
{
	(void)state;
	assert_int_equal(rt_hostlist_item_len("n[1-2,5],m"), 8);
	assert_int_equal(rt_hostlist_item_len("a b"), 1);
	assert_int_equal(rt_hostlist_item_len(",a"), 0);
	assert_int_equal(rt_hostlist_item_len("n[1,2"), 5);
	assert_int_equal(rt_hostlist_item_len("n[1-2]=mlx5_0,m"), 13);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_as_scontrol),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_item_len),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

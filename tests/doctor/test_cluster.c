/* Unit tests of what doctor tells a cluster: the consistency table over hand-written host reports,
 * and the one line of --prolog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"
#include "common/json_read.h"
#include "common/outbuf.h"
#include "doctor/consistency.h"
#include "doctor/prolog.h"

/* One target's report as doctor --json writes it, with these settings. */
static char *target(const char *dev, int mtu, const char *trust, const char *pfc, int gid,
                    const char *ecn_np)
{
	static char buf[4][2048];
	static int next;
	char *t = buf[next++ % 4], map[400] = "[";
	for (int d = 0; d < 64; d++)
		snprintf(map + strlen(map), sizeof(map) - strlen(map), "%s%s", d ? "," : "",
		         d == 26   ? "3"
		         : d == 48 ? "6"
		                   : "null");
	strcat(map, "]");
	char mtu_s[16] = "null", gid_s[16] = "null", trust_s[16] = "null";
	if (mtu >= 0)
		snprintf(mtu_s, sizeof(mtu_s), "%d", mtu);
	if (gid >= 0)
		snprintf(gid_s, sizeof(gid_s), "%d", gid);
	if (trust)
		snprintf(trust_s, sizeof(trust_s), "\"%s\"", trust);
	snprintf(
	    t, 2048,
	    "{\"device\":\"%s\",\"port\":1,\"netdev\":\"eth0\",\"gid_index\":%s,\"checks\":{},"
	    "\"settings\":{\"mtu\":%s,\"trust\":%s,\"pfc\":%s,\"dscp2prio\":%s,\"cnp_dscp\":48,"
	    "\"cnp_prio\":6,\"ecn_np\":%s,\"ecn_rp\":[null,null,null,null,null,null,null,null]}}",
	    dev, gid_s, mtu_s, trust_s, pfc, map, ecn_np);
	return t;
}

/* The parsed reports of one test, freed together by free_reports(). */
static struct rt_jdoc g_docs[8];
static int g_ndocs;

static const struct rt_jval *report(const char *t1, const char *t2)
{
	char doc[8192], err[RT_ERRBUF_SIZE];
	snprintf(doc, sizeof(doc), "{\"host\":\"x\",\"targets\":[%s%s%s]}", t1, t2 ? "," : "",
	         t2 ? t2 : "");
	assert_true(g_ndocs < 8);
	struct rt_jdoc *d = &g_docs[g_ndocs++];
	rt_jdoc_init(d);
	if (rt_jdoc_parse(d, doc, strlen(doc), err) < 0)
		fail_msg("%s: %s", doc, err);
	return d->root;
}

static void free_reports(void)
{
	while (g_ndocs > 0)
		rt_jdoc_free(&g_docs[--g_ndocs]);
}

#define ON3 "[false,false,false,true,false,false,false,false]"

static const struct rt_doc_consistency_row *row(const struct rt_doc_consistency *c, const char *n)
{
	for (int s = 0; s < RT_DOC_CONSISTENCY_ROWS; s++)
		if (!strcmp(c->rows[s].name, n))
			return &c->rows[s];
	fail_msg("no row %s", n);
	return NULL;
}

/* The text table of c (to free). */
static char *table(const struct rt_doc_consistency *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	rt_doc_consistency_text(c, fp);
	fclose(fp);
	return text;
}

static void test_consistency(void **state)
{
	(void)state;
	const char *hosts[] = {"n1", "n2", "n3", "n4", "gone"};
	const struct rt_jval *docs[5] = {
	    report(target("mlx5_0", 4200, "dscp", "[3]", 3, ON3), NULL),
	    report(target("mlx5_0", 4200, "dscp", "[3]", 3, ON3), NULL),
	    /* two ports that disagree on the MTU; ECN switches unknown */
	    report(target("mlx5_0", 4200, "dscp", "[3,4]", 3,
	                  "[null,null,null,null,null,null,null,"
	                  "null]"),
	           target("mlx5_1", 1500, "dscp", "[3,4]", 3,
	                  "[null,null,null,null,null,null,null,"
	                  "null]")),
	    /* trust unknown, no RoCE v2 GID */
	    report(target("mlx5_0", 9000, NULL, "[3]", -1, ON3), NULL),
	    NULL,
	};
	struct rt_doc_consistency c;
	assert_int_equal(rt_doc_consistency_build(&c, hosts, docs, 5), 0);
	const struct rt_doc_consistency_row *r = row(&c, "mtu");
	assert_string_equal(r->common, "4200");
	assert_int_equal(r->common_hosts, 2);
	assert_int_equal(r->known, 4);
	assert_string_equal(r->value[2], "mlx5_0:1 4200; mlx5_1:1 1500");
	assert_string_equal(r->value[3], "9000");
	assert_null(r->value[4]);
	r = row(&c, "trust");
	assert_string_equal(r->common, "dscp");
	assert_int_equal(r->known, 3);
	assert_null(r->value[3]);
	r = row(&c, "pfc");
	assert_string_equal(r->value[2], "3,4");
	assert_int_equal(r->common_hosts, 3);
	r = row(&c, "dscp2prio");
	assert_string_equal(r->common, "26:3 48:6");
	r = row(&c, "gid_index");
	assert_string_equal(r->value[3], "none");
	r = row(&c, "ecn_np");
	assert_string_equal(r->common, "3");
	assert_null(r->value[2]);
	r = row(&c, "ecn_rp");
	assert_int_equal(r->known, 0);
	assert_null(r->common);

	char *text = table(&c);
	assert_non_null(strstr(text, "  mtu          4200 on 2 of 4 hosts\n"
	                             "             * n3: mlx5_0:1 4200; mlx5_1:1 1500\n"
	                             "             * n4: 9000\n"));
	assert_non_null(strstr(text, "  trust        dscp on 3 of 3 hosts\n"
	                             "             ? n4: unknown\n"));
	assert_non_null(strstr(text, "  ecn_rp       unknown on every host\n"));
	assert_null(strstr(text, "gone"));
	free(text);

	size_t len = 0;
	text = NULL;
	FILE *fp = open_memstream(&text, &len);
	static struct rt_outbuf o;
	struct rt_json j;
	rt_out_init(&o, fp);
	rt_json_init(&j, &o);
	rt_doc_consistency_json(&c, &j);
	rt_out_flush(&o);
	fclose(fp);
	assert_non_null(strstr(text,
	                       "{\"setting\":\"mtu\",\"value\":\"4200\",\"hosts\":{\"n1\":\"4200\","
	                       "\"n2\":\"4200\",\"n3\":\"mlx5_0:1 4200; mlx5_1:1 1500\","
	                       "\"n4\":\"9000\"},\"differ\":[\"n3\",\"n4\"]}"));
	assert_non_null(strstr(text, "\"setting\":\"trust\",\"value\":\"dscp\",\"hosts\":{\"n1\":"
	                             "\"dscp\",\"n2\":\"dscp\",\"n3\":\"dscp\",\"n4\":null},"
	                             "\"differ\":[]}"));
	free(text);
	rt_doc_consistency_free(&c);
	free_reports();
}

/* Two values on as many hosts: no value is the common one, every host differs. */
static void test_tie(void **state)
{
	(void)state;
	const char *hosts[] = {"a", "b"};
	const struct rt_jval *docs[2] = {
	    report(target("mlx5_0", 4200, "dscp", "[3]", 3, ON3), NULL),
	    report(target("mlx5_0", 1500, "dscp", "[3]", 3, ON3), NULL),
	};
	struct rt_doc_consistency c;
	assert_int_equal(rt_doc_consistency_build(&c, hosts, docs, 2), 0);
	assert_null(row(&c, "mtu")->common);
	assert_string_equal(row(&c, "trust")->common, "dscp");
	char *text = table(&c);
	assert_non_null(strstr(text, "  mtu          no value on most hosts\n"
	                             "             * a: 4200\n"
	                             "             * b: 1500\n"));
	free(text);
	rt_doc_consistency_free(&c);
	free_reports();
}

static struct rt_doc_check *add(struct rt_doc_target *t, const char *name, enum rt_doc_status s)
{
	struct rt_doc_check *c = &t->checks[t->nchecks++];
	c->name = name;
	c->status = s;
	return c;
}

static const char *prolog(const struct rt_doc_report *r, bool *ready)
{
	static char line[512];
	FILE *fp = fmemopen(line, sizeof(line), "w");
	*ready = rt_doctor_print_prolog(r, fp);
	fclose(fp);
	return line;
}

static void test_prolog(void **state)
{
	(void)state;
	struct rt_doc_target t[3];
	memset(t, 0, sizeof(t));
	struct rt_doc_report r = {.ntargets = 2, .targets = t};
	snprintf(t[0].dev, sizeof(t[0].dev), "mlx5_0");
	t[0].port = 1;
	snprintf(t[1].dev, sizeof(t[1].dev), "mlx5_1");
	t[1].port = 1;
	add(&t[0], "mtu", RT_DOC_PASS);
	add(&t[0], "ecn.np", RT_DOC_WARN);
	add(&t[1], "link.state", RT_DOC_UNCHECKED);
	bool ready;
	/* ready: nothing printed, warnings and what could not be checked allowed */
	assert_string_equal(prolog(&r, &ready), "");
	assert_true(ready);
	add(&t[0], "pfc.enabled", RT_DOC_FAIL);
	add(&t[0], "ecn.rp", RT_DOC_FAIL);
	add(&t[1], "mtu", RT_DOC_FAIL);
	assert_string_equal(
	    prolog(&r, &ready),
	    "rocetrace doctor: not ready: mlx5_0:1 pfc.enabled, ecn.rp; mlx5_1:1 mtu\n");
	assert_false(ready);
	/* a netdev without an RDMA port is named by the netdev; a host without an RDMA port is not
	 * ready */
	snprintf(t[2].netdev, sizeof(t[2].netdev), "eth1");
	add(&t[2], "link.netdev", RT_DOC_FAIL);
	r.ntargets = 3;
	assert_string_equal(prolog(&r, &ready),
	                    "rocetrace doctor: not ready: mlx5_0:1 pfc.enabled, "
	                    "ecn.rp; mlx5_1:1 mtu; eth1 link.netdev\n");
	r.targets = &t[2];
	r.ntargets = 1;
	assert_string_equal(prolog(&r, &ready), "rocetrace doctor: not ready: no RDMA port\n");
	assert_false(ready);
	r.ntargets = 0;
	assert_string_equal(prolog(&r, &ready), "rocetrace doctor: not ready: no RDMA port\n");
}

static void test_prolog_config(void **state)
{
	(void)state;
	struct rt_doctor_config cfg;
	rt_doctor_config_init(&cfg);
	rt_doctor_prolog_config(&cfg, false);
	assert_int_equal(cfg.interval_ns, RT_DOC_PROLOG_INTERVAL_NS);
	assert_true(cfg.tools_deadline_ns > 0);
	uint64_t deadline = cfg.tools_deadline_ns;
	/* an --interval given stays, and leaves the tools less time */
	cfg.interval_ns = 500000000u;
	rt_doctor_prolog_config(&cfg, true);
	assert_int_equal(cfg.interval_ns, 500000000u);
	assert_true(cfg.tools_deadline_ns + 300000000u < deadline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_consistency),
	    cmocka_unit_test(test_tie),
	    cmocka_unit_test(test_prolog),
	    cmocka_unit_test(test_prolog_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

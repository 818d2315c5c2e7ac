/* udp backend server: sockets, the poll loop over data and setup, interval lines, the summary. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "traffic/internal.h"

static void report_interval(struct rt_gen_srv *s, double t, double dt, uint64_t now)
{
	uint64_t by = s->iv_gone_bytes;
	for (unsigned i = 0; i < rt_gen_srv_slots_used(s); i++)
		if (s->qp[i].active)
			by += rt_gen_srv_qp_interval(s, &s->qp[i], dt, now);
	struct rt_gen_srv_totals tot = rt_gen_srv_totals(s);
	fprintf(s->report, "%8.3f %10.3f %12.0f %8llu %8llu %8llu\n", t, (double)by * 8 / dt / 1e9,
	        (double)(tot.messages - s->iv_msgs) / dt, (unsigned long long)tot.ce,
	        (unsigned long long)tot.cnps, (unsigned long long)tot.naks);
	fflush(s->report);
	s->iv_msgs = tot.messages;
	s->iv_gone_bytes = 0;
	rt_evlog_flush(&s->log);
}

static int open_sockets(struct rt_gen_srv *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	s->addr.s_addr = htonl(INADDR_LOOPBACK); /* only what the operator names is reachable */
	if (cfg->bind_addr) {
		int rc = rt_gen_resolve4(cfg->bind_addr, &s->addr, errbuf);
		if (rc)
			return rc;
	}
	s->ufd = rt_gen_udp_socket(s->addr, cfg->port, cfg->dscp << 2, true, errbuf);
	if (s->ufd < 0)
		return s->ufd;
	int one = 1;
	if (setsockopt(s->ufd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)) < 0 ||
	    setsockopt(s->ufd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "IP_RECVTOS/IP_PKTINFO");
	}
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {
	    .sin_family = AF_INET, .sin_port = htons(cfg->control_port), .sin_addr = s->addr};
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s->lfd, RT_GEN_SRV_MAX_CONNS) < 0) {
		int e = errno;
		char a[INET_ADDRSTRLEN];
		return rt_errorf(errbuf, e, "control port %s:%u",
		                 inet_ntop(AF_INET, &s->addr, a, sizeof(a)), cfg->control_port);
	}
	return 0;
}

/* --stall: whether the data socket goes unread at `now`; the report says when that begins and ends. */
static bool stalled(struct rt_gen_srv *s, uint64_t t0, uint64_t now)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t from = t0 + cfg->stall_at_ns;
	if (!cfg->stall_ns || s->stall_over || now < from)
		return false;
	if (!s->stalling) {
		s->stalling = true;
		fprintf(s->report, "stall: reading no data for %.3f s from %.3f s (--stall)\n",
		        (double)cfg->stall_ns / 1e9, (double)(now - t0) / 1e9);
		fflush(s->report);
	} else if (now >= from + cfg->stall_ns) {
		s->stalling = false;
		s->stall_over = true;
		fprintf(s->report, "stall: reading data again at %.3f s\n",
		        (double)(now - t0) / 1e9);
		fflush(s->report);
	}
	return s->stalling;
}

/* When the loop must wake for --stall: its start and end, and each XOFF refresh while it lasts. */
static uint64_t stall_due(const struct rt_gen_srv *s, uint64_t t0, uint64_t now, bool stall)
{
	const struct rt_gen_config *cfg = s->cfg;
	if (!cfg->stall_ns || s->stall_over)
		return UINT64_MAX;
	if (!stall)
		return t0 + cfg->stall_at_ns;
	uint64_t due = t0 + cfg->stall_at_ns + cfg->stall_ns;
	uint64_t refresh = (s->xoff ? s->last_xoff_ns : now) + rt_gen_srv_pfc_refresh_ns(s);
	return cfg->pfc && refresh < due ? refresh : due;
}

static int serve(struct rt_gen_srv *s, char *errbuf)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t t0 = rt_mono_ns();
	uint64_t give_up =
	    cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t iv_ns = (uint64_t)(cfg->interval_s * 1e9);
	uint64_t next_iv = t0 + iv_ns;
	char a[INET_ADDRSTRLEN];
	fprintf(s->report,
	        "listening on %s, UDP %u (data) and TCP %u (setup), for %u client(s)%s\n",
	        inet_ntop(AF_INET, &s->addr, a, sizeof(a)), cfg->port, cfg->control_port,
	        cfg->clients, cfg->bind_addr ? "" : " (loopback only: -B ADDR takes other hosts)");
	s->last_iv_ns = t0;
	fprintf(s->report, "%8s %10s %12s %8s %8s %8s\n", "sec", "Gb/s", "msg/s", "CE", "CNPs",
	        "NAKs");
	fflush(s->report);
	while (s->finished < cfg->clients) {
		if (cfg->stop && *cfg->stop)
			break;
		uint64_t now = rt_mono_ns();
		if (now >= give_up) {
			return rt_errmsg(errbuf, ETIMEDOUT, "%u of %u client(s) done after %.1f s",
			                 s->finished, cfg->clients, cfg->duration_s);
		}
		if (now >= next_iv) {
			if (s->nqp)
				report_interval(s, (double)(now - t0) / 1e9,
				                (double)(now - s->last_iv_ns) / 1e9, now);
			s->last_iv_ns = now;
			next_iv = now + iv_ns;
		}
		/* stalled, the data socket is not polled; XOFFs are refreshed on a timer instead */
		bool stall = stalled(s, t0, now);
		uint64_t due = rt_gen_srv_sweep(s, now), stall_at = stall_due(s, t0, now, stall);
		if (stall_at < due)
			due = stall_at;
		if (next_iv < due)
			due = next_iv;
		if (give_up < due)
			due = give_up;
		struct pollfd pfd[2 + RT_GEN_SRV_MAX_CONNS];
		unsigned slot[RT_GEN_SRV_MAX_CONNS], nc = 0;
		pfd[0] = (struct pollfd){.fd = stall ? -1 : s->ufd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
		for (unsigned i = 0; i < RT_GEN_SRV_MAX_CONNS; i++)
			if (s->conns[i].fd >= 0) {
				pfd[2 + nc] =
				    (struct pollfd){.fd = s->conns[i].fd, .events = POLLIN};
				slot[nc++] = i;
			}
		uint64_t wait = due > now ? due - now : 0;
		struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000u),
		                      .tv_nsec = (long)(wait % 1000000000u)};
		int n = ppoll(pfd, 2 + nc, &ts, NULL);
		if (n < 0 && errno != EINTR) {
			int e = errno;
			return rt_errorf(errbuf, e, "poll");
		}
		if (stall && cfg->pfc) {
			int rc = rt_gen_srv_pfc_check(s, errbuf);
			if (rc)
				return rc;
		}
		if (n <= 0)
			continue;
		if (pfd[0].revents) {
			/* the backlog is looked at as data wakes us, and again once drained */
			int rc = cfg->pfc ? rt_gen_srv_pfc_check(s, errbuf) : 0;
			rt_gen_srv_receive(s);
			if (!rc && cfg->pfc)
				rc = rt_gen_srv_pfc_check(s, errbuf);
			if (rc)
				return rc;
		}
		now = rt_mono_ns();
		for (unsigned k = 0; k < nc; k++)
			if (pfd[2 + k].revents)
				rt_gen_srv_on_conn_readable(s, slot[k], now);
		if (pfd[1].revents)
			rt_gen_srv_on_accept(s, now);
	}
	uint64_t now = rt_mono_ns();
	double secs = (double)(now - t0) / 1e9;
	struct rt_gen_srv_totals t = rt_gen_srv_totals(s);
	if (s->suppressed)
		fprintf(s->report, "(%llu more setup notices not shown)\n",
		        (unsigned long long)s->suppressed);
	fprintf(s->report,
	        "summary role=serve backend=udp qps=%u seconds=%.3f packets=%llu bytes=%llu "
	        "messages=%llu ce=%llu cnp_sent=%llu nak_sent=%llu duplicates=%llu "
	        "out_of_order=%llu unknown_qp=%llu acks_sent=%llu pfc_xoff=%llu pfc_xon=%llu "
	        "clients=%u clients_dropped=%llu setup_refused=%llu\n",
	        s->nqp, secs, (unsigned long long)t.packets, (unsigned long long)t.bytes,
	        (unsigned long long)t.messages, (unsigned long long)t.ce,
	        (unsigned long long)t.cnps, (unsigned long long)t.naks, (unsigned long long)t.dups,
	        (unsigned long long)t.ooo, (unsigned long long)s->unknown_qp,
	        (unsigned long long)t.acks, (unsigned long long)s->xoffs,
	        (unsigned long long)s->xons, s->finished, (unsigned long long)s->dropped,
	        (unsigned long long)s->refused);
	return 0;
}

int rt_gen_udp_serve(const struct rt_gen_config *cfg, FILE *report, char *errbuf)
{
	if (cfg->clients == 0 || cfg->clients > RT_GEN_SRV_MAX_SESSIONS)
		return rt_errmsg(errbuf, EINVAL, "clients must be 1..%d", RT_GEN_SRV_MAX_SESSIONS);
	if (cfg->hello_timeout_ns == 0 || cfg->idle_timeout_ns == 0)
		return rt_errmsg(errbuf, EINVAL, "the HELLO and idle timeouts must be above 0");
	struct rt_gen_srv *s = calloc(1, sizeof(*s));
	if (!s) {
		return rt_errmsg(errbuf, ENOMEM, "out of memory");
	}
	s->cfg = cfg;
	s->report = report;
	s->lfd = s->ufd = s->pfc.fd = -1;
	for (unsigned i = 0; i < RT_GEN_SRV_MAX_CONNS; i++)
		s->conns[i].fd = -1;
	s->next_qpn = RT_GEN_SRV_QP_BASE;
	int rc = rt_evlog_open(&s->log, cfg->log_path, errbuf);
	if (!rc)
		rc = open_sockets(s, errbuf);
	if (!rc)
		rc = serve(s, errbuf);
	char cerr[RT_ERRBUF_SIZE];
	int lrc = rt_evlog_close(&s->log, cerr);
	if (!rc && lrc) {
		rc = lrc;
		memcpy(errbuf, cerr, RT_ERRBUF_SIZE);
	}
	for (unsigned i = 0; i < RT_GEN_SRV_MAX_CONNS; i++)
		if (s->conns[i].fd >= 0)
			close(s->conns[i].fd);
	if (s->ufd >= 0)
		close(s->ufd);
	if (s->lfd >= 0)
		close(s->lfd);
	rt_pfc_tx_close(&s->pfc);
	free(s);
	return rc;
}

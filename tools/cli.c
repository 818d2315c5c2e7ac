/* What the subcommands take alike: tcpdump's operands, capture files, --hosts, options passed on to hosts, the CPUs. */
#include <pcap/pcap.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/cli.h"

/*
 * Does the filter compile for a link type the files or devices may have?
 * It is compiled for each as the frames meet it; a filter none takes is
 * refused before anything is read, with libpcap's complaint for Ethernet.
 */
static int check_filter(const char *cmd, const char *bpf)
{
	static const int linktypes[] = {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW};
	char why[PCAP_ERRBUF_SIZE + 8] = "";
	for (size_t i = 0; bpf && i < sizeof(linktypes) / sizeof(linktypes[0]); i++) {
		pcap_t *dead = pcap_open_dead(linktypes[i], 262144);
		struct bpf_program prog;
		if (!dead)
			return rt_cli_fail(cmd, "out of memory");
		int rc = pcap_compile(dead, &prog, bpf, 1, PCAP_NETMASK_UNKNOWN);
		if (rc == 0)
			pcap_freecode(&prog);
		else if (!i)
			snprintf(why, sizeof(why), "%s", pcap_geterr(dead));
		pcap_close(dead);
		if (rc == 0)
			return 0;
	}
	return bpf ? rt_cli_usage_error(cmd, "bad filter '%s': %s", bpf, why) : 0;
}

/*
 * The words argv[first..argc) joined with spaces into *bpf (and *joined, to
 * free); refused after -f. The filter, either way, is checked.
 */
static int join_expression(const char *cmd, int argc, char **argv, int first, const char **bpf,
                           char **joined)
{
	if (first >= argc)
		return check_filter(cmd, *bpf);
	if (*bpf)
		return rt_cli_usage_error(
		    cmd,
		    "a filter twice: -f '%s' and '%s' (give one: -f BPF or the "
		    "expression after the options, as tcpdump takes it)",
		    *bpf, argv[first]);
	size_t len = 0;
	for (int i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return rt_cli_fail(cmd, "out of memory");
	s[0] = '\0';
	for (int i = first; i < argc; i++) {
		if (i > first)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	*joined = s;
	*bpf = s;
	return check_filter(cmd, s);
}

int rt_cli_operands(const char *cmd, int argc, char **argv, int first, bool need_file,
                    const char **path, const char **bpf, char **joined)
{
	*joined = NULL;
	if (!*path && need_file) {
		if (first >= argc)
			return rt_cli_usage_error(cmd, "no capture file given (FILE or -r FILE)");
		*path = argv[first++];
	}
	return join_expression(cmd, argc, argv, first, bpf, joined);
}

int rt_cli_files_add(const char *cmd, struct rt_cli_files *fs, const char *path,
                     const char *vantage)
{
	if (!*path)
		return rt_cli_usage_error(cmd, "an empty file name");
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->files[i].path, path))
			return rt_cli_usage_error(cmd, "%s given twice", path);
	if (fs->n == fs->cap) {
		size_t ncap = fs->cap ? fs->cap * 2 : 8;
		struct rt_source_file_spec *nf = realloc(fs->files, ncap * sizeof(*nf));
		if (!nf)
			return rt_cli_fail(cmd, "out of memory");
		fs->files = nf;
		fs->cap = ncap;
	}
	fs->files[fs->n++] = (struct rt_source_file_spec){.path = path, .vantage = vantage};
	return 0;
}

int rt_cli_files_vantage(const char *cmd, struct rt_cli_files *fs, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return rt_cli_usage_error(cmd, "--vantage: '%s' is not NAME=FILE[,FILE...]", arg);
	char **no = realloc(fs->owned, (fs->nowned + 1) * sizeof(*no));
	if (!no)
		return rt_cli_fail(cmd, "out of memory");
	fs->owned = no;
	char *copy = strdup(arg);
	if (!copy)
		return rt_cli_fail(cmd, "out of memory");
	fs->owned[fs->nowned++] = copy;
	char *files = copy + (eq - arg);
	*files++ = '\0';
	char *save = NULL;
	size_t before = fs->n;
	for (char *f = strtok_r(files, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		int rc = rt_cli_files_add(cmd, fs, f, copy);
		if (rc)
			return rc;
	}
	if (fs->n == before)
		return rt_cli_usage_error(cmd, "--vantage: '%s' names no file", arg);
	return 0;
}

/*
 * Is operand w (after the first FILE) another FILE rather than the start of
 * the filter expression? A filter starts with a keyword (udp, host, not,
 * '(' ...): '-' (standard input), a word naming an existing file, holding a
 * '/', or ending like a capture file (.pcap, .pcapng, .cap, .gz, a rotation
 * number after them) is a file, so a missing one is reported as missing, not
 * as a bad filter.
 */
static bool names_file(const char *w)
{
	static const char *const ext[] = {".pcap", ".pcapng", ".cap"};
	struct stat st;
	if (!strcmp(w, "-") || strchr(w, '/') || (stat(w, &st) == 0 && !S_ISDIR(st.st_mode)))
		return true;
	size_t len = strlen(w);
	if (len > 3 && !strcmp(w + len - 3, ".gz"))
		return true;
	while (len && w[len - 1] >= '0' && w[len - 1] <= '9')
		len--;
	if (len && w[len - 1] == '.')
		len--;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t n = strlen(ext[i]);
		if (len > n && !strncmp(w + len - n, ext[i], n))
			return true;
	}
	return false;
}

int rt_cli_files_operands(const char *cmd, int argc, char **argv, int first,
                          struct rt_cli_files *fs, const char **bpf, char **joined)
{
	int rc;
	*joined = NULL;
	if (!fs->n) {
		if (first >= argc)
			return rt_cli_usage_error(cmd, "no capture file given (FILE or -r FILE)");
		if ((rc = rt_cli_files_add(cmd, fs, argv[first++], NULL)))
			return rc;
	}
	while (first < argc && names_file(argv[first]))
		if ((rc = rt_cli_files_add(cmd, fs, argv[first++], NULL)))
			return rc;
	return join_expression(cmd, argc, argv, first, bpf, joined);
}

int rt_cli_file_option(struct rt_opt_use *u)
{
	return rt_cli_files_add(u->cmd, rt_opt_field(u), u->arg, NULL);
}

int rt_cli_vantage_option(struct rt_opt_use *u)
{
	return rt_cli_files_vantage(u->cmd, rt_opt_field(u), u->arg);
}

bool rt_cli_files_stdin(const struct rt_cli_files *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->files[i].path, "-"))
			return true;
	return false;
}

void rt_cli_files_free(struct rt_cli_files *fs)
{
	for (size_t i = 0; i < fs->nowned; i++)
		free(fs->owned[i]);
	free(fs->owned);
	free(fs->files);
	memset(fs, 0, sizeof(*fs));
}

/* Append the hosts of one --hosts item, and its "=DEV" to each when `devices`. */
static int add_hosts(const char *cmd, const char *item, size_t len, bool devices, size_t max,
                     struct rt_hostlist *hl)
{
	const char *eq = devices ? memchr(item, '=', len) : NULL;
	size_t before = hl->n, expr = eq ? (size_t)(eq - item) : len;
	char errbuf[RT_ERRBUF_SIZE];
	if (rt_hostlist_add(hl, item, expr, max, errbuf) < 0)
		return rt_cli_usage_error(cmd, "--hosts: %s", errbuf);
	for (size_t i = before; eq && i < hl->n; i++) {
		size_t l = strlen(hl->names[i]);
		char *named = realloc(hl->names[i], l + len - expr + 1);
		if (!named)
			return rt_cli_fail(cmd, "out of memory");
		memcpy(named + l, eq, len - expr);
		named[l + len - expr] = '\0';
		hl->names[i] = named;
	}
	return 0;
}

int rt_cli_hosts_expand(const char *cmd, const char *const *values, size_t nvalues, bool devices,
                        size_t max, struct rt_hostlist *hl)
{
	for (size_t v = 0; v < nvalues; v++)
		for (const char *s = values[v]; *s;) {
			size_t len = rt_hostlist_item_len(s);
			int rc = len ? add_hosts(cmd, s, len, devices, max, hl) : 0;
			if (rc)
				return rc;
			s += len + (s[len] != '\0');
		}
	if (!hl->n)
		return rt_cli_usage_error(cmd, "--hosts: no host given");
	for (size_t i = 1; i < hl->n; i++) {
		size_t l = devices ? strcspn(hl->names[i], "=") : strlen(hl->names[i]);
		for (size_t k = 0; k < i; k++)
			if (!strncmp(hl->names[k], hl->names[i], l) &&
			    (hl->names[k][l] == '\0' || (devices && hl->names[k][l] == '=')))
				return rt_cli_usage_error(cmd, "--hosts: %.*s given twice", (int)l,
				                          hl->names[i]);
	}
	return 0;
}

bool rt_cli_plain_word(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!strchr(
		        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,@+-",
		        *w))
			return false;
	return true;
}

int rt_cli_forward(const char *cmd, struct rt_cli_forward *f, const char *name, const char *value)
{
	if (f->n == RT_CLI_FORWARD_MAX)
		return rt_cli_usage_error(cmd, "too many options to pass to the hosts");
	if (value && !rt_cli_plain_word(value))
		return rt_cli_usage_error(cmd,
		                          "'%s' cannot be passed to the hosts safely (use "
		                          "letters, digits and _./:=,@+- only)",
		                          value);
	char *w = f->buf[f->n];
	if (!name)
		snprintf(w, sizeof(f->buf[0]), "%s", value);
	else if (value)
		snprintf(w, sizeof(f->buf[0]), "--%s=%s", name, value);
	else
		snprintf(w, sizeof(f->buf[0]), "--%s", name);
	f->argv[f->n++] = w;
	f->argv[f->n] = NULL;
	return 0;
}

unsigned rt_cli_cpus(void)
{
	cpu_set_t cpus;
	int n = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
	return n < 1 ? 1 : n > RT_CLI_THREADS_MAX ? RT_CLI_THREADS_MAX : (unsigned)n;
}

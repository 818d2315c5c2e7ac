/* rocetrace: one binary, subcommands for capturing, dissecting and analyzing RoCEv2 traffic. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rt_config.h"
#include "tools/cli_messages.h"
#include "tools/commands.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
    {"dissect", rt_cmd_dissect, "decode every frame of a capture (text or JSON Lines)"},
    {"analyze", rt_cmd_analyze, "per-QP flows, ECN/CNP, NAKs, retransmissions, PFC, episodes"},
    {"timeline", rt_cmd_timeline, "per-bucket congestion timeline as CSV or JSON"},
    {"report", rt_cmd_report, "one self-contained HTML page with charts, to read in a browser"},
    {"capture", rt_cmd_capture, "capture from a netdev or RDMA NIC, optionally around a command"},
    {"gen", rt_cmd_gen, "RoCEv2 traffic source (serve / send / lat) with perftest's options"},
    {"doctor", rt_cmd_doctor, "is this host (or every host of a job) ready for lossless RoCE?"},
};

#define NCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *fp)
{
	fprintf(fp, "usage: rocetrace COMMAND [OPTIONS] ...\n\n"
	            "Capture, dissect and analyze RoCEv2 traffic.\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(fp,
	        "\n'rocetrace COMMAND --help' (or 'rocetrace help COMMAND') describes one\n"
	        "command. Units are the same in every command: a bare duration is seconds,\n"
	        "a bare rate bits/s, a bare size bytes. 'rocetrace --version' prints the\n"
	        "version.\n"
	        "\nexamples:\n"
	        "  rocetrace capture -i eth0 -w run.pcapng udp port 4791\n"
	        "  rocetrace dissect -r run.pcapng -c 20\n"
	        "  rocetrace analyze run.pcapng\n"
	        "  rocetrace timeline run.pcapng --bucket 1ms --flow '10.0.0.1>10.0.0.2' -o t.csv\n"
	        "  rocetrace report run.pcapng -o run.html\n"
	        "  rocetrace gen lat 10.0.0.2 -s 64\n"
	        "  rocetrace doctor\n");
}

/* The command argv[1] names, or NULL after its usage error (*status set). */
static const struct subcommand *command_named(const char *name, int *status)
{
	const char *names[NCOMMANDS];
	char hint[256];
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, (names[i] = subcommands[i].name)))
			return &subcommands[i];
	rt_cli_suggest(name, strlen(name), names, NCOMMANDS, "", hint, sizeof(hint));
	fprintf(stderr, "rocetrace: unknown command '%s'%s (the commands:", name, hint);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "%s %s", i ? "," : "", names[i]);
	fprintf(stderr, "; see 'rocetrace --help')\n");
	*status = RT_EXIT_USAGE;
	return NULL;
}

int main(int argc, char **argv)
{
	int status = RT_EXIT_OK;
	if (argc < 2) {
		usage(stderr);
		return RT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return RT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("rocetrace %s\n", RT_VERSION);
		return RT_EXIT_OK;
	}
	if (!strcmp(argv[1],
	            "help")) { /* help CMD (gen: and its role): CMD --help, as git takes it */
		if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
			usage(stdout);
			return RT_EXIT_OK;
		}
		const struct subcommand *c = command_named(argv[2], &status);
		if (!c)
			return status;
		bool role = argc == 4 && !strcmp(argv[2], "gen");
		if (argc > 3 && !role) {
			fprintf(stderr,
			        "rocetrace: help takes a command's name (gen's role beside it): "
			        "'rocetrace help %s'\n",
			        argv[2]);
			return RT_EXIT_USAGE;
		}
		char help[] = "--help",
		     *args[] = {argv[2], role ? argv[3] : help, role ? help : NULL, NULL};
		return c->run(role ? 3 : 2, args);
	}
	const struct subcommand *c = command_named(argv[1], &status);
	return c ? c->run(argc - 1, argv + 1) : status;
}

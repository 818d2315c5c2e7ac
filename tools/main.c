/* rocetrace: one binary, subcommands for capturing, dissecting and analyzing RoCEv2 traffic. */
#include <stdio.h>
#include <string.h>

#include "rt_config.h"
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

static void usage(FILE *fp)
{
	fprintf(fp, "usage: rocetrace COMMAND [OPTIONS] ...\n\n"
	            "Capture, dissect and analyze RoCEv2 traffic.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(fp, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(fp,
	        "\n'rocetrace COMMAND --help' describes one command. Units are the same in\n"
	        "every command: a bare duration is seconds, a bare rate bits/s, a bare size\n"
	        "bytes. 'rocetrace --version' prints the version.\n"
	        "\nexamples:\n"
	        "  rocetrace capture -i eth0 -w run.pcapng udp port 4791\n"
	        "  rocetrace dissect -r run.pcapng -c 20\n"
	        "  rocetrace analyze run.pcapng\n"
	        "  rocetrace timeline run.pcapng --bucket 1ms --flow '10.0.0.1>10.0.0.2' -o t.csv\n"
	        "  rocetrace report run.pcapng -o run.html\n"
	        "  rocetrace gen lat 10.0.0.2 -s 64\n"
	        "  rocetrace doctor\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return RT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("rocetrace %s\n", RT_VERSION);
		return RT_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rocetrace: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return RT_EXIT_USAGE;
}

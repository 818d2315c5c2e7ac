/* The rocetrace subcommands; each takes argv with argv[0] = its own name and returns the exit status. */
#ifndef RT_COMMANDS_H
#define RT_COMMANDS_H

/* Exit statuses shared by every subcommand. */
enum { RT_EXIT_OK = 0, RT_EXIT_ERROR = 1, RT_EXIT_USAGE = 2 };
/* analyze --fail-on: a finding of that severity or worse is there. */
enum { RT_EXIT_FINDINGS = 3 };

int rt_cmd_dissect(int argc, char **argv);
int rt_cmd_analyze(int argc, char **argv);
int rt_cmd_timeline(int argc, char **argv);
int rt_cmd_report(int argc, char **argv);
int rt_cmd_capture(int argc, char **argv);
int rt_cmd_gen(int argc, char **argv);
int rt_cmd_doctor(int argc, char **argv);

#endif

#include "tools/commands.h"
int rt_cmd_analyze(int argc, char **argv){(void)argc;(void)argv;return 1;}
int rt_cmd_timeline(int argc, char **argv){(void)argc;(void)argv;return 1;}

#include "tools/commands.h"
int rt_cmd_dissect(int argc, char **argv){(void)argc;(void)argv;return 1;}

/*
 * console.c - the terminal's width for the console tables (console.h).
 */
#include "cli/console.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

unsigned mlia_cli_console_width(void)
{
    if (!isatty(STDOUT_FILENO))
        return 0;
    const char *env = getenv("COLUMNS");
    if (env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (!*end && v > 0 && v < 100000)
            return (unsigned)v;
    }
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

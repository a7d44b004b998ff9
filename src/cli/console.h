/*
 * console.h - the terminal the `mlia` executable prints on (used by main.c
 * and compare_cli.c, which no longer call into each other).
 */
#ifndef MLIA_CLI_CONSOLE_H
#define MLIA_CLI_CONSOLE_H

/* Columns for console tables: on a terminal, $COLUMNS when it is a number,
 * else the terminal's width; 0 (the fixed 100 columns) when standard output
 * is not a terminal, so that piped output does not depend on the window.
 * The library clamps it to 80..400. */
unsigned mlia_cli_console_width(void);

#endif

/*
 * browser.h - `--model-explorer open`: show the standalone page in the
 * user's browser.
 *
 * The page is opened by its file:// URL; no server is started. Candidates,
 * in order: every entry of $BROWSER (entries separated by ':'; an entry is a
 * command line split at blanks, "%s" in it is replaced by the URL, else the
 * URL is appended as the last argument), then `xdg-open URL` when there is a
 * display ($DISPLAY or $WAYLAND_DISPLAY). Commands run through posix_spawnp()
 * — never a shell — with stdin, stdout and stderr on /dev/null (a
 * launcher's complaints are not shown: `--json` output stays clean and a
 * machine without a desktop prints only the URL line). A candidate
 * failed when it cannot be started or exits non-zero within about one
 * second; a command still running after that is taken as started (browsers
 * often stay in the foreground). When no candidate works, the URL is printed
 * as "Open <url>" on `fallback` instead; opening a browser never fails the
 * run.
 */
#ifndef MLIA_REPORT_BROWSER_H
#define MLIA_REPORT_BROWSER_H

#include <stdio.h>

/* file:// URL of path (made absolute against the current directory; bytes
 * outside the RFC 3986 unreserved set and '/' are percent-encoded).
 * Returns a malloc'ed string the caller frees, or NULL when out of memory or
 * the current directory is unknown. */
char *mlia_file_url(const char *path);

/* Open page_path. Returns 0 when a browser command started, 1 when the URL
 * was printed on `fallback` (may be NULL: then nothing is printed). */
int mlia_browser_open(const char *page_path, FILE *fallback);

#endif

/*
 * browser.c - opening the standalone page (see browser.h).
 *
 * The environment variable is split into argv by hand (blanks separate
 * arguments; no quoting) so that nothing ever goes through /bin/sh: a page
 * path or a $BROWSER value cannot inject shell syntax. The URL is
 * percent-encoded, so it is a single argument free of blanks.
 */
#include "cli/browser.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How long a candidate may take to fail before it counts as started. */
#define MLIA_BROWSER_WAIT_MS 1000
#define MLIA_BROWSER_MAX_ARGS 64

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '/';
}

char *mlia_file_url(const char *path)
{
    /* The canonical path when the file exists (the page does, once written);
     * otherwise the path joined to the current directory. */
    char *abs = realpath(path, NULL);
    if (!abs) {
        char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
        if (path[0] != '/' && !cwd)
            return NULL;
        size_t n = strlen(path) + (cwd ? strlen(cwd) + 1 : 0);
        abs = malloc(n + 1);
        if (!abs) {
            free(cwd);
            return NULL;
        }
        if (cwd)
            snprintf(abs, n + 1, "%s/%s", cwd, path);
        else
            memcpy(abs, path, n + 1);
        free(cwd);
    }
    size_t n = strlen(abs);
    /* "file://" + up to 3 bytes per input byte. */
    char *url = malloc(7 + 3 * n + 1);
    if (!url) {
        free(abs);
        return NULL;
    }
    static const char hex[] = "0123456789ABCDEF";
    memcpy(url, "file://", 7);
    size_t o = 7;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)abs[i];
        if (unreserved(c)) {
            url[o++] = (char)c;
        } else {
            url[o++] = '%';
            url[o++] = hex[c >> 4];
            url[o++] = hex[c & 15];
        }
    }
    url[o] = 0;
    free(abs);
    return url;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Runs argv; true when it started and did not fail within the wait. */
static bool try_command(char *const argv[])
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return false;
    /* a launcher's own complaints (xdg-open without a desktop prints a
     * screenful) are not ours to show: when it fails, the URL line says it */
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return false;
    for (long waited = 0; waited < MLIA_BROWSER_WAIT_MS; waited += 20) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (w < 0)
            return errno == ECHILD; /* reaped elsewhere: assume it ran */
        sleep_ms(20);
    }
    return true; /* still running: a browser in the foreground */
}

/* Splits one $BROWSER entry [start, end) into argv with the URL placed. */
static bool try_entry(const char *start, size_t len, const char *url)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, start, len);
    copy[len] = 0;
    char *argv[MLIA_BROWSER_MAX_ARGS + 2];
    char *owned[MLIA_BROWSER_MAX_ARGS];
    int argc = 0, n_owned = 0;
    bool placed = false;
    for (char *save = NULL, *tok = strtok_r(copy, " \t", &save); tok && argc < MLIA_BROWSER_MAX_ARGS;
         tok = strtok_r(NULL, " \t", &save)) {
        char *pct = strstr(tok, "%s");
        if (pct) {
            size_t tl = strlen(tok), ul = strlen(url);
            char *arg = malloc(tl - 2 + ul + 1);
            if (!arg)
                break;
            memcpy(arg, tok, (size_t)(pct - tok));
            memcpy(arg + (pct - tok), url, ul);
            strcpy(arg + (pct - tok) + ul, pct + 2);
            owned[n_owned++] = arg;
            argv[argc++] = arg;
            placed = true;
        } else {
            argv[argc++] = tok;
        }
    }
    bool ok = false;
    if (argc > 0) {
        if (!placed)
            argv[argc++] = (char *)url;
        argv[argc] = NULL;
        ok = try_command(argv);
    }
    for (int i = 0; i < n_owned; i++)
        free(owned[i]);
    free(copy);
    return ok;
}

int mlia_browser_open(const char *page_path, FILE *fallback)
{
    char *url = mlia_file_url(page_path);
    if (!url) {
        if (fallback)
            fprintf(fallback, "Open %s\n", page_path);
        return 1;
    }
    const char *env = getenv("BROWSER");
    bool opened = false;
    if (env && *env) {
        for (const char *p = env; !opened;) {
            size_t len = strcspn(p, ":");
            if (len > 0)
                opened = try_entry(p, len, url);
            if (!p[len])
                break;
            p += len + 1;
        }
    }
    /* xdg-open needs a desktop session; without one it fails, or worse
     * starts a text browser on the terminal */
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if (!opened && ((x11 && *x11) || (wayland && *wayland))) {
        char *argv[] = {"xdg-open", url, NULL};
        opened = try_command(argv);
    }
    if (!opened && fallback) {
        fprintf(fallback, "Open %s\n", url);
        fflush(fallback);
    }
    free(url);
    return opened ? 0 : 1;
}

/*
 * fuzz_util.h - what the whole-pipeline fuzz targets share (fuzz/run.sh).
 *
 * These targets drive the public API (include/mlia/mlia.h) on files, so
 * every input is written into a private folder first: FUZZ_WORK (set by
 * fuzz/run.sh, holding the fixed inputs the targets combine with the fuzzed
 * bytes: the samples' ETRecords) or, without it, a fresh temporary folder.
 * An input is split into parts by 4-byte little-endian length prefixes
 * (fuzz_split); the last part takes what remains.
 */
#ifndef MLIA_FUZZ_UTIL_H
#define MLIA_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlia/mlia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The work folder (created once; the process's one piece of state, as
 * libFuzzer's entry point has no context). */
static const char *fuzz_work(void)
{
    static char dir[512];
    if (!dir[0]) {
        const char *w = getenv("FUZZ_WORK");
        if (w && *w) {
            snprintf(dir, sizeof dir, "%s", w);
        } else {
            snprintf(dir, sizeof dir, "/tmp/mlia-fuzz-XXXXXX");
            if (!mkdtemp(dir))
                abort();
        }
    }
    return dir;
}

/* work/name into out (the path). */
static const char *fuzz_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", fuzz_work(), name);
    return out;
}

/* Writes n bytes to work/name; returns the path (in out). */
static const char *fuzz_write(char *out, size_t cap, const char *name, const uint8_t *data, size_t n)
{
    fuzz_path(out, cap, name);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        abort();
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, data + done, n - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    close(fd);
    return out;
}

typedef struct fuzz_part {
    const uint8_t *data;
    size_t n;
} fuzz_part;

/* Splits data into at most max parts: each but the last is a 4-byte
 * little-endian length and that many bytes (cut to what is left). Returns
 * the number of parts. */
static size_t fuzz_split(const uint8_t *data, size_t size, fuzz_part *parts, size_t max)
{
    size_t k = 0;
    while (k + 1 < max && size >= 4) {
        uint32_t n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
        data += 4;
        size -= 4;
        if (n > size)
            n = (uint32_t)size;
        parts[k].data = data;
        parts[k].n = n;
        k++;
        data += n;
        size -= n;
    }
    parts[k].data = data;
    parts[k].n = size;
    return k + 1;
}

/* An error text must be one line (the API's promise); a crash otherwise. */
static void fuzz_one_line(const char *error)
{
    if (error && strchr(error, '\n'))
        __builtin_trap();
}

/* What every whole-pipeline target accepts from an entry point: rc 0 or an
 * mlia_status the header declares (mlia_status_name knows it) whose class
 * (MLIA_STATUS_CLASS) is at most max_class (1 input, 2 usage, 3 regression),
 * and a one-line error; a crash otherwise. Frees `error` (mlia_free). */
static void fuzz_accept_status(int rc, int max_class, char *error)
{
    int cls = MLIA_STATUS_CLASS(rc);
    if (cls < 0 || cls > max_class || (rc != 0 && strcmp(mlia_status_name(rc), "unknown status") == 0))
        __builtin_trap();
    fuzz_one_line(error);
    mlia_free(error);
}

#endif

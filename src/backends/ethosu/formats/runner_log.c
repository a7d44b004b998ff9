/*
 * runner_log.c - the Ethos-U runner's console log (runner_log.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ethosu/formats/runner_log.h"

typedef struct line {
    const char *p;
    size_t n;
} line;

static bool starts(line l, const char *prefix)
{
    size_t k = strlen(prefix);
    return l.n >= k && memcmp(l.p, prefix, k) == 0;
}

static bool equals(line l, const char *s)
{
    return l.n == strlen(s) && memcmp(l.p, s, l.n) == 0;
}

static line trim(line l)
{
    while (l.n && (l.p[0] == ' ' || l.p[0] == '\t')) {
        l.p++;
        l.n--;
    }
    while (l.n && (l.p[l.n - 1] == ' ' || l.p[l.n - 1] == '\t'))
        l.n--;
    return l;
}

bool ethosu_is_runner_log(const uint8_t *data, size_t size)
{
    static const char mark[] = "#[RUN THIS]";
    size_t k = sizeof mark - 1;
    for (size_t i = 0; data && i + k <= size; i++)
        if ((i == 0 || data[i - 1] == '\n') && memcmp(data + i, mark, k) == 0)
            return true;
    return false;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

long ethosu_base64_decode(const char *text, size_t n, uint8_t *out)
{
    if (n % 4)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            char c = text[i + k];
            if (c == '=' && i + 4 == n && k >= 2) {
                v[k] = 0;
                pad++;
                continue;
            }
            if (pad) /* '=' only at the end */
                return -1;
            v[k] = b64_value(c);
            if (v[k] < 0)
                return -1;
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (uint8_t)(w >> 16);
        if (pad < 2)
            out[o++] = (uint8_t)(w >> 8);
        if (pad < 1)
            out[o++] = (uint8_t)w;
    }
    return (long)o;
}

/* The unsigned decimal after `prefix` (spaces skipped), when msg starts
 * with it. */
static bool u64_after(line msg, const char *prefix, uint64_t *v)
{
    if (!starts(msg, prefix))
        return false;
    size_t i = strlen(prefix);
    while (i < msg.n && msg.p[i] == ' ')
        i++;
    if (i >= msg.n || msg.p[i] < '0' || msg.p[i] > '9')
        return false;
    uint64_t x = 0;
    for (; i < msg.n && msg.p[i] >= '0' && msg.p[i] <= '9'; i++) {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(msg.p[i] - '0');
    }
    *v = x;
    return true;
}

/* The message of an ET_LOG line "<L> [executorch:<file>:<line> <fn>()] <msg>",
 * or the line itself. */
static line message_of(line l)
{
    if (l.n > 4 && l.p[1] == ' ' && starts((line){l.p + 2, l.n - 2}, "[executorch:")) {
        const char *e = memchr(l.p, ']', l.n);
        if (e) {
            size_t k = (size_t)(e - l.p) + 1;
            return trim((line){l.p + k, l.n - k});
        }
    }
    return trim(l);
}

static void pmu_line(ethosu_pmu_report *r, line msg, mlia_arena *a)
{
    uint64_t v;
    if (u64_after(msg, "NPU Inferences :", &v)) {
        r->inferences = v;
        r->has_inferences = true;
    } else if (u64_after(msg, "NPU delegations:", &v)) {
        r->delegations = v;
        r->has_delegations = true;
    } else if (u64_after(msg, "ethos-u : cycle_cnt :", &v)) {
        r->backend_cycles = v;
        r->has_backend_cycles = true;
    } else if (u64_after(msg, "Operator(s) total:", &v)) {
        r->operator_cycles = v;
        r->has_operator_cycles = true;
    } else if (u64_after(msg, "Inference runtime:", &v)) {
        r->runtime_cycles = v;
        r->has_runtime_cycles = true;
    } else if (u64_after(msg, "cpu_wait_for_npu_cntr :", &v)) {
        r->wait_cycles = v;
        r->has_wait_cycles = true;
    } else if (equals(msg, "Ethos-U PMU report:")) {
        r->present = true;
    } else if (u64_after(msg, "ethosu_pmu_cycle_cntr :", &v)) {
        r->npu_cycles = v;
        r->has_npu_cycles = true;
    } else if (starts(msg, "ethosu_pmu_cntr") && msg.n > 15 && msg.p[15] >= '0' && msg.p[15] <= '9') {
        uint32_t i = (uint32_t)(msg.p[15] - '0');
        char prefix[32];
        snprintf(prefix, sizeof prefix, "ethosu_pmu_cntr%u :", i);
        if (i < ETHOSU_MAX_PMU_COUNTERS && u64_after(msg, prefix, &v)) {
            r->counters[i] = v;
            r->counter_seen[i] = true;
            if (i + 1 > r->n_counters)
                r->n_counters = i + 1;
        }
    } else if (starts(msg, "Ethos-U PMU Events:[") && msg.p[msg.n - 1] == ']') {
        line list = {msg.p + 20, msg.n - 21};
        r->n_events = 0;
        while (list.n && r->n_events < ETHOSU_MAX_PMU_COUNTERS) {
            const char *comma = memchr(list.p, ',', list.n);
            size_t k = comma ? (size_t)(comma - list.p) : list.n;
            line name = trim((line){list.p, k});
            r->events[r->n_events++] = mlia_arena_strndup(a, name.p, name.n);
            list = comma ? (line){comma + 1, list.n - k - 1} : (line){list.p + list.n, 0};
        }
    }
}

int ethosu_read_runner_log(const uint8_t *data, size_t size, const char *path, mlia_arena *arena,
                           ethosu_runner_log **out, mlia_error *err)
{
    ethosu_runner_log *log = mlia_arena_alloc(arena, sizeof *log);
    memset(log, 0, sizeof *log);
    const char *p = (const char *)data, *end = p + size;
    bool in_block = false, done = false;
    const char *pending = NULL; /* "etdump.bin" / "debug_buffer.bin" after a "# Writing" line */
    uint32_t pending_line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        line l = {p, nl ? (size_t)(nl - p) : (size_t)(end - p)};
        p = nl ? nl + 1 : end;
        log->n_lines++;
        if (l.n && l.p[l.n - 1] == '\r') {
            l.n--;
            log->crlf = true;
        }
        line t = trim(l);
        if (pending) {
            /* echo "<base64>" | base64 -d ><name> */
            const char *q1 = starts(t, "echo \"") ? t.p + 6 : NULL;
            const char *q2 = q1 ? memchr(q1, '"', t.n - 6) : NULL;
            if (!q2 || !starts((line){q2, (size_t)(t.p + t.n - q2)}, "\" | base64 -d >"))
                return mlia_error_setf(err, path,
                                       "Ethos-U runner log: the line after \"# Writing %s [base64]\" (line %u) is "
                                       "not its echo \"...\" | base64 -d line, at line %u",
                                       pending, pending_line, log->n_lines);
            size_t n = (size_t)(q2 - q1);
            uint8_t *buf = mlia_arena_alloc(arena, n / 4 * 3 + 1);
            long got = ethosu_base64_decode(q1, n, buf);
            if (got < 0)
                return mlia_error_setf(err, path, "Ethos-U runner log: the base64 of %s does not decode, at line %u",
                                       pending, log->n_lines);
            if (strcmp(pending, "etdump.bin") == 0) {
                if (log->etdump)
                    return mlia_error_setf(err, path,
                                           "Ethos-U runner log: a second ETDump block at line %u (give each run's "
                                           "log on its own --profiling-data)",
                                           log->n_lines);
                log->etdump = buf;
                log->etdump_size = (size_t)got;
            } else {
                log->debug_buffer = buf;
                log->debug_buffer_size = (size_t)got;
            }
            pending = NULL;
            continue;
        }
        if (!in_block && !done && equals(t, "#[RUN THIS]")) {
            in_block = true;
            continue;
        }
        if (in_block && equals(t, "#[END]")) {
            in_block = false;
            done = true;
            continue;
        }
        if (in_block && starts(t, "# Writing ") && t.n > 19 && equals((line){t.p + t.n - 9, 9}, " [base64]")) {
            line name = {t.p + 10, t.n - 19};
            pending = equals(name, "etdump.bin") ? "etdump.bin"
                      : equals(name, "debug_buffer.bin") ? "debug_buffer.bin"
                                                         : NULL;
            pending_line = log->n_lines;
            continue;
        }
        pmu_line(&log->pmu, message_of(l), arena);
    }
    if (pending)
        return mlia_error_setf(err, path, "Ethos-U runner log: \"# Writing %s [base64]\" at line %u has no echo line",
                               pending, pending_line);
    if (!log->etdump)
        return mlia_error_setf(err, path,
                               "Ethos-U runner log: no \"# Writing etdump.bin [base64]\" block between \"#[RUN "
                               "THIS]\" and \"#[END]\" (%u lines read)",
                               log->n_lines);
    *out = log;
    return 0;
}

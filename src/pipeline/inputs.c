/*
 * inputs.c - input kinds by content (see inputs.h).
 */
#include "pipeline/inputs.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/file.h"
#include "formats/pte.h"

#define HEAD 64

const char *mlia_input_kind(const char *path)
{
    if (!path)
        return NULL;
    mlia_file f;
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_open_unread(&f, path, &err) != 0)
        return NULL;
    uint8_t head[HEAD];
    size_t n = f.size < HEAD ? f.size : HEAD;
    const char *kind = "unknown";
    if (n && mlia_file_pread(&f, 0, head, n, &err) == 0) {
        const char *k = pte_file_kind(head, n);
        /* a size-prefixed ETDump's prefix counts the whole file */
        if (!k && n >= 12 && memcmp(head + 8, "ED00", 4) == 0) {
            uint64_t prefix = (uint64_t)head[0] | (uint64_t)head[1] << 8 | (uint64_t)head[2] << 16 |
                              (uint64_t)head[3] << 24;
            if (prefix <= f.size - 4)
                k = "etdump";
        }
        static const char *const known[] = {"etrecord", "etdump", "pte", "bundled_program", "vgf"};
        for (size_t i = 0; k && i < sizeof known / sizeof known[0]; i++)
            if (strcmp(k, known[i]) == 0)
                kind = known[i];
    }
    mlia_file_close(&f);
    return kind;
}


typedef struct place {
    const char *label;     /* "MODEL", "--profiling-data", "--companion-model" */
    const char *expected;  /* kind */
    const char *path, *kind;
} place;

static const char *what(const char *kind)
{
    if (!kind)
        return "?";
    if (strcmp(kind, "etrecord") == 0)
        return "an ETRecord";
    if (strcmp(kind, "etdump") == 0)
        return "an ETDump";
    if (strcmp(kind, "pte") == 0)
        return "a PTE program";
    if (strcmp(kind, "bundled_program") == 0)
        return "a BundledProgram";
    if (strcmp(kind, "vgf") == 0)
        return "a VGF file";
    return kind;
}

static bool known(const char *kind)
{
    return kind && strcmp(kind, "unknown") != 0;
}

const char *mlia_input_kind_name(const char *kind)
{
    return known(kind) ? what(kind) : NULL;
}

int mlia_input_debug_buffer_error(const char *label, const char *path, const char *kind, char *msg, size_t n)
{
    msg[0] = 0;
    if (!path || !known(kind))
        return 0;
    const char *where = strcmp(kind, "etdump") == 0
                            ? (strcmp(label, "--debug-buffer") == 0 ? "; the ETDump goes with --profiling-data"
                                                                    : "; the ETDump goes with --reference-profiling-data")
                        : strcmp(kind, "etrecord") == 0 ? "; the ETRecord is MODEL"
                        : strcmp(kind, "pte") == 0      ? "; the PTE goes with --companion-model"
                                                        : "";
    snprintf(msg, n,
             "%s %s is %s, not a debug buffer: give the raw buffer file the run's ETDumpGen wrote its "
             "intermediate outputs to (set_debug_buffer or a data sink)%s.",
             label, path, what(kind), where);
    return 2;
}

static bool is(const char *kind, const char *want)
{
    return kind && strcmp(kind, want) == 0;
}

int mlia_input_kind_error(const char *model, const char *model_kind, const char *etdump,
                          const char *etdump_kind, const char *companion, const char *companion_kind,
                          char *msg, size_t n)
{
    place p[3] = {{"MODEL", "etrecord", model, model_kind},
                  {"--profiling-data", "etdump", etdump, etdump_kind},
                  {"--companion-model", "pte", companion, companion ? companion_kind : NULL}};
    msg[0] = 0;
    for (int i = 0; i < 3; i++) {
        if (!p[i].path || !known(p[i].kind) || is(p[i].kind, p[i].expected))
            continue;
        /* two files in each other's places */
        for (int j = 0; j < 3; j++) {
            if (j == i || !p[j].path || !is(p[i].kind, p[j].expected) || !is(p[j].kind, p[i].expected))
                continue;
            const place *a = &p[i < j ? i : j], *b = &p[i < j ? j : i];
            snprintf(msg, n, "%s and %s are swapped: %s is %s and %s is %s; give %s %s %s and %s %s %s.",
                     a->label, b->label, a->path, what(a->kind), b->path, what(b->kind), b->path,
                     a == &p[0] ? "as" : "with", a->label, a->path, b == &p[0] ? "as" : "with", b->label);
            return 2;
        }
        /* where this kind goes instead */
        const char *hint = "";
        char buf[512];
        if (is(p[i].kind, "pte"))
            hint = i == 2 ? "" : "; the PTE goes with --companion-model";
        else if (is(p[i].kind, "etrecord"))
            hint = "; the ETRecord is MODEL";
        else if (is(p[i].kind, "etdump"))
            hint = "; the ETDump goes with --profiling-data";
        else if (is(p[i].kind, "bundled_program"))
            hint = "; a BundledProgram wraps the PTE: give the PTE itself with --companion-model";
        else if (is(p[i].kind, "vgf"))
            hint = "; the VGF is read from the PTE given with --companion-model";
        static const char *const give[3] = {
            "give the ETRecord written at export (generate_etrecord=True) as MODEL",
            "give the ETDump written by the run with --profiling-data",
            "give the PTE whose VgfBackend delegate ran with --companion-model"};
        snprintf(buf, sizeof buf, "%s", hint);
        snprintf(msg, n, "%s %s is %s, not %s: %s%s.", p[i].label, p[i].path, what(p[i].kind),
                 what(p[i].expected), give[i], buf);
        return 2;
    }
    return 0;
}

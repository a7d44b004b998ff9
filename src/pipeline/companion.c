/*
 * companion.c - the companion PTE (docs/analysis.md, "Companion PTE").
 *
 * A companion is any PTE of the program (docs/memory.md): its selected
 * method's memory plan gives the memory view (memory_stage.c). This file
 * reads the PTE, finds the method's plan and checks the captured
 * instruction ids against it; the backend that reads companions (the first
 * registered one with companion_locate, src/backends/registry.c) looks for
 * its delegate there and, when the method calls it, reads and checks its
 * blob (the VGF backend: a VgfBackend blob must be a VGF file and gives
 * the VGF views). The checks show structural compatibility with the capture only;
 * they cannot prove that this PTE produced the capture, and the docs and
 * page say so. The file's SHA-256 is recorded and checked again before the
 * companion view is written.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/cnum.h"
#include "pipeline/stages.h"
#include "core/file.h"
#include "core/sha256.h"
#include "formats/etdump.h"
#include "formats/pte.h"
#include "backends/registry.h"

/* "<path>: Companion model <lead> <what>." with what formatted from fmt. */
static int companion_error(mlia_error *err, const char *path, const char *lead, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int companion_error(mlia_error *err, const char *path, const char *lead, const char *fmt, ...)
{
    char what[1024];
    MLIA_FORMAT_ARGS(what, fmt);
    mlia_error_setf(err, path, "Companion model %s %s.", lead, what);
    /* of another program: a mismatch; not the kind of file it should be: its format */
    return mlia_error_mark(err, strncmp(lead, "does not match", 14) == 0 ? MLIA_ERROR_KIND_MISMATCH
                                                                         : MLIA_ERROR_KIND_FORMAT);
}

/* The backend that reads companions, and its slot among the run's. */
static uint32_t companion_backend_slot(void)
{
    for (uint32_t i = 0; i < mlia_backend_count(); i++)
        if (mlia_backend_at(i)->companion_locate)
            return i;
    return 0;
}

static const mlia_backend *companion_backend(void)
{
    return mlia_backend_at(companion_backend_slot());
}

/* the companion is not an ExecuTorch program of this method */
#define NOT_PTE(...) companion_error(err, path, "must be an ExecuTorch program (.pte); found", __VA_ARGS__)
/* the companion does not describe the captured run */
#define MISMATCH(...) companion_error(err, path, "does not match the capture:", __VA_ARGS__)

int companion_read(mlia_session *s, mlia_error *err)
{
    const char *path = s->opts->companion_path;
    const uint8_t *d = s->companion_file.data;
    size_t n = s->companion_file.size;
    const char *kind = pte_file_kind(d, n);
    if (!kind)
        return NOT_PTE("a file that is not an ExecuTorch program");
    if (strcmp(kind, "pte") != 0) {
        const char *what = strcmp(kind, "bundled_program") == 0 ? "a BundledProgram"
                           : strcmp(kind, "etdump") == 0        ? "an ETDump"
                           : strcmp(kind, "etrecord") == 0      ? "an ETRecord"
                                                                : NULL;
        if (!what && mlia_backend_named(kind))
            what = mlia_arena_printf(&s->arena, "a bare %s file", mlia_backend_named(kind)->label);
        return NOT_PTE("%s", what ? what : kind);
    }
    mlia_error perr;
    mlia_error_clear(&perr);
    if (pte_read(d, n, path, &s->arena, &s->companion, &perr)) {
        /* keep the reader's diagnosis: it names the byte offset */
        *err = perr;
        return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT);
    }
    mlia_log_add(s, "companion %s: %u plan(s)", path, s->companion->n_plans);
    return 0;
}

const pte_plan *companion_plan(const mlia_session *s, uint32_t *index)
{
    const pte_program *p = s->companion;
    if (!p)
        return NULL;
    for (uint32_t i = 0; i < p->n_plans; i++)
        if (mlia_str_eq(p->plans[i].name, s->method_name)) {
            if (index)
                *index = i;
            return &p->plans[i];
        }
    /* single-method ETRecords store the edge program under "forward"; a
     * one-plan PTE is the method whatever the map calls it */
    if (p->n_plans == 1) {
        if (index)
            *index = 0;
        return &p->plans[0];
    }
    return NULL;
}

int companion_locate(mlia_session *s, mlia_error *err)
{
    const char *path = s->opts->companion_path;
    const pte_plan *plan = companion_plan(s, NULL);
    if (!plan)
        return NOT_PTE("a PTE without method '%s'", s->method_name);
    s->companion_plan = plan;
    const mlia_backend *b = companion_backend();
    mlia_backend_ctx c;
    check_backend_ctx(s, &c);
    return b->companion_locate(&c, (void *)s->backends[companion_backend_slot()].state, err);
}

int companion_check(mlia_session *s, mlia_error *err)
{
    const char *path = s->opts->companion_path;
    const pte_plan *plan = s->companion_plan;

    /* instruction ids of the executions must exist in the plan, with matching kinds */
    for (uint32_t x = 0; x < s->n_executions; x++) {
        etdump_cursor cur;
        etdump_event evb;
        etdump_debug_value dv;
        if (etdump_run_begin(s->dump, s->execution_runs[x], &cur, err) < 0)
            return -1;
        int more;
        while ((more = etdump_run_next(&cur, &evb, &dv, err)) != 0) {
            if (more < 0)
                return -1;
            const etdump_event *e = &evb;
            if (e->kind != ETDUMP_EVENT_PROFILE || e->chain_index < 0)
                continue;
            bool op = mlia_str_eq(e->name, "OPERATOR_CALL");
            bool del = mlia_str_eq(e->name, "DELEGATE_CALL");
            bool any = op || del || mlia_str_has_prefix(e->name, "native_call_") || !e->name.ptr;
            if (!any)
                continue;
            /* the run in its own capture (several --profiling-data) */
            uint32_t run;
            uint32_t cap = mlia_session_capture_of(s, s->execution_runs[x], &run);
            const char *dump_name = s->n_captures > 1 ? s->captures[cap].digest.name : NULL;
            if ((uint64_t)e->chain_index >= plan->n_chains)
                return MISMATCH("the ETDump%s%s (run %u) addresses chain %lld, but method '%s' has %u chain(s)",
                                dump_name ? " " : "", dump_name ? dump_name : "", run, (long long)e->chain_index,
                                s->method_name, plan->n_chains);
            const pte_chain *ch = &plan->chains[e->chain_index];
            if (e->instruction_id < 0 || (uint32_t)e->instruction_id >= ch->n_instructions)
                return MISMATCH(
                                "the ETDump%s%s (run %u) addresses instruction %d of chain %lld, but method '%s' has %u "
                                "instruction(s)",
                                dump_name ? " " : "", dump_name ? dump_name : "", run, e->instruction_id,
                                (long long)e->chain_index, s->method_name, ch->n_instructions);
            uint8_t kind = ch->instructions[e->instruction_id].kind;
            if ((op && kind != PTE_INSTR_KERNEL) || (del && kind != PTE_INSTR_DELEGATE))
                return MISMATCH("instruction %d of chain %lld is a %s in the PTE but the ETDump records a %s",
                                e->instruction_id, (long long)e->chain_index, pte_instr_kind_name(kind),
                                op ? "OPERATOR_CALL" : "DELEGATE_CALL");
        }
    }

    /* then the backend's own checks of its blob against the capture */
    mlia_backend_ctx c;
    check_backend_ctx(s, &c);
    return companion_backend()->companion_check(&c, (void *)s->backends[companion_backend_slot()].state, err);
}

int companion_recheck_digest(const mlia_session *s, mlia_error *err)
{
    const char *path = s->opts->companion_path;
    mlia_file f;
    mlia_error ignored;
    mlia_error_clear(&ignored);
    char hex[65] = "";
    if (mlia_file_open(&f, path, &ignored) == 0) {
        mlia_sha256_hex(f.data, f.size, hex);
        mlia_file_close(&f);
    }
    if (strcmp(hex, s->companion_digest.sha256) != 0)
        return mlia_error_setf(err, NULL, "Companion model %s changed since it was analysed; run the analysis again.",
                               path);
    return 0;
}

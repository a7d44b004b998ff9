/*
 * companion.c - the companion PTE (docs/analysis.md, "Companion PTE").
 *
 * A companion is any PTE of the program (docs/memory.md): its selected
 * method's memory plan gives the memory view (memory_stage.c); when the
 * method calls a `VgfBackend` delegate, that blob must be a VGF file and
 * gives the VGF views. Its checks show structural
 * compatibility with the capture only (segments, SPIR-V ids named by debug
 * labels, instruction ids); they cannot prove that this PTE produced the
 * capture, and the docs and page say so. The file's SHA-256 is recorded and
 * checked again before the companion view is written.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/nx_analysis.h"
#include "core/cnum.h"
#include "pipeline/stages.h"
#include "core/file.h"
#include "core/sha256.h"
#include "formats/etdump.h"
#include "formats/pte.h"
#include "formats/vgf.h"

/* "<path>: Companion model <lead> <what>." with what formatted from fmt. */
static int companion_error(mlia_error *err, const char *path, const char *lead, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int companion_error(mlia_error *err, const char *path, const char *lead, const char *fmt, ...)
{
    char what[1024];
    MLIA_FORMAT_ARGS(what, fmt);
    return mlia_error_setf(err, path, "Companion model %s %s.", lead, what);
}

/* the companion is not a PTE with a VGF delegate */
#define FOUND(...) companion_error(err, path, "must be a .pte with a VGF delegate; found", __VA_ARGS__)
/* the companion is not an ExecuTorch program of this method */
#define NOT_PTE(...) companion_error(err, path, "must be an ExecuTorch program (.pte); found", __VA_ARGS__)
/* the companion does not describe the captured run */
#define MISMATCH(...) companion_error(err, path, "does not match the capture:", __VA_ARGS__)

static bool is_vgf_magic(const uint8_t *p, uint64_t n)
{
    if (n < 4)
        return false;
    return memcmp(p, "VGF1", 4) == 0 || (p[0] == 0xC3 && p[1] == 0xD2 && p[2] == 0xE1 && p[3] == 0xF0);
}

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
                           : strcmp(kind, "vgf") == 0           ? "a bare VGF file"
                                                                : kind;
        return NOT_PTE("%s", what);
    }
    mlia_error perr;
    mlia_error_clear(&perr);
    if (pte_read(d, n, path, &s->arena, &s->companion, &perr)) {
        /* keep the reader's diagnosis: it names the byte offset */
        *err = perr;
        return -1;
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
    int32_t vgf_delegate = -1;
    bool other_backend = false;
    for (uint32_t c = 0; c < plan->n_chains && vgf_delegate < 0; c++)
        for (uint32_t i = 0; i < plan->chains[c].n_instructions; i++) {
            const pte_instruction *in = &plan->chains[c].instructions[i];
            if (in->kind != PTE_INSTR_DELEGATE || in->delegate_index < 0 ||
                (uint32_t)in->delegate_index >= plan->n_delegates)
                continue;
            const pte_delegate *dg = &plan->delegates[in->delegate_index];
            if (mlia_str_eq(dg->id, "VgfBackend")) {
                vgf_delegate = in->delegate_index;
                break;
            }
            other_backend = true;
        }
    if (vgf_delegate < 0) {
        /* any PTE is a companion (its memory plan); no VGF views */
        mlia_log_add(s, "companion: method '%s' calls %s; no VGF views", s->method_name,
                     other_backend ? "no VgfBackend delegate" : "no delegate");
        return 0;
    }
    const pte_delegate *dg = &plan->delegates[vgf_delegate];
    if (!dg->blob || !is_vgf_magic(dg->blob, dg->size))
        return FOUND("a VgfBackend delegate whose blob is not a VGF file");
    char *label = mlia_arena_printf(&s->arena, "%s (VgfBackend delegate %d)", path, vgf_delegate);
    if (vgf_read(dg->blob, (size_t)dg->size, label, &s->arena, &s->vgf, err))
        return -1;
    s->vgf_delegate_index = (uint32_t)vgf_delegate;
    mlia_log_add(s, "companion VGF: delegate %d, %llu bytes at file offset %llu, version %u.%u.%u, %u segment(s)",
                 vgf_delegate, (unsigned long long)dg->size, (unsigned long long)dg->offset, s->vgf->major,
                 s->vgf->minor, s->vgf->patch, s->vgf->n_segments);
    for (uint32_t i = 0; i < s->vgf->n_warnings; i++)
        mlia_log_add(s, "companion VGF warning: %s", s->vgf->warnings[i]);
    return 0;
}

int companion_check(mlia_session *s, mlia_error *err)
{
    const char *path = s->opts->companion_path;
    const nx_result *nx = s->nx;
    const pte_plan *plan = companion_plan(s, NULL);
    const vgf_file *vgf = s->vgf;

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

    if (!vgf) {
        mlia_log_add(s, "companion: instruction ids and kinds match the capture; this shows structural "
                        "compatibility only, not that this PTE produced the capture");
        return 0;
    }
    /* Only now the statistics requirement: a companion of another program is
     * reported as a mismatch above (naming the companion), not as missing
     * statistics in the ETDump. */
    if (!nx || !nx->any_record)
        return mlia_error_setf(err, path,
                               "Companion model requires VGF neural statistics in the ETDump, and none were found; "
                               "associations with the compiled graph come only from VGF profiling.");

    /* statistics segments versus VGF segments: count, order, graph vs compute */
    for (uint32_t i = 0; i < nx->n_segments; i++) {
        const nx_segment *seg = &nx->segments[i];
        if (seg->segment_id >= vgf->n_segments)
            return MISMATCH("the statistics list segment %llu, but the VGF delegate has %u segment(s)",
                            (unsigned long long)seg->segment_id, vgf->n_segments);
        bool vgf_graph = vgf->segments[seg->segment_id].type == 1;
        if (vgf_graph != seg->is_graph)
            return MISMATCH("segment %llu is a %s segment in the VGF but a %s segment in the statistics",
                            (unsigned long long)seg->segment_id, vgf_graph ? "graph" : "compute",
                            seg->is_graph ? "graph" : "compute");
    }
    /* every VGF segment must appear in the statistics of each call site */
    for (uint32_t i = 0; i < nx->n_segments;) {
        uint32_t j = i, count = 0;
        while (j < nx->n_segments && nx->segments[j].chain_index == nx->segments[i].chain_index &&
               nx->segments[j].instruction_id == nx->segments[i].instruction_id) {
            j++;
            count++;
        }
        if (count != vgf->n_segments)
            return MISMATCH("the VGF delegate has %u segment(s) but the statistics of instruction %d list %u",
                            vgf->n_segments, nx->segments[i].instruction_id, count);
        i = j;
    }

    /* SPIR-V operations as compiler_operation entities, linked both ways */
    mlia_result *r = &s->result;
    uint32_t linked = 0;
    for (uint32_t i = 0; i < nx->n_segments; i++) {
        const nx_segment *seg = &nx->segments[i];
        if (!seg->is_graph)
            continue;
        const vgf_segment *vs = &vgf->segments[seg->segment_id];
        mlia_entity *se = mlia_result_find(r, seg->id);
        for (uint32_t k = 0; k < vs->n_operations; k++) {
            const vgf_operation *op = &vs->operations[k];
            char *id = mlia_arena_printf(&s->arena, "compiler_operation/segment_%s/spirv-%u", seg->token, op->id);
            mlia_entity *oe = mlia_result_entity(r, id, "compiler_operation", op->label);
            mlia_entity_set_int(r, oe, "spirv_id", op->id);
            mlia_entity_set_str(r, oe, "op", op->op);
            mlia_entity_set_str(r, oe, "result_type", op->result_type ? op->result_type : "");
            if (op->debug_name)
                mlia_entity_set_str(r, oe, "debug_name", op->debug_name);
            mlia_entity_set_str(r, oe, "source", "companion VGF");
            oe->placement = "NX";
            mlia_result_link(r, se, oe);
        }
        for (uint32_t k = 0; k < seg->n_ops; k++) {
            const nx_compiler_op *cop = &nx->ops[seg->first_op + k];
            mlia_entity *ce = mlia_result_find(r, cop->id);
            for (uint32_t q = 0; q < cop->n_vgf_ids; q++) {
                const char *v = cop->vgf_ids[q];
                const char *sp = strstr(v, "/spirv-");
                if (!sp)
                    continue;
                char *id = mlia_arena_printf(&s->arena, "compiler_operation/segment_%s%s", seg->token, sp);
                mlia_entity *oe = mlia_result_find(r, id);
                if (!oe || !ce)
                    continue;
                linked++;
                /* debug-database operation -> the SPIR-V operation it was
                 * compiled from; its chains -> the SPIR-V operation; the
                 * SPIR-V operation -> the source operators the debug-database
                 * operation serves */
                mlia_result_link(r, ce, oe);
                for (uint32_t p = 0; p < cop->n_parents; p++)
                    mlia_result_link_ids(r, nx->chains[cop->parents[p]].id, oe->id);
                for (uint32_t p = 0; p < ce->n_children; p++)
                    if (strcmp(ce->children[p]->kind, "source_operator") == 0)
                        mlia_result_link(r, oe, ce->children[p]);
            }
        }
    }
    mlia_log_add(s, "companion: structural checks passed (%u SPIR-V link(s)); this shows structural "
                    "compatibility only, not that this PTE produced the capture", linked);
    return 0;
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

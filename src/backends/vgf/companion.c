/*
 * companion.c - the VGF backend's part of the companion PTE
 * (docs/analysis.md, "Companion PTE"): the `VgfBackend` delegate of the
 * selected method, whose blob must be a VGF file (vgf_companion_locate; a
 * method without one is fine: no VGF views), and the
 * checks of the NX statistics against its segments, with the SPIR-V
 * operations as compiler_operation entities (vgf_companion_check). The
 * pipeline reads the PTE, finds the method's plan and checks its
 * instruction ids first (src/pipeline/companion.c). These checks show
 * structural compatibility with the capture only; they cannot prove that
 * this PTE produced the capture, and the docs and page say so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/vgf/vgf_backend.h"
#include "core/cnum.h"
#include "formats/pte.h"

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

/* the companion is not a PTE with a VGF delegate */
#define FOUND(...) companion_error(err, path, "must be a .pte with a VGF delegate; found", __VA_ARGS__)
/* the companion does not describe the captured run */
#define MISMATCH(...) companion_error(err, path, "does not match the capture:", __VA_ARGS__)

bool vgf_is_blob(const uint8_t *p, uint64_t n)
{
    if (n < 4)
        return false;
    return memcmp(p, "VGF1", 4) == 0 || (p[0] == 0xC3 && p[1] == 0xD2 && p[2] == 0xE1 && p[3] == 0xF0);
}

int vgf_companion_locate(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    vgf_state *st = state;
    const char *path = c->companion_path;
    const pte_plan *plan = c->plan;
    int32_t vgf_delegate = -1;
    bool other_backend = false;
    for (uint32_t ci = 0; ci < plan->n_chains && vgf_delegate < 0; ci++)
        for (uint32_t i = 0; i < plan->chains[ci].n_instructions; i++) {
            const pte_instruction *in = &plan->chains[ci].instructions[i];
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
        mlia_backend_log(c, "companion: method '%s' calls %s; no VGF views", c->method_name,
                         other_backend ? "no VgfBackend delegate" : "no delegate");
        return 0;
    }
    const pte_delegate *dg = &plan->delegates[vgf_delegate];
    if (!dg->blob || !vgf_is_blob(dg->blob, dg->size))
        return FOUND("a VgfBackend delegate whose blob is not a VGF file");
    char *label = mlia_arena_printf(c->arena, "%s (VgfBackend delegate %d)", path, vgf_delegate);
    if (vgf_read(dg->blob, (size_t)dg->size, label, c->arena, &st->vgf, err))
        return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT);
    st->delegate_index = (uint32_t)vgf_delegate;
    mlia_backend_log(c, "companion VGF: delegate %d, %llu bytes at file offset %llu, version %u.%u.%u, %u segment(s)",
                 vgf_delegate, (unsigned long long)dg->size, (unsigned long long)dg->offset, st->vgf->major,
                 st->vgf->minor, st->vgf->patch, st->vgf->n_segments);
    for (uint32_t i = 0; i < st->vgf->n_warnings; i++)
        mlia_backend_log(c, "companion VGF warning: %s", st->vgf->warnings[i]);
    return 0;
}

int vgf_companion_check(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    const vgf_state *st = state;
    const char *path = c->companion_path;
    const nx_result *nx = st->nx;
    const vgf_file *vgf = st->vgf;

    if (!vgf) {
        mlia_backend_log(c, "companion: instruction ids and kinds match the capture; this shows structural "
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
    mlia_result *r = c->result;
    uint32_t linked = 0;
    for (uint32_t i = 0; i < nx->n_segments; i++) {
        const nx_segment *seg = &nx->segments[i];
        if (!seg->is_graph)
            continue;
        const vgf_segment *vs = &vgf->segments[seg->segment_id];
        mlia_entity *se = mlia_result_find(r, seg->id);
        for (uint32_t k = 0; k < vs->n_operations; k++) {
            const vgf_operation *op = &vs->operations[k];
            char *id = mlia_arena_printf(c->arena, "compiler_operation/segment_%s/spirv-%u", seg->token, op->id);
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
                char *id = mlia_arena_printf(c->arena, "compiler_operation/segment_%s%s", seg->token, sp);
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
    mlia_backend_log(c, "companion: structural checks passed (%u SPIR-V link(s)); this shows structural "
                        "compatibility only, not that this PTE produced the capture", linked);
    return 0;
}


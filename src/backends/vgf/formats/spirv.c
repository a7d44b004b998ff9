/*
 * spirv.c - SPIR-V module reader (see spirv.h for the design).
 *
 * Pass 1 validates the instruction stream (word counts, strings, result ids
 * against the bound, duplicate definitions) and fills the per-id table:
 * definitions, OpName, Binding/DescriptorSet decorations, imports, entry
 * points and graph constants. Because the id table is allocated up front
 * (after checking the bound against the module length), forward references
 * from names, decorations and entry points need no later fix-up.
 *
 * Pass 2 builds the graphs and classifies operands. Debug-info ext-insts
 * (NonSemantic.Graph.DebugInfo.1) are consumed here for their names and are
 * never operations.
 */
#include "backends/vgf/formats/spirv.h"
#include "core/cnum.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SPV_MAX_WARNINGS 200
#define SPV_CONST_MAX_DEPTH 32

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct spv_reader {
    spv_module *m;
    mlia_arena *arena;
    const char *file;
    const char *context;
    mlia_error *err;
    uint32_t warn_cap;
    const char *suppressed; /* the last warning kept: "SPIR-V: further warnings suppressed (<context>)" */
} spv_reader;

static uint64_t byte_of(const spv_module *m, size_t word)
{
    return m->file_offset + (uint64_t)word * 4u;
}

static int fail(spv_reader *r, size_t word, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(spv_reader *r, size_t word, const char *fmt, ...)
{
    char what[512];
    MLIA_FORMAT_ARGS(what, fmt);
    return mlia_error_setf(r->err, r->file, "SPIR-V %s (%s, byte %" PRIu64 ")", what, r->context,
                           byte_of(r->m, word));
}

static void warn(spv_reader *r, size_t word, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(spv_reader *r, size_t word, const char *fmt, ...)
{
    spv_module *m = r->m;
    const char **slot = mlia_arena_warning_slot(r->arena, &m->warnings, &m->n_warnings, &r->warn_cap, SPV_MAX_WARNINGS,
                                                r->suppressed);
    if (!slot)
        return;
    char what[512];
    MLIA_FORMAT_ARGS(what, fmt);
    *slot = mlia_arena_printf(r->arena, "SPIR-V %s (%s, byte %" PRIu64 ")", what, r->context, byte_of(m, word));
}

/* Grow an arena array when n reaches *cap. */
static void *grow(mlia_arena *a, void *arr, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *p = mlia_arena_grow(a, arr, n, nc, elem);
    *cap = nc;
    return p;
}

/* Reads the NUL-terminated string starting at word `start` of the
 * instruction [w, w+wc). Returns the word after the string, or 0 when the
 * NUL is not inside the instruction. */
static size_t read_string(const spv_module *m, size_t w, size_t wc, size_t start, const char **out)
{
    const char *s = (const char *)&m->words[start];
    size_t max = (w + wc - start) * 4u;
    const char *nul = memchr(s, 0, max);
    if (!nul)
        return 0;
    *out = s;
    return start + (size_t)(nul - s) / 4u + 1u;
}

static bool is_constant_opcode(uint16_t op)
{
    switch (op) {
    case SPV_OP_CONSTANT_TRUE: case SPV_OP_CONSTANT_FALSE: case SPV_OP_CONSTANT:
    case SPV_OP_CONSTANT_COMPOSITE: case SPV_OP_CONSTANT_NULL: case SPV_OP_SPEC_CONSTANT_TRUE:
    case SPV_OP_SPEC_CONSTANT_FALSE: case SPV_OP_SPEC_CONSTANT: case SPV_OP_CONSTANT_COMPOSITE_REPLICATE:
        return true;
    default:
        return false;
    }
}

/* Position of the result id word within an instruction (1 or 2), 0 when
 * the opcode defines no id we track; *min_wc = smallest valid word count. */
static int result_pos(uint16_t op, unsigned *min_wc)
{
    /* grouped by (result position, smallest word count) */
    switch (op) {
    case SPV_OP_TYPE_VOID: case SPV_OP_TYPE_BOOL: case SPV_OP_TYPE_STRUCT:
        *min_wc = 2; return 1;
    case SPV_OP_STRING: case SPV_OP_EXT_INST_IMPORT: case SPV_OP_TYPE_FLOAT: case SPV_OP_TYPE_TENSOR_ARM:
    case SPV_OP_TYPE_GRAPH_ARM:
        *min_wc = 3; return 1;
    case SPV_OP_TYPE_INT: case SPV_OP_TYPE_ARRAY: case SPV_OP_TYPE_POINTER:
        *min_wc = 4; return 1;
    case SPV_OP_CONSTANT_TRUE: case SPV_OP_CONSTANT_FALSE: case SPV_OP_CONSTANT_NULL: case SPV_OP_SPEC_CONSTANT_TRUE:
    case SPV_OP_SPEC_CONSTANT_FALSE: case SPV_OP_CONSTANT_COMPOSITE: case SPV_OP_GRAPH_ARM:
        *min_wc = 3; return 2;
    case SPV_OP_CONSTANT: case SPV_OP_SPEC_CONSTANT: case SPV_OP_CONSTANT_COMPOSITE_REPLICATE: case SPV_OP_VARIABLE:
    case SPV_OP_COMPOSITE_EXTRACT: case SPV_OP_GRAPH_CONSTANT_ARM: case SPV_OP_GRAPH_INPUT_ARM:
        *min_wc = 4; return 2;
    case SPV_OP_EXT_INST:
        *min_wc = 5; return 2;
    default:
        *min_wc = 1; return 0;
    }
}

static unsigned min_words_other(uint16_t op)
{
    switch (op) {
    case SPV_OP_NAME: return 3;
    case SPV_OP_EXTENSION: return 2;
    case SPV_OP_MEMORY_MODEL: return 3;
    case SPV_OP_CAPABILITY: return 2;
    case SPV_OP_DECORATE: return 3;
    case SPV_OP_GRAPH_ENTRY_POINT_ARM: return 3;
    case SPV_OP_GRAPH_SET_OUTPUT_ARM: return 3;
    default: return 1;
    }
}

static spv_set_kind set_kind_from_name(const char *name)
{
    if (strcmp(name, "TOSA.001000.1") == 0)
        return SPV_SET_TOSA;
    if (strcmp(name, "Arm.ExperimentalMLOperations.1") == 0)
        return SPV_SET_ARM_EXP_ML;
    if (strcmp(name, "Arm.MotionEngine.100") == 0)
        return SPV_SET_ARM_MOTION;
    if (strcmp(name, "NonSemantic.Graph.DebugInfo.1") == 0)
        return SPV_SET_DEBUG_GRAPH;
    return SPV_SET_UNKNOWN;
}

static bool id_ok(const spv_module *m, uint32_t id)
{
    return id != 0 && id < m->bound;
}

static int pass1(spv_reader *r)
{
    spv_module *m = r->m;
    uint32_t cap_insts = 0, cap_imports = 0, cap_eps = 0, cap_gcs = 0;
    uint32_t *insts = NULL;
    size_t w = 5;
    while (w < m->n_words) {
        uint32_t first = m->words[w];
        uint16_t op = (uint16_t)(first & 0xFFFFu);
        size_t wc = first >> 16;
        if (wc == 0)
            return fail(r, w, "instruction with word count 0 (opcode %u)", op);
        if (wc > m->n_words - w)
            return fail(r, w, "instruction overruns the module (opcode %u, word count %zu, %zu words left)",
                        op, wc, m->n_words - w);
        insts = grow(r->arena, insts, m->n_insts, &cap_insts, sizeof *insts);
        insts[m->n_insts++] = (uint32_t)w;

        unsigned min_wc;
        int rp = result_pos(op, &min_wc);
        if (!rp)
            min_wc = min_words_other(op);
        if (wc < min_wc)
            return fail(r, w, "instruction too short (opcode %u, word count %zu, at least %u)", op, wc, min_wc);
        if (rp) {
            uint32_t id = m->words[w + (size_t)rp];
            if (id == 0)
                return fail(r, w, "result id 0 is invalid (opcode %u)", op);
            if (id >= m->bound)
                return fail(r, w, "result id %u is not below the id bound %u (opcode %u)", id, m->bound, op);
            if (m->ids[id].opcode)
                return fail(r, w, "result id %u defined twice (opcode %u, first at byte %" PRIu64 ")", id, op,
                            byte_of(m, m->ids[id].word));
            m->ids[id].opcode = op;
            m->ids[id].word = (uint32_t)w;
        }
        const char *s;
        switch (op) {
        case SPV_OP_NAME: {
            if (!read_string(m, w, wc, w + 2, &s))
                return fail(r, w, "OpName string not terminated inside its instruction");
            uint32_t target = m->words[w + 1];
            if (!id_ok(m, target))
                warn(r, w, "OpName target %u is not below the id bound %u", target, m->bound);
            else if (!m->ids[target].name)
                m->ids[target].name = s;
            break;
        }
        case SPV_OP_STRING:
        case SPV_OP_EXTENSION:
            if (!read_string(m, w, wc, w + (op == SPV_OP_STRING ? 2 : 1), &s))
                return fail(r, w, "%s string not terminated inside its instruction",
                            op == SPV_OP_STRING ? "OpString" : "OpExtension");
            break;
        case SPV_OP_EXT_INST_IMPORT: {
            if (!read_string(m, w, wc, w + 2, &s))
                return fail(r, w, "OpExtInstImport string not terminated inside its instruction");
            m->imports = grow(r->arena, m->imports, m->n_imports, &cap_imports, sizeof *m->imports);
            spv_import *imp = &m->imports[m->n_imports++];
            imp->id = m->words[w + 1];
            imp->name = s;
            imp->kind = (uint8_t)set_kind_from_name(s);
            break;
        }
        case SPV_OP_DECORATE: {
            uint32_t target = m->words[w + 1], deco = m->words[w + 2];
            if (!id_ok(m, target)) {
                warn(r, w, "OpDecorate target %u is not below the id bound %u", target, m->bound);
                break;
            }
            if ((deco == 33 || deco == 34) && wc >= 4) {
                if (deco == 33)
                    m->ids[target].binding = m->words[w + 3];
                else
                    m->ids[target].set = m->words[w + 3];
            }
            break;
        }
        case SPV_OP_GRAPH_ENTRY_POINT_ARM: {
            size_t after = read_string(m, w, wc, w + 2, &s);
            if (!after)
                return fail(r, w, "OpGraphEntryPointARM name not terminated inside its instruction");
            m->entry_points = grow(r->arena, m->entry_points, m->n_entry_points, &cap_eps, sizeof *m->entry_points);
            spv_entry_point *ep = &m->entry_points[m->n_entry_points++];
            ep->word = (uint32_t)w;
            ep->graph_id = m->words[w + 1];
            ep->name = s;
            ep->n_interface = (uint32_t)(w + wc - after);
            ep->interface = &m->words[after];
            break;
        }
        case SPV_OP_GRAPH_CONSTANT_ARM: {
            uint32_t cid = m->words[w + 3];
            for (uint32_t i = 0; i < m->n_graph_constants; i++)
                if (m->graph_constants[i].constant_id == cid)
                    return fail(r, w, "GraphConstantID %u defined twice (%%%u and %%%u)", cid,
                                m->graph_constants[i].id, m->words[w + 2]);
            m->graph_constants = grow(r->arena, m->graph_constants, m->n_graph_constants, &cap_gcs,
                                      sizeof *m->graph_constants);
            spv_graph_constant *gc = &m->graph_constants[m->n_graph_constants++];
            gc->type = m->words[w + 1];
            gc->id = m->words[w + 2];
            gc->constant_id = cid;
            break;
        }
        default:
            break;
        }
        w += wc;
    }
    m->inst_words = insts;
    return 0;
}

static spv_operand classify(spv_reader *r, uint32_t gi, uint32_t id)
{
    spv_module *m = r->m;
    spv_operand o = {id, SPV_VALUE_UNRESOLVED, 0};
    if (!id_ok(m, id))
        return o;
    const spv_id_info *info = &m->ids[id];
    switch (info->opcode) {
    case SPV_OP_GRAPH_INPUT_ARM:
        if (info->graph == gi + 1) {
            o.cls = SPV_VALUE_GRAPH_INPUT;
            o.index = m->graphs[gi].inputs[info->pos].index;
        }
        break;
    case SPV_OP_EXT_INST:
    case SPV_OP_COMPOSITE_EXTRACT:
        if (info->graph == gi + 1) {
            o.cls = SPV_VALUE_OP_RESULT;
            o.index = info->pos;
        }
        break;
    case SPV_OP_GRAPH_CONSTANT_ARM:
        o.cls = SPV_VALUE_GRAPH_CONSTANT;
        o.index = m->words[info->word + 3];
        break;
    default:
        if (is_constant_opcode(info->opcode))
            o.cls = SPV_VALUE_MODULE_CONSTANT;
        break;
    }
    return o;
}

static void debug_ext_inst(spv_reader *r, size_t w, size_t wc)
{
    spv_module *m = r->m;
    if (m->words[w + 4] != 2 || wc < 8)
        return; /* only DebugOperation carries names we use */
    uint32_t name_id = m->words[w + 6];
    if (!id_ok(m, name_id) || m->ids[name_id].opcode != SPV_OP_STRING) {
        warn(r, w, "DebugOperation name %%%u is not an OpString", name_id);
        return;
    }
    const char *name = (const char *)&m->words[m->ids[name_id].word + 2];
    for (size_t k = 7; k < wc; k++) {
        uint32_t id = m->words[w + k];
        if (!id_ok(m, id)) {
            warn(r, w, "DebugOperation names id %u, not below the id bound %u", id, m->bound);
            continue;
        }
        if (m->ids[id].opcode == SPV_OP_STRING)
            continue;
        if (!m->ids[id].debug_name)
            m->ids[id].debug_name = name;
    }
}

static int pass2(spv_reader *r)
{
    spv_module *m = r->m;
    uint32_t cap_graphs = 0, cap_in = 0, cap_ops = 0, cap_out = 0;
    int64_t cur = -1; /* graph index being read */
    spv_graph *g = NULL;
    for (uint32_t k = 0; k < m->n_insts; k++) {
        size_t w = m->inst_words[k];
        uint16_t op = spv_inst_opcode(m, (uint32_t)w);
        size_t wc = spv_inst_count(m, (uint32_t)w);
        switch (op) {
        case SPV_OP_GRAPH_ARM: {
            if (cur >= 0)
                return fail(r, w, "OpGraphARM %%%u inside graph %%%u", m->words[w + 2], g->id);
            m->graphs = grow(r->arena, m->graphs, m->n_graphs, &cap_graphs, sizeof *m->graphs);
            cur = m->n_graphs++;
            g = &m->graphs[cur];
            memset(g, 0, sizeof *g);
            cap_in = cap_ops = cap_out = 0;
            g->type_id = m->words[w + 1];
            g->id = m->words[w + 2];
            uint32_t t = g->type_id;
            if (id_ok(m, t) && m->ids[t].opcode == SPV_OP_TYPE_GRAPH_ARM) {
                size_t tw = m->ids[t].word, twc = spv_inst_count(m, (uint32_t)tw);
                g->num_inputs = m->words[tw + 2];
                g->n_io_types = (uint32_t)(twc - 3);
                g->io_types = &m->words[tw + 3];
                if (g->num_inputs > g->n_io_types) {
                    warn(r, w, "OpTypeGraphARM %%%u declares %u inputs but has %u types", t, g->num_inputs,
                         g->n_io_types);
                    g->num_inputs = g->n_io_types;
                }
            } else {
                warn(r, w, "OpGraphARM %%%u result type %%%u is not an OpTypeGraphARM", g->id, t);
            }
            break;
        }
        case SPV_OP_GRAPH_INPUT_ARM: {
            if (cur < 0)
                return fail(r, w, "OpGraphInputARM outside a graph");
            if (g->n_ops || g->n_outputs)
                warn(r, w, "OpGraphInputARM %%%u after the first operation of graph %%%u", m->words[w + 2], g->id);
            g->inputs = grow(r->arena, g->inputs, g->n_inputs, &cap_in, sizeof *g->inputs);
            spv_graph_input *in = &g->inputs[g->n_inputs];
            memset(in, 0, sizeof *in);
            in->type = m->words[w + 1];
            in->id = m->words[w + 2];
            if (spv_const_u32(m, m->words[w + 3], &in->index) != 0) {
                warn(r, w, "OpGraphInputARM %%%u InputIndex %%%u is not an integer constant", in->id,
                     m->words[w + 3]);
                in->index = UINT32_MAX;
            }
            if (wc >= 5) {
                in->has_element = true;
                if (spv_const_u32(m, m->words[w + 4], &in->element) != 0)
                    in->element = UINT32_MAX;
            }
            m->ids[in->id].graph = (uint32_t)cur + 1;
            m->ids[in->id].pos = g->n_inputs++;
            break;
        }
        case SPV_OP_EXT_INST:
        case SPV_OP_COMPOSITE_EXTRACT: {
            if (op == SPV_OP_EXT_INST && spv_set_kind_of(m, m->words[w + 3]) == SPV_SET_DEBUG_GRAPH) {
                debug_ext_inst(r, w, wc);
                break;
            }
            if (cur < 0)
                break; /* e.g. GLSL.std.450 in a shader function */
            if (g->n_outputs)
                warn(r, w, "operation %%%u after OpGraphSetOutputARM in graph %%%u", m->words[w + 2], g->id);
            g->ops = grow(r->arena, g->ops, g->n_ops, &cap_ops, sizeof *g->ops);
            spv_op *o = &g->ops[g->n_ops];
            memset(o, 0, sizeof *o);
            o->word = (uint32_t)w;
            o->opcode = op;
            o->result_type = m->words[w + 1];
            o->result_id = m->words[w + 2];
            size_t first_operand;
            if (op == SPV_OP_EXT_INST) {
                o->set_id = m->words[w + 3];
                o->set_kind = (uint8_t)spv_set_kind_of(m, o->set_id);
                o->instruction = m->words[w + 4];
                first_operand = 5;
                if (o->set_kind == SPV_SET_ARM_EXP_ML && o->instruction == 0 && wc > 5) {
                    o->has_literal = true;
                    o->literal = m->words[w + 5];
                    first_operand = 6;
                }
                if (o->set_kind == SPV_SET_UNKNOWN)
                    warn(r, w, "operation %%%u uses unknown instruction set %%%u", o->result_id, o->set_id);
                else if (o->set_kind == SPV_SET_TOSA && o->instruction > 65)
                    warn(r, w, "operation %%%u has unknown TOSA opcode %u", o->result_id, o->instruction);
            } else {
                first_operand = 3;
                o->n_indexes = (uint32_t)(wc - 4);
                o->indexes = &m->words[w + 4];
            }
            size_t n = op == SPV_OP_EXT_INST ? wc - first_operand : 1;
            o->n_operands = (uint32_t)n;
            o->operands = mlia_arena_array(r->arena, n ? n : 1, sizeof *o->operands);
            for (size_t i = 0; i < n; i++) {
                o->operands[i] = classify(r, (uint32_t)cur, m->words[w + first_operand + i]);
                if (o->operands[i].cls == SPV_VALUE_UNRESOLVED)
                    warn(r, w, "operand %zu (%%%u) of operation %%%u is not a graph input, earlier result or constant",
                         i, o->operands[i].id, o->result_id);
            }
            m->ids[o->result_id].graph = (uint32_t)cur + 1;
            m->ids[o->result_id].pos = g->n_ops++;
            break;
        }
        case SPV_OP_GRAPH_SET_OUTPUT_ARM: {
            if (cur < 0)
                return fail(r, w, "OpGraphSetOutputARM outside a graph");
            g->outputs = grow(r->arena, g->outputs, g->n_outputs, &cap_out, sizeof *g->outputs);
            spv_graph_output *out = &g->outputs[g->n_outputs++];
            memset(out, 0, sizeof *out);
            out->value = classify(r, (uint32_t)cur, m->words[w + 1]);
            if (out->value.cls == SPV_VALUE_UNRESOLVED)
                warn(r, w, "graph %%%u output value %%%u is not a graph input, result or constant", g->id,
                     out->value.id);
            if (spv_const_u32(m, m->words[w + 2], &out->index) != 0) {
                warn(r, w, "OpGraphSetOutputARM OutputIndex %%%u is not an integer constant", m->words[w + 2]);
                out->index = UINT32_MAX;
            }
            if (wc >= 4) {
                out->has_element = true;
                if (spv_const_u32(m, m->words[w + 3], &out->element) != 0)
                    out->element = UINT32_MAX;
            }
            break;
        }
        case SPV_OP_GRAPH_END_ARM:
            if (cur < 0)
                return fail(r, w, "OpGraphEndARM outside a graph");
            cur = -1;
            g = NULL;
            break;
        default:
            break;
        }
    }
    if (cur >= 0)
        return fail(r, m->n_words, "graph %%%u not terminated by OpGraphEndARM", g->id);
    /* Attach entry points and debug names. */
    for (uint32_t i = 0; i < m->n_graphs; i++) {
        spv_graph *gr = &m->graphs[i];
        for (uint32_t e = 0; e < m->n_entry_points && !gr->entry; e++)
            if (m->entry_points[e].graph_id == gr->id)
                gr->entry = &m->entry_points[e];
        for (uint32_t k = 0; k < gr->n_ops; k++)
            gr->ops[k].debug_name = m->ids[gr->ops[k].result_id].debug_name;
    }
    for (uint32_t e = 0; e < m->n_entry_points; e++) {
        uint32_t gid = m->entry_points[e].graph_id;
        if (!id_ok(m, gid) || m->ids[gid].opcode != SPV_OP_GRAPH_ARM)
            warn(r, m->entry_points[e].word, "OpGraphEntryPointARM \"%s\" names %%%u, which is not an OpGraphARM",
                 m->entry_points[e].name, gid);
    }
    return 0;
}

int spv_read(const uint8_t *bytes, size_t n_words, uint64_t file_offset, const char *file,
             const char *context, mlia_arena *arena, spv_module **out, mlia_error *err)
{
    spv_module *m = mlia_arena_alloc(arena, sizeof *m);
    spv_reader r = {m, arena, file, context ? context : "module", err, 0, NULL};
    r.suppressed = mlia_arena_printf(arena, "SPIR-V: further warnings suppressed (%s)", r.context);
    m->file_offset = file_offset;
    if (n_words < 5) {
        m->n_words = 0;
        return fail(&r, 0, "module too short (%zu words, a header needs 5)", n_words);
    }
    uint32_t *words = mlia_arena_array(arena, n_words, sizeof *words);
    for (size_t i = 0; i < n_words; i++)
        words[i] = le32(bytes + i * 4u);
    m->words = words;
    m->n_words = n_words;
    if (words[0] == 0x03022307u)
        return fail(&r, 0, "big-endian module (byte-swapped magic) is not supported");
    if (words[0] != SPV_MAGIC)
        return fail(&r, 0, "bad magic 0x%08x", words[0]);
    m->version = words[1];
    m->generator = words[2];
    m->bound = words[3];
    /* The id table is sized by the bound; a bound far beyond what the
     * module's words could define is refused before allocating. */
    if (m->bound > n_words + 1024u)
        return fail(&r, 3, "id bound %u is implausible for a module of %zu words", m->bound, n_words);
    if (words[4] != 0)
        warn(&r, 4, "header schema word is %u, expected 0", words[4]);
    m->ids = mlia_arena_array(arena, m->bound ? m->bound : 1, sizeof *m->ids);
    for (uint32_t i = 0; i < m->bound; i++)
        m->ids[i].binding = m->ids[i].set = -1;
    if (pass1(&r) != 0 || pass2(&r) != 0)
        return -1;
    *out = m;
    return 0;
}

uint32_t spv_count_opcode(const spv_module *m, uint16_t opcode)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_insts; i++)
        if (spv_inst_opcode(m, m->inst_words[i]) == opcode)
            n++;
    return n;
}

uint16_t spv_id_opcode(const spv_module *m, uint32_t id)
{
    return id < m->bound ? m->ids[id].opcode : 0;
}

spv_set_kind spv_set_kind_of(const spv_module *m, uint32_t set_id)
{
    for (uint32_t i = 0; i < m->n_imports; i++)
        if (m->imports[i].id == set_id)
            return (spv_set_kind)m->imports[i].kind;
    return SPV_SET_UNKNOWN;
}

uint32_t spv_find_set(const spv_module *m, spv_set_kind kind)
{
    for (uint32_t i = 0; i < m->n_imports; i++)
        if (m->imports[i].kind == kind)
            return m->imports[i].id;
    return 0;
}

/* ---------------------------------------------------------------- types */

int spv_const_u32(const spv_module *m, uint32_t id, uint32_t *out)
{
    if (!id_ok(m, id))
        return -1;
    const spv_id_info *info = &m->ids[id];
    if (info->opcode == SPV_OP_CONSTANT || info->opcode == SPV_OP_SPEC_CONSTANT) {
        uint32_t t = m->words[info->word + 1];
        if (!id_ok(m, t) || m->ids[t].opcode != SPV_OP_TYPE_INT)
            return -1;
        *out = m->words[info->word + 3];
        return 0;
    }
    if (info->opcode == SPV_OP_CONSTANT_NULL) {
        uint32_t t = m->words[info->word + 1];
        if (!id_ok(m, t) || m->ids[t].opcode != SPV_OP_TYPE_INT)
            return -1;
        *out = 0;
        return 0;
    }
    return -1;
}

/* Scalar type: fills kind/width/encoding; -1 for non-scalars. */
static int scalar_type(const spv_module *m, uint32_t id, spv_type *t)
{
    if (!id_ok(m, id))
        return -1;
    const spv_id_info *info = &m->ids[id];
    size_t w = info->word;
    switch (info->opcode) {
    case SPV_OP_TYPE_BOOL:
        t->kind = SPV_TYPE_BOOL;
        t->width = 1;
        return 0;
    case SPV_OP_TYPE_INT:
        t->kind = SPV_TYPE_INT;
        t->width = m->words[w + 2];
        return t->width >= 1 && t->width <= 64 ? 0 : -1;
    case SPV_OP_TYPE_FLOAT:
        t->kind = SPV_TYPE_FLOAT;
        t->width = m->words[w + 2];
        t->encoding = spv_inst_count(m, (uint32_t)w) > 3 ? m->words[w + 3] : 0xFFFFFFFFu;
        return t->width >= 1 && t->width <= 64 ? 0 : -1;
    default:
        return -1;
    }
}

static int const_decode(const spv_module *m, uint32_t id, mlia_arena *arena, uint64_t max_values, int depth,
                        spv_const *out);

static int type_of(const spv_module *m, uint32_t type_id, int depth, spv_type *out)
{
    memset(out, 0, sizeof *out);
    out->encoding = 0xFFFFFFFFu;
    if (depth > SPV_CONST_MAX_DEPTH || !id_ok(m, type_id))
        return -1;
    const spv_id_info *info = &m->ids[type_id];
    size_t w = info->word, wc = info->opcode ? spv_inst_count(m, (uint32_t)w) : 0;
    switch (info->opcode) {
    case SPV_OP_TYPE_BOOL:
    case SPV_OP_TYPE_INT:
    case SPV_OP_TYPE_FLOAT:
        if (scalar_type(m, type_id, out) != 0)
            return -1;
        out->elem_kind = out->kind;
        return 0;
    case SPV_OP_TYPE_STRUCT:
        out->kind = SPV_TYPE_STRUCT;
        return 0;
    case SPV_OP_TYPE_ARRAY: {
        spv_type e;
        memset(&e, 0, sizeof e);
        uint32_t len;
        if (scalar_type(m, m->words[w + 2], &e) != 0 || spv_const_u32(m, m->words[w + 3], &len) != 0)
            return -1;
        out->kind = SPV_TYPE_ARRAY;
        out->elem_kind = e.kind;
        out->width = e.width;
        out->encoding = e.encoding;
        out->ranked = out->shaped = true;
        out->rank = 1;
        out->dims[0] = len;
        return 0;
    }
    case SPV_OP_TYPE_TENSOR_ARM: {
        spv_type e;
        memset(&e, 0, sizeof e);
        e.encoding = 0xFFFFFFFFu;
        if (scalar_type(m, m->words[w + 2], &e) != 0)
            return -1;
        out->kind = SPV_TYPE_TENSOR;
        out->elem_kind = e.kind;
        out->width = e.width;
        out->encoding = e.encoding;
        if (wc > 3) {
            uint32_t rank;
            if (spv_const_u32(m, m->words[w + 3], &rank) != 0 || rank > SPV_MAX_RANK)
                return -1;
            out->ranked = true;
            out->rank = rank;
        }
        if (wc > 4) {
            /* The shape is a constant array of `rank` dims; reading it
             * cannot recurse back here (arrays hold scalars only). */
            mlia_arena tmp;
            mlia_arena_init(&tmp);
            spv_const c;
            int rc = const_decode(m, m->words[w + 4], &tmp, SPV_MAX_RANK + 1, depth + 1, &c);
            if (rc == 0 && c.type.kind == SPV_TYPE_ARRAY && c.n_values == out->rank && !c.truncated) {
                for (uint32_t i = 0; i < out->rank; i++)
                    out->dims[i] = (uint32_t)c.values[i];
                out->shaped = true;
            }
            mlia_arena_free(&tmp);
            if (!out->shaped)
                return -1;
        }
        return 0;
    }
    default:
        return -1;
    }
}

int spv_type_of(const spv_module *m, uint32_t type_id, spv_type *out)
{
    return type_of(m, type_id, 0, out);
}

void spv_elem_text(const spv_type *t, mlia_buf *b)
{
    switch (t->elem_kind) {
    case SPV_TYPE_BOOL:
        mlia_buf_puts(b, "i1");
        break;
    case SPV_TYPE_INT:
        mlia_buf_printf(b, "i%u", t->width);
        break;
    case SPV_TYPE_FLOAT:
        if (t->width == 16 && t->encoding == 0)
            mlia_buf_puts(b, "bf16");
        else if (t->width == 8 && t->encoding == 4214)
            mlia_buf_puts(b, "f8E4M3FN");
        else if (t->width == 8 && t->encoding == 4215)
            mlia_buf_puts(b, "f8E5M2");
        else
            mlia_buf_printf(b, "f%u", t->width);
        break;
    default:
        mlia_buf_puts(b, "?");
        break;
    }
}

void spv_type_text(const spv_module *m, uint32_t type_id, mlia_buf *b)
{
    spv_type t;
    if (spv_type_of(m, type_id, &t) != 0) {
        mlia_buf_puts(b, "?");
        return;
    }
    switch (t.kind) {
    case SPV_TYPE_TENSOR:
        mlia_buf_puts(b, "!spirv.arm.tensor<");
        if (!t.ranked)
            mlia_buf_puts(b, "*x");
        for (uint32_t i = 0; i < t.rank; i++) {
            if (t.shaped)
                mlia_buf_printf(b, "%" PRIu64 "x", t.dims[i]);
            else
                mlia_buf_puts(b, "?x");
        }
        spv_elem_text(&t, b);
        mlia_buf_putc(b, '>');
        break;
    case SPV_TYPE_ARRAY:
        mlia_buf_printf(b, "!spirv.array<%" PRIu64 " x ", t.dims[0]);
        spv_elem_text(&t, b);
        mlia_buf_putc(b, '>');
        break;
    case SPV_TYPE_STRUCT: {
        const spv_id_info *info = &m->ids[type_id];
        size_t wc = spv_inst_count(m, info->word);
        mlia_buf_puts(b, "!spirv.struct<(");
        for (size_t i = 2; i < wc; i++) {
            if (i > 2)
                mlia_buf_puts(b, ", ");
            spv_type mt;
            uint32_t mid = m->words[info->word + i];
            /* Members are tensors or scalars; a nested struct prints "?". */
            if (spv_type_of(m, mid, &mt) == 0 && mt.kind != SPV_TYPE_STRUCT)
                spv_type_text(m, mid, b);
            else
                mlia_buf_puts(b, "?");
        }
        mlia_buf_puts(b, ")>");
        break;
    }
    default:
        spv_elem_text(&t, b);
        break;
    }
}

uint32_t spv_value_type(const spv_module *m, uint32_t id)
{
    if (!id_ok(m, id))
        return 0;
    const spv_id_info *info = &m->ids[id];
    unsigned min_wc;
    if (result_pos(info->opcode, &min_wc) == 2)
        return m->words[info->word + 1];
    return 0;
}

/* ------------------------------------------------------------ constants */

typedef struct const_dec {
    const spv_module *m;
    mlia_arena *arena;
    int64_t *vals;
    uint64_t n, cap, limit, count, work;
    uint8_t elem_kind;
    uint32_t width;
    bool truncated;
} const_dec;

static void push(const_dec *d, int64_t v)
{
    d->count++;
    if (d->n >= d->limit) {
        d->truncated = true;
        return;
    }
    if (d->n == d->cap) {
        uint64_t nc = d->cap ? d->cap * 2 : 16;
        if (nc > d->limit)
            nc = d->limit;
        d->vals = mlia_arena_grow(d->arena, d->vals, d->n, nc, sizeof *d->vals);
        d->cap = nc;
    }
    d->vals[d->n++] = v;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static uint64_t type_elements(const spv_type *t)
{
    if (t->kind == SPV_TYPE_BOOL || t->kind == SPV_TYPE_INT || t->kind == SPV_TYPE_FLOAT)
        return 1;
    if (!t->shaped)
        return 0;
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        n = sat_mul(n, t->dims[i]);
    return n;
}

static int64_t sign_extend(uint64_t v, uint32_t width)
{
    if (width >= 64)
        return (int64_t)v;
    uint64_t mask = (UINT64_C(1) << width) - 1u;
    v &= mask;
    uint64_t sign = UINT64_C(1) << (width - 1);
    return (int64_t)((v ^ sign) - sign);
}

static int dec_value(const_dec *d, uint32_t id, uint32_t user_word, int depth)
{
    const spv_module *m = d->m;
    if (depth > SPV_CONST_MAX_DEPTH || !id_ok(m, id))
        return -1;
    if (++d->work > 4u * d->limit + 1024u) {
        d->truncated = true;
        return 0;
    }
    const spv_id_info *info = &m->ids[id];
    /* Constituents must be defined before their user, so decoding is
     * acyclic. */
    if (!is_constant_opcode(info->opcode) || info->word >= user_word)
        return -1;
    size_t w = info->word, wc = spv_inst_count(m, info->word);
    uint32_t type_id = m->words[w + 1];
    spv_type t;
    if (type_of(m, type_id, depth + 1, &t) != 0)
        return -1;
    if (t.kind == SPV_TYPE_STRUCT)
        return -1;
    if (d->elem_kind == 0) {
        d->elem_kind = t.elem_kind;
        d->width = t.width;
    }
    switch (info->opcode) {
    case SPV_OP_CONSTANT_TRUE:
    case SPV_OP_SPEC_CONSTANT_TRUE:
    case SPV_OP_CONSTANT_FALSE:
    case SPV_OP_SPEC_CONSTANT_FALSE:
        if (t.kind != SPV_TYPE_BOOL)
            return -1;
        push(d, info->opcode == SPV_OP_CONSTANT_TRUE || info->opcode == SPV_OP_SPEC_CONSTANT_TRUE);
        return 0;
    case SPV_OP_CONSTANT:
    case SPV_OP_SPEC_CONSTANT: {
        if (t.kind != SPV_TYPE_INT && t.kind != SPV_TYPE_FLOAT)
            return -1;
        uint64_t v = m->words[w + 3];
        if (t.width > 32) {
            if (wc < 5)
                return -1;
            v |= (uint64_t)m->words[w + 4] << 32;
        }
        push(d, t.kind == SPV_TYPE_INT ? sign_extend(v, t.width) : (int64_t)v);
        return 0;
    }
    case SPV_OP_CONSTANT_NULL: {
        uint64_t n = type_elements(&t);
        for (uint64_t i = 0; i < n; i++) {
            if (d->n >= d->limit) {
                d->truncated = true;
                d->count += n - i;
                break;
            }
            push(d, 0);
        }
        return 0;
    }
    case SPV_OP_CONSTANT_COMPOSITE:
        if (t.kind != SPV_TYPE_ARRAY && t.kind != SPV_TYPE_TENSOR)
            return -1;
        for (size_t i = 3; i < wc; i++)
            if (dec_value(d, m->words[w + i], (uint32_t)w, depth + 1) != 0)
                return -1;
        return 0;
    case SPV_OP_CONSTANT_COMPOSITE_REPLICATE: {
        if ((t.kind != SPV_TYPE_ARRAY && t.kind != SPV_TYPE_TENSOR) || !t.shaped || t.rank == 0)
            return -1;
        uint64_t reps = t.dims[0];
        uint64_t n0 = d->n, c0 = d->count;
        if (reps == 0)
            return 0;
        if (dec_value(d, m->words[w + 3], (uint32_t)w, depth + 1) != 0)
            return -1;
        uint64_t sub_n = d->n - n0, sub_count = d->count - c0;
        for (uint64_t k = 1; k < reps; k++) {
            if (sub_n == 0 || d->n + sub_n > d->limit) {
                d->truncated = true;
                break;
            }
            for (uint64_t i = 0; i < sub_n; i++)
                push(d, d->vals[n0 + i]);
            d->count -= sub_n; /* counted below in one step */
        }
        d->count = c0 + sat_mul(sub_count, reps);
        return 0;
    }
    default:
        return -1;
    }
}

static int const_decode(const spv_module *m, uint32_t id, mlia_arena *arena, uint64_t max_values, int depth,
                        spv_const *out)
{
    memset(out, 0, sizeof *out);
    if (!id_ok(m, id) || !is_constant_opcode(m->ids[id].opcode))
        return -1;
    const_dec d;
    memset(&d, 0, sizeof d);
    d.m = m;
    d.arena = arena;
    d.limit = max_values ? max_values : SPV_CONST_MAX_VALUES;
    if (d.limit > SPV_CONST_MAX_VALUES)
        d.limit = SPV_CONST_MAX_VALUES;
    /* user_word = n_words: the top constant may be used anywhere. */
    if (dec_value(&d, id, (uint32_t)m->n_words, depth) != 0)
        return -1;
    out->opcode = m->ids[id].opcode;
    type_of(m, m->words[m->ids[id].word + 1], depth + 1, &out->type);
    out->elem_kind = d.elem_kind;
    out->elem_width = d.width;
    out->count = d.count;
    out->n_values = d.n;
    out->values = d.vals ? d.vals : mlia_arena_alloc(arena, sizeof(int64_t));
    out->truncated = d.truncated || d.n < d.count;
    return 0;
}

int spv_const_decode(const spv_module *m, uint32_t id, mlia_arena *arena, uint64_t max_values, spv_const *out)
{
    return const_decode(m, id, arena, max_values, 0, out);
}

void spv_value_text(const spv_const *c, uint64_t i, mlia_buf *b)
{
    if (i >= c->n_values) {
        mlia_buf_puts(b, "?");
        return;
    }
    int64_t v = c->values[i];
    if (c->elem_kind == SPV_TYPE_BOOL) {
        mlia_buf_puts(b, v ? "true" : "false");
    } else if (c->elem_kind == SPV_TYPE_FLOAT) {
        double d;
        if (c->elem_width == 32) {
            float f;
            uint32_t u = (uint32_t)v;
            memcpy(&f, &u, sizeof f);
            d = f;
        } else if (c->elem_width == 64) {
            uint64_t u = (uint64_t)v;
            memcpy(&d, &u, sizeof d);
        } else {
            mlia_buf_printf(b, "0x%" PRIx64, (uint64_t)v & 0xFFFFu);
            return;
        }
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.9g", d);
        mlia_buf_puts(b, tmp);
    } else {
        mlia_buf_printf(b, "%" PRId64, v);
    }
}

const char *spv_const_kind(const spv_module *m, uint32_t id)
{
    switch (spv_id_opcode(m, id)) {
    case SPV_OP_CONSTANT_TRUE: case SPV_OP_CONSTANT_FALSE:
    case SPV_OP_SPEC_CONSTANT_TRUE: case SPV_OP_SPEC_CONSTANT_FALSE:
        return "bool";
    case SPV_OP_CONSTANT: case SPV_OP_SPEC_CONSTANT:
        return "scalar";
    case SPV_OP_CONSTANT_COMPOSITE:
        return "composite";
    case SPV_OP_CONSTANT_NULL:
        return "null";
    case SPV_OP_CONSTANT_COMPOSITE_REPLICATE:
        return "replicate";
    default:
        return NULL;
    }
}

/*
 * fingerprint.c - the program fingerprint (see fingerprint.h).
 *
 * Every field of the canonical text is written as "<length>:<bytes>" so
 * that no name, whatever bytes it holds, can make two different programs
 * produce the same text.
 */
#include "analysis/fingerprint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"
#include "core/str.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"

static void field(mlia_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    mlia_buf_printf(b, "%zu:", n);
    if (n)
        mlia_buf_append(b, s, n);
    mlia_buf_putc(b, ' ');
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted distinct handles of one delegated instruction (inner delegate map
 * handles when present, else the instruction's own). Returns the count. */
static uint32_t delegate_handles(const struct etrecord_method *m, uint32_t instr, mlia_arena *a, int64_t **out)
{
    const etrecord_delegate_entry *de = &m->delegates[instr];
    const etrecord_handles *h = &m->debug_handles[instr];
    size_t total = 0;
    if (de->n_keys)
        for (uint32_t k = 0; k < de->n_keys; k++)
            total += de->handles[k].n;
    else if (h->present)
        total = h->n;
    int64_t *v = mlia_arena_array(a, total ? total : 1, sizeof *v);
    size_t n = 0;
    if (de->n_keys) {
        for (uint32_t k = 0; k < de->n_keys; k++)
            for (uint32_t j = 0; j < de->handles[k].n; j++)
                v[n++] = de->handles[k].v[j];
    } else if (h->present) {
        for (uint32_t j = 0; j < h->n; j++)
            v[n++] = h->v[j];
    }
    qsort(v, n, sizeof *v, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || v[u - 1] != v[i])
            v[u++] = v[i];
    *out = v;
    return (uint32_t)u;
}

void mlia_program_fingerprint_compute(const char *method, const struct ep_program *program,
                                      const struct etrecord_method *maps, mlia_arena *arena,
                                      mlia_program_fingerprint *out)
{
    memset(out, 0, sizeof *out);
    out->method = method;
    if (!program && !maps)
        return;
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_printf(&b, "mlia.program/%d\n", MLIA_FINGERPRINT_VERSION);
    mlia_buf_puts(&b, "method ");
    field(&b, method);
    mlia_buf_putc(&b, '\n');
    if (program) {
        const ep_graph *g = &program->graph;
        out->operators = g->n_nodes;
        int64_t *handles = mlia_arena_array(arena, g->n_nodes ? g->n_nodes : 1, sizeof *handles);
        uint32_t nh = 0;
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            const ep_node *nd = &g->nodes[i];
            mlia_buf_puts(&b, "node ");
            field(&b, nd->name);
            field(&b, nd->target);
            mlia_buf_printf(&b, "%" PRId64 "\n", nd->debug_handle);
            if (nd->debug_handle)
                handles[nh++] = nd->debug_handle;
        }
        qsort(handles, nh, sizeof *handles, cmp_i64);
        for (uint32_t i = 0; i < nh; i++)
            if (i == 0 || handles[i] != handles[i - 1])
                out->debug_handles++;
    }
    if (maps) {
        const char **backends = mlia_arena_array(arena, maps->n_instr ? maps->n_instr : 1, sizeof *backends);
        uint32_t nb = 0;
        for (uint32_t i = 0; i < maps->n_instr; i++) {
            const etrecord_delegate_entry *de = &maps->delegates[i];
            if (!de->present)
                continue;
            out->delegate_segments++;
            int64_t *hv;
            uint32_t n = delegate_handles(maps, i, arena, &hv);
            mlia_buf_printf(&b, "delegate %u ", i);
            field(&b, de->backend);
            for (uint32_t j = 0; j < n; j++)
                mlia_buf_printf(&b, "%s%" PRId64, j ? "," : "", hv[j]);
            mlia_buf_putc(&b, '\n');
            if (de->backend)
                backends[nb++] = de->backend;
        }
        qsort(backends, nb, sizeof *backends, cmp_str);
        uint32_t u = 0;
        for (uint32_t i = 0; i < nb; i++)
            if (!u || strcmp(backends[u - 1], backends[i]) != 0)
                backends[u++] = backends[i];
        out->backends = backends;
        out->n_backends = u;
    }
    mlia_sha256_hex(b.data ? b.data : "", b.len, out->program);
    mlia_buf_free(&b);
    out->present = true;
}

/*
 * delegate_map.c - exact lookup of delegate event identifiers in the
 * ETRecord's inner delegate map (delegate_map.h).
 */
#include <stdio.h>
#include <string.h>

#include "analysis/delegate_map.h"

void delegate_map_index_init(delegate_map_index *x, const etrecord_method *maps, const ep_program *program,
                             const char *method, mlia_arena *arena)
{
    memset(x, 0, sizeof *x);
    x->maps = maps;
    x->program = program;
    x->method = method;
    x->arena = arena;
    if (program)
        x->idx = ep_handle_index(&program->graph, arena, &x->n);
}

delegate_mapping delegate_map_link(const delegate_map_index *x, uint32_t instr, const char *key,
                                   mlia_result *r, mlia_entity *event, uint32_t *n_linked)
{
    *n_linked = 0;
    if (!x->maps || instr >= x->maps->n_instr)
        return DELEGATE_MAP_NONE;
    const etrecord_delegate_entry *de = &x->maps->delegates[instr];
    if (!de->present || !de->n_keys)
        return DELEGATE_MAP_NONE;
    for (uint32_t k = 0; k < de->n_keys; k++) {
        if (strcmp(de->keys[k], key) != 0)
            continue;
        const etrecord_handles *h = &de->handles[k];
        for (uint32_t q = 0; q < h->n; q++) {
            for (uint32_t i = x->idx ? ep_handle_first(x->idx, x->n, h->v[q]) : x->n;
                 i < x->n && x->idx[i].handle == h->v[q]; i++) {
                const ep_node *node = &x->program->graph.nodes[x->idx[i].node];
                mlia_entity *src =
                    mlia_result_find(r, mlia_arena_printf(x->arena, "source_operator/%s/%s", x->method, node->name));
                if (src) {
                    mlia_result_link(r, event, src);
                    (*n_linked)++;
                }
            }
        }
        return *n_linked ? DELEGATE_MAP_LINKED : DELEGATE_MAP_EMPTY;
    }
    return DELEGATE_MAP_NO_KEY;
}

const char *delegate_mapping_name(delegate_mapping m)
{
    switch (m) {
    case DELEGATE_MAP_LINKED:
        return "delegate map";
    case DELEGATE_MAP_EMPTY:
        return "no source operator";
    case DELEGATE_MAP_NO_KEY:
        return "not in the delegate map";
    case DELEGATE_MAP_NONE:
    default:
        return "unmapped";
    }
}

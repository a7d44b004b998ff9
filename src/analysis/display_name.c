/*
 * display_name.c - one display name per source operator (see display_name.h).
 *
 * Namesakes are found by sorting the operators by name (ties by result
 * order), so the work is O(n log n) for 100,000-operator graphs; each group
 * tries the criteria in order and checks distinctness with a hash set.
 */
#include "analysis/display_name.h"

#include <stdlib.h>
#include <string.h>

#include "core/oom.h"

typedef struct op_ref {
    const char *name;
    uint32_t index; /* in r->entities */
} op_ref;

static int cmp_ref(const void *pa, const void *pb)
{
    const op_ref *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* A group's values are pairwise different when each one enters an
 * open-addressing set (`slots`, all NULL between groups); the check stops at
 * the first missing or repeated value, so a criterion the namesakes share
 * costs a few lookups instead of a sort of the group (100,000 namesakes and
 * four criteria took 0.28 s with sorts, issue 33). */
static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Room for the set of a group of n: a power of two of at least 2n + 1. */
static size_t set_size(uint32_t n)
{
    size_t size = 4;
    while (size < 2 * (size_t)n + 1)
        size *= 2;
    return size;
}

/* Adds s to the set (size mask + 1); false when an equal string is there. */
static bool set_add(const char **slots, size_t mask, const char *s)
{
    size_t j = str_hash(s) & mask;
    for (; slots[j]; j = (j + 1) & mask)
        if (slots[j] == s || strcmp(slots[j], s) == 0)
            return false;
    slots[j] = s;
    return true;
}

static const char *attr_s(const mlia_entity *e, const char *key)
{
    const mlia_attr *a = mlia_entity_attr(e, key);
    return a && a->type == MLIA_ATTR_STRING && a->s && a->s[0] ? a->s : NULL;
}

/* The name of the entity an attribute refers to (nn_module, code_stack). */
static const char *ref_name(const mlia_result *r, const mlia_entity *e, const char *key)
{
    const char *id = attr_s(e, key);
    const mlia_entity *t = id ? mlia_result_find(r, id) : NULL;
    return t && t->name && t->name[0] ? t->name : NULL;
}

static const char *tell_of(const mlia_result *r, const mlia_entity *e, int criterion)
{
    switch (criterion) {
    case 0:
        return ref_name(r, e, "nn_module");
    case 1:
        return ref_name(r, e, "code_stack");
    case 2:
        return attr_s(e, "node_name");
    default: {
        const char *slash = strrchr(e->id, '/');
        return slash ? slash + 1 : e->id;
    }
    }
}

const char *mlia_display_name(const mlia_entity *e)
{
    const char *d = attr_s(e, "display_name");
    if (d)
        return d;
    return e->name ? e->name : e->id;
}

void mlia_display_names(mlia_result *r)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++)
        n += r->entities[i] && r->entities[i]->name && strcmp(r->entities[i]->kind, "source_operator") == 0;
    if (!n)
        return;
    op_ref *refs = malloc(n * sizeof *refs);
    const char **tells = malloc(n * sizeof *tells), **slots = calloc(set_size(n), sizeof *slots);
    if (!refs || !tells || !slots) {
        free(refs);
        free(tells);
        free(slots);
        mlia_oom(set_size(n) * sizeof *slots);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (e && e->name && strcmp(e->kind, "source_operator") == 0)
            refs[k++] = (op_ref){e->name, i};
    }
    qsort(refs, n, sizeof *refs, cmp_ref);
    for (uint32_t g = 0; g < n;) {
        uint32_t end = g + 1;
        while (end < n && strcmp(refs[end].name, refs[g].name) == 0)
            end++;
        uint32_t len = end - g;
        bool told = false;
        for (int c = 0; len > 1 && c < 4 && !told; c++) {
            size_t size = set_size(len);
            bool ok = true;
            for (uint32_t q = 0; q < len && ok; q++) {
                tells[q] = tell_of(r, r->entities[refs[g + q].index], c);
                ok = tells[q] && set_add(slots, size - 1, tells[q]);
            }
            memset(slots, 0, size * sizeof *slots);
            told = ok;
        }
        for (uint32_t q = 0; q < len; q++) {
            mlia_entity *e = r->entities[refs[g + q].index];
            if (told)
                mlia_entity_set_str(r, e, "display_name",
                                    mlia_arena_printf(r->arena, "%s (%s)", e->name, tells[q]));
            else
                mlia_entity_set_str(r, e, "display_name", e->name);
        }
        g = end;
    }
    free(refs);
    free(tells);
    free(slots);
}

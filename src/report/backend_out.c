/*
 * backend_out.c - the run record's backends as the writers look them up
 * (backend_out.h).
 */
#include <string.h>

#include "report/backend_out.h"

const mlia_backend_run *mlia_run_backend(const mlia_run_record *rec, const char *name)
{
    for (uint32_t i = 0; rec && i < rec->n_backends; i++)
        if (strcmp(rec->backends[i].name, name) == 0)
            return &rec->backends[i];
    return NULL;
}

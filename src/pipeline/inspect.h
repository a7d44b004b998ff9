/*
 * inspect.h - the `mlia inspect` pipeline (inspect.c).
 */
#ifndef MLIA_PIPELINE_INSPECT_H
#define MLIA_PIPELINE_INSPECT_H

#include "core/arena.h"
#include "core/error.h"
#include "core/file.h"
#include "core/json_write.h"
#include "formats/etrecord.h"

/* What one inspection owns; everything is released by inspect_session_free,
 * also after an out-of-memory jump out of inspect_session_run. */
typedef struct inspect_session {
    mlia_file file;        /* the input, mapped (ETDump) or read */
    mlia_arena arena;      /* decoded views; its limit follows the file size */
    etrecord *etrecord;    /* an ETRecord keeps its archive open while inspected */
} inspect_session;

void inspect_session_init(inspect_session *is);
/* Writes the document for `path` to w (ETDumps are streamed, other kinds
 * decoded whole). Returns 0, or -1 with *err set; nothing is written before
 * the input was found valid. */
int inspect_session_run(inspect_session *is, const char *path, mlia_jw *w, mlia_error *err);
void inspect_session_free(inspect_session *is);

#endif

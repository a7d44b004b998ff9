/*
 * views.h - the Model Explorer artifacts and the standalone page
 * (docs/views.md, docs/page.md).
 *
 * views_write() turns one analysed session into the files under
 * mlia-output/model-explorer/:
 *   models/<view>.json               one Model Explorer graph collection per
 *                                    available view
 *   node-data/<view>/<overlay>.json  Model Explorer node data (overlays) with
 *                                    explicit colours from kind-wide scales
 *   manifest.json                    views, files, overlay routing, reasons
 *   sync/<left>--<right>.json        Model Explorer sync navigation of one
 *                                    pair of views (plain node ids)
 *   view-links.json                  graph-qualified related nodes (ours)
 *   entity-node-mappings.json        entity id -> [{view, graph, node}]
 *   bundle/index.html                the page template with the page data
 *
 * Every view is first built into an in-memory graph model (see views_model.h)
 * so that the colour scales, the entity index and the sync mapping are
 * computed once over all views before anything is written. Design and
 * decisions: docs/views.md.
 *
 * Ownership: views_write() allocates its working memory in a private arena
 * released before it returns; nothing is retained by the session.
 */
#ifndef MLIA_REPORT_VIEWS_H
#define MLIA_REPORT_VIEWS_H

#include "analysis/run.h"
#include "core/error.h"
#include "report/outdir.h"

/* Write every Model Explorer file and the page into the temporary output
 * tree `od` (paths under "model-explorer/"). Returns 0, or -1 with err set
 * ("<path>: cannot write: <strerror>" for file errors). When me_cmd is not
 * NULL it receives (malloc'd, caller frees) the launcher that opens the
 * files in Google's Model Explorer ("open_in_model_explorer.py", in the
 * model-explorer directory; the full model-explorer command line stays in
 * manifest.json); when me_hint is not NULL, the line saying which overlay
 * to pick first (NULL without overlays). NULL on failure. */
int views_write(const mlia_run_record *s, mlia_outdir *od, char **me_cmd, char **me_hint, mlia_error *err);

#endif

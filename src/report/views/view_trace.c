/*
 * view_trace.c - the "ETDump Backend Trace" view (docs/views.md): first the
 * graphs the backends add (their trace_view_rows hook, e.g. the VGF
 * backend's "compiler_operations"), then graph "runtime_events" (delegate
 * calls and the runtime events under them).
 */
#include <stdio.h>

#include "analysis/runtime.h"
#include "report/backend_out.h"
#include "report/views/views_model.h"

/* The overlays of the view's row in views.c, in order. */
enum {
    OV_TRACE_CHAIN_GROUP,
    OV_TRACE_EVENT,
    OV_TRACE_CALL,
    OV_TRACE_CALL_SNR,
    OV_TRACE_EVENT_CYCLES,
    OV_TRACE_EVENT_EXEC_CYCLES,
    OV_TRACE_EVENT_COUNT
};

/* A delegate call's output SNR is the SNR of an operator output: the colour
 * scale of the source operators' (docs/accuracy.md). */
#define SOURCE_SNR_SCALE "source_operator|output_snr_db:p50"

/* Some backend has rows for the view. */
static bool backend_rows(const mlia_run_record *s)
{
    for (uint32_t i = 0; i < s->n_backends; i++) {
        const mlia_backend_out *o = s->backends[i].out;
        if (o->trace_view_has_rows && o->trace_view_has_rows(s->backends[i].state))
            return true;
    }
    return false;
}

static bool has_delegate_calls(const runtime_analysis *ra)
{
    return ra && ra->n_calls;
}

const char *vw_trace_unavailable(const mlia_run_record *s)
{
    if (backend_rows(s) || has_delegate_calls(s->runtime))
        return NULL;
    /* the first backend that says what it would have shown, in its words */
    for (uint32_t i = 0; i < s->n_backends; i++)
        if (s->backends[i].out->trace_view_unavailable)
            return s->backends[i].out->trace_view_unavailable;
    return "No delegate runtime events in the ETDump.";
}

void vw_trace_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const runtime_analysis *ra = s->runtime;
    const mlia_result *r = s->result;
    v->overlays[OV_TRACE_CALL_SNR].scale_key = SOURCE_SNR_SCALE;
    for (uint32_t i = 0; i < s->n_backends; i++)
        if (s->backends[i].out->trace_view_rows)
            s->backends[i].out->trace_view_rows(c, v, s->backends[i].state, OV_TRACE_CHAIN_GROUP);
    if (has_delegate_calls(ra)) {
        uint32_t gi = vw_graph_add(c, v, "runtime_events");
        for (uint32_t i = 0; i < ra->n_calls; i++) {
            const runtime_delegate_call *call = &ra->calls[i];
            vw_graph *gr = &v->graphs[gi];
            const mlia_entity *ce = mlia_result_find(r, call->entity_id);
            uint32_t ni = vw_node_add(c, gr, call->entity_id, "DELEGATE_CALL", "", call->entity_id);
            vw_node *n = &gr->nodes[ni];
            vw_node_attr(c, n, "backend", call->backend ? call->backend : "");
            vw_node_attrf(c, n, "chain", "%lld", (long long)call->chain);
            vw_node_attrf(c, n, "instruction", "%lld", (long long)call->instruction);
            vw_attr_metric(c, n, ce, "execution_time", "p50");
            vw_attr_metric(c, n, ce, "unattributed_time", "p50");
            vw_overlay_metric(c, v, OV_TRACE_CALL, gi, call->entity_id, ce, "execution_time", "p50");
            vw_overlay_metric(c, v, OV_TRACE_CALL_SNR, gi, call->entity_id, ce, "output_snr_db", "p50");
            for (uint32_t k = 0; k < call->n_events; k++) {
                const runtime_event_node *ev = &call->events[k];
                const mlia_entity *ee = mlia_result_find(r, ev->entity_id);
                /* labelled as its entity (a Vulkan dispatch by its shader, not its JSON) */
                uint32_t ei = vw_node_add(c, gr, ev->entity_id, ee && ee->name ? ee->name : ev->name, "",
                                          ev->entity_id);
                n = &gr->nodes[ei];
                vw_node_attr(c, n, "event", ev->name);
                vw_attr_metric(c, n, ee, "execution_time", "p50");
                vw_attr_metric(c, n, ee, "execution_time", "min");
                vw_attr_metric(c, n, ee, "execution_time", "max");
                vw_attr_metric(c, n, ee, "unattributed_time", "p50");
                vw_attr_metric(c, n, ee, "execution_coverage", NULL);
                vw_node_edge(c, n, ev->parent_id ? ev->parent_id : call->entity_id, "0");
                vw_overlay_metric(c, v, OV_TRACE_EVENT, gi, ev->entity_id, ee, "execution_time", "p50");
                /* cycles and counts in their own unit: attributes and overlays of their own */
                static const struct {
                    const char *metric;
                    uint32_t overlay;
                } OTHER[] = {{"cycles", OV_TRACE_EVENT_CYCLES},
                             {"execution_cycles", OV_TRACE_EVENT_EXEC_CYCLES},
                             {"count", OV_TRACE_EVENT_COUNT}};
                for (size_t q = 0; q < sizeof OTHER / sizeof OTHER[0]; q++) {
                    vw_attr_metric(c, n, ee, OTHER[q].metric, "p50");
                    vw_overlay_metric(c, v, OTHER[q].overlay, gi, ev->entity_id, ee, OTHER[q].metric, "p50");
                }
            }
        }
    }
}

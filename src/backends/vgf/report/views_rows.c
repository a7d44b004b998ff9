/*
 * views_rows.c - the VGF backend's rows of the view table: the view
 * registry's entries for its views (report/views/views.c places them by
 * their order; the page reads ids, labels and order from the page data,
 * docs/page.md "One view registry").
 */
#include "backends/vgf/report/views_nx.h"

const vw_view_def vgf_views[VGF_N_VIEWS] = {
    {"segment_cascade_chain", "segment_cascade_chain", vw_chains_unavailable, vw_chains_build,
     NULL, /* columns with the capture's counters: the builder */
     VW_OVERLAYS(VW_CYCLES_P50("chain_%s", "Chain %s P50", "chain", false),
                 VW_CYCLES_P50("stripe_%s", "Stripe %s P50", "stripe", false),
                 VW_CYCLES_P50("cascade_%s", "Cascade %s P50", "cascade", true),
                 VW_CYCLES_P50("segment_%s", "Segment %s P50", "segment", true)),
     false, 20, false, "NX Segments / Cascades / Chains",
     "The NX work as captured: segments (one per VGF graph), their cascades (groups run back to back) and "
     "chains (the units the NX schedules, with their cycle counts); stripes are a chain's slices."},
    {"etrecord_chain_mapping", "ETRecord Chain Mapping", vw_mapping_unavailable, vw_mapping_build,
     VW_LIST("total_cycles", "execution_time"),
     VW_OVERLAYS(VW_CYCLES_P50("chain_%s", "Chain %s P50", "chain", false),
                 VW_MS_P50("source_execution_time_p50", "Source operator execution time P50", "source_operator",
                           "p50"),
                 VW_SNR_P50("source_output_snr_db_p50", "Source operator output SNR P50 (low = red)",
                            "source_operator"),
                 VW_SNR_P50("chain_output_snr_db_p50",
                            "Chain: lowest output SNR P50 of its source operators (low = red)", "chain")),
     true, 30, false, NULL,
     "Which NX chains ran which source operators: chains on one side, the operators they served on the other."},
    {"pte_vgf_backend_hierarchy", "PTE - VGF Backend Hierarchy", vw_pte_unavailable, vw_pte_build,
     VW_LIST("total_cycles", "execution_time"), VW_OVERLAYS(VW_CHAIN_GROUP), false, 50, true, NULL,
     "The companion PTE: its plan, the VGF delegate's segments and their SPIR-V operator graph."},
};

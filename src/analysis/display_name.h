/*
 * display_name.h - one display name per source operator, shared by every
 * output (docs/analysis.md, "Display names"): the console, the page, the
 * CSV tables and the Model Explorer node attributes all call an operator
 * the same way.
 *
 * The display name is the operator's name (its edge-dialect target, e.g.
 * "aten.convolution.default") when no other source operator has that name;
 * otherwise the name followed by what tells the namesakes apart, in
 * parentheses: their nn.Module name when those differ across the namesakes,
 * else their source location ("lenet.py:22"), else their node name, else the
 * last part of their id ("aten.convolution.default (conv2)"). The first
 * criterion that is present for every namesake and different for each wins.
 *
 * Ownership: the attribute strings are copied into the result's arena;
 * working memory is malloc'ed and freed before returning.
 */
#ifndef MLIA_ANALYSIS_DISPLAY_NAME_H
#define MLIA_ANALYSIS_DISPLAY_NAME_H

#include "analysis/result.h"

/* Sets the string attribute "display_name" of every source_operator entity. */
void mlia_display_names(mlia_result *r);

/* The display name of e: its "display_name" attribute, else its name, else
 * its id. Borrowed from the entity. */
const char *mlia_display_name(const mlia_entity *e);

#endif

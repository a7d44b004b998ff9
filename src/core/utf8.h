/*
 * utf8.h - strict UTF-8 validation (no overlongs, no surrogates, <= U+10FFFF),
 * shared by the readers that must reject invalid text (NX statistics info,
 * debug database).
 */
#ifndef MLIA_CORE_UTF8_H
#define MLIA_CORE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when s[0, n) is valid UTF-8. Otherwise, when the pointers are
 * non-NULL, *bad_pos is the position of the first byte of the offending
 * sequence and *reason one of Python's codec phrases: "invalid start byte",
 * "unexpected end of data", "invalid continuation byte". */
bool mlia_utf8_check(const uint8_t *s, size_t n, size_t *bad_pos, const char **reason);

#endif

/*
 * utf8.h - strict UTF-8 validation (no overlongs, no surrogates, <= U+10FFFF),
 * shared by the readers that must reject invalid text (NX statistics info,
 * debug database), and the small codec pieces both JSON readers share
 * (core/json_read.c, core/json_stream.c).
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

/* Length of the valid UTF-8 sequence starting at p[0] (a byte >= 0x80) with
 * avail bytes readable, or 0 when it is invalid or truncated. */
size_t mlia_utf8_seq_len(const unsigned char *p, size_t avail);

/* Writes code point cp (<= U+10FFFF) as UTF-8 to o (room for 4 bytes);
 * returns the number of bytes written. */
size_t mlia_utf8_put(char *o, unsigned cp);

/* Reads the hex digits p[0, n) (n <= 4) into *out, most significant first;
 * returns how many leading bytes were hex digits (n when all were). */
size_t mlia_hex_digits(const unsigned char *p, size_t n, unsigned *out);

#endif

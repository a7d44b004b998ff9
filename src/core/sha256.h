/*
 * sha256.h - SHA-256 digests (nettle underneath: no heap allocation, so
 * hashing cannot fail). Used for input digests in the result and for
 * code_stack identities.
 */
#ifndef MLIA_CORE_SHA256_H
#define MLIA_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

void mlia_sha256(const void *data, size_t len, uint8_t out[32]);
/* Lower-case hex, NUL-terminated (65 bytes). */
void mlia_sha256_hex(const void *data, size_t len, char out[65]);
/* SHA-256 of bytes [0, size) of file descriptor fd, read with pread in
 * 1 MiB pieces (the file's pages are not mapped into the process). -1 when
 * the file cannot be read to `size` bytes (out untouched); the read buffer
 * failing to allocate is out of memory (mlia_oom), not -1. */
int mlia_sha256_fd_hex(int fd, uint64_t size, char out[65]);

#endif

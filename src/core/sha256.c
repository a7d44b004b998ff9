/*
 * sha256.c - SHA-256 through nettle (see sha256.h).
 *
 * nettle's context is a plain struct on the caller's stack: hashing
 * allocates nothing, so it cannot fail and cannot be the place where a
 * process under memory pressure crashes (docs/hardening.md, "Process-wide
 * sweep": OpenSSL's EVP_Digest allocated its context and, on its first use,
 * its provider tables, and crashed inside libcrypto when one of those
 * allocations failed).
 */
#include "core/sha256.h"

#include "core/oom.h"

#include <nettle/sha2.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

void mlia_sha256(const void *data, size_t len, uint8_t out[32])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    if (len)
        sha256_update(&ctx, len, data);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

static void to_hex(const uint8_t d[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}

void mlia_sha256_hex(const void *data, size_t len, char out[65])
{
    uint8_t d[32];
    mlia_sha256(data, len, d);
    to_hex(d, out);
}

int mlia_sha256_fd_hex(int fd, uint64_t size, char out[65])
{
    enum { PIECE = 1 << 20 };
    unsigned char *buf = malloc(PIECE);
    if (!buf)
        mlia_oom(PIECE); /* out of memory, not an unreadable file */
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    int rc = -1;
    uint64_t at = 0;
    while (at < size) {
        size_t want = size - at < PIECE ? (size_t)(size - at) : PIECE;
        ssize_t n = pread(fd, buf, want, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto done;
        sha256_update(&ctx, (size_t)n, buf);
        at += (uint64_t)n;
    }
    uint8_t d[32];
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, d);
    to_hex(d, out);
    rc = 0;
done:
    free(buf);
    return rc;
}

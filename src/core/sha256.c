/*
 * sha256.c - SHA-256 through OpenSSL's EVP interface (see sha256.h).
 */
#include "sha256.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

void mlia_sha256(const void *data, size_t len, uint8_t out[32])
{
    unsigned int n = 0;
    if (!EVP_Digest(data ? data : "", len, out, &n, EVP_sha256(), NULL) || n != 32) {
        fprintf(stderr, "mlia: error: SHA-256 computation failed\n");
        exit(1);
    }
}

void mlia_sha256_hex(const void *data, size_t len, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t d[32];
    mlia_sha256(data, len, d);
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}

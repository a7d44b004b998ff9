/*
 * version.h - the library's version for the files it writes.
 *
 * The same definition as MLIA_VERSION of include/mlia/mlia.h: a file that
 * includes both (every src/api file) would fail to compile if they ever
 * differed, so they cannot drift apart.
 */
#ifndef MLIA_CORE_VERSION_H
#define MLIA_CORE_VERSION_H

#define MLIA_VERSION "0.1.0"

#endif

#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12.
#   bash tools/setup.sh          build + demo dependencies (C libraries - SQLite and libpq for the
#                                run history, docs/history.md -, python3, flatc, protoc for the
#                                trace tests)
#   bash tools/setup.sh --page   everything `make check` needs besides: Chromium and the
#                                viewer's npm packages (page tests), clang with its fuzzer
#                                runtime (`make fuzz`), python3 venv/setuptools/wheel (the
#                                pip-install test), libbz2-dev (the static pkg-config link),
#                                locales with de_DE.UTF-8 generated (the locale tests), lcov
#                                (`make coverage`) and Debian's PostgreSQL server (the history
#                                tests start a throwaway cluster with its initdb and pg_ctl)
# As root, missing Debian packages are installed with apt-get; otherwise the
# script lists the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
want_page=0
[ "${1:-}" = "--page" ] && want_page=1

pkgs=(build-essential pkg-config libzip-dev nettle-dev libjson-c-dev libssl-dev zlib1g-dev libsqlite3-dev libpq-dev
      python3 flatbuffers-compiler protobuf-compiler)
[ "$want_page" = 1 ] && pkgs+=(chromium nodejs npm clang libclang-rt-14-dev
                               python3-venv python3-setuptools python3-wheel libbz2-dev
                               locales lcov postgresql)

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # nodejs/npm may come from elsewhere than Debian: accept the commands
    case "$p" in
      nodejs) command -v node >/dev/null 2>&1 && continue ;;
      npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
# The locale tests (tests/core/test_locale.c, tests/py/test_locale.py) run the
# library under de_DE.UTF-8 (decimal comma): generate it when it is missing.
if [ "$want_page" = 1 ] && ! locale -a 2>/dev/null | grep -qix 'de_DE.utf8'; then
  if [ "$(id -u)" = 0 ] && command -v localedef >/dev/null 2>&1; then
    localedef -i de_DE -f UTF-8 de_DE.UTF-8 ||
      echo "setup: could not generate de_DE.UTF-8; the locale tests will be skipped" >&2
  else
    echo "setup: de_DE.UTF-8 is not generated (as root: localedef -i de_DE -f UTF-8 de_DE.UTF-8);" \
         "the locale tests will be skipped" >&2
  fi
fi
if [ "$want_page" = 1 ] && [ -f viewer/package-lock.json ]; then
  (cd viewer && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: ok"

#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12.
#   bash tools/setup.sh          build + demo dependencies (C libraries, python3, flatc)
#   bash tools/setup.sh --page   everything `make check` needs besides: Chromium and the
#                                viewer's npm packages (page tests), clang with its fuzzer
#                                runtime (`make fuzz`), python3 venv/setuptools/wheel (the
#                                pip-install test) and libbz2-dev (the static pkg-config link)
# As root, missing Debian packages are installed with apt-get; otherwise the
# script lists the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
want_page=0
[ "${1:-}" = "--page" ] && want_page=1

pkgs=(build-essential pkg-config libzip-dev libjson-c-dev libssl-dev zlib1g-dev python3 flatbuffers-compiler)
[ "$want_page" = 1 ] && pkgs+=(chromium nodejs npm clang libclang-rt-14-dev
                               python3-venv python3-setuptools python3-wheel libbz2-dev)

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
if [ "$want_page" = 1 ] && [ -f viewer/package-lock.json ]; then
  (cd viewer && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: ok"

#!/usr/bin/env bash
# ensure_packages.sh PKG...: install the Debian packages that are missing,
# and nothing else (idempotent: a second run installs nothing).
# Skipped when SKIP_PACKAGES=1 (a machine without a registry that carries
# what it needs, see docs/operators.md).
set -eu
[ "${SKIP_PACKAGES:-0}" = 1 ] && exit 0
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing missing packages: ${missing[*]}"
SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

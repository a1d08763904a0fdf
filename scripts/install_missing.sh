#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet (apt-get,
# through sudo when not root); prints nothing and takes a fraction of a second when none is
# missing. The lists live with their users: scripts/setup.sh (building and running),
# scripts/test.sh (the tests), .ci/run (the instrumented clang build).
#   scripts/install_missing.sh cmake g++ ...
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

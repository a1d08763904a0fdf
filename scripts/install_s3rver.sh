#!/usr/bin/env bash
# Installs s3rver (an S3-compatible server in Node.js, npm's s3rver, pinned) into
# .test-deps/s3rver/ for tests/remote_s3.py, which starts it on 127.0.0.1. Node.js and npm
# come from Debian when missing (`command -v`: a Node.js from elsewhere is used as it is).
# Idempotent: prints nothing and takes a fraction of a second once installed. Without
# network access the install fails and remote_s3 reports itself skipped.
#   scripts/install_s3rver.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=3.7.1
dir=.test-deps/s3rver
manifest=$dir/node_modules/s3rver/package.json
[ -f "$manifest" ] && grep -q "\"version\": \"$version\"" "$manifest" && exit 0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  scripts/install_missing.sh nodejs npm
fi
mkdir -p "$dir"
echo "setup: installing s3rver@$version into $dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "s3rver@$version" >/dev/null

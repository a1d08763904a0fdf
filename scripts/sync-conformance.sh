#!/usr/bin/env bash
# Keeps tests/conformance/cases.jsonl in step with the shared conformance cases.
#   scripts/sync-conformance.sh          copy ../shared/conformance/cases.jsonl into the repo
#   scripts/sync-conformance.sh --check  exit 1 when they differ, 77 (skipped) when there
#                                        is no ../shared beside the checkout, 0 when equal
# SHARED_CONFORMANCE=/path/to/conformance overrides where the shared cases live.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED_CONFORMANCE:-../shared/conformance}/cases.jsonl
ours=tests/conformance/cases.jsonl
if [ ! -f "$shared" ]; then
  echo "sync-conformance: no shared cases at $shared: nothing to compare"
  [ "${1:-}" = --check ] && exit 77
  exit 0
fi
if [ "${1:-}" = --check ]; then
  if cmp -s "$shared" "$ours"; then
    echo "sync-conformance: $ours is in step with $shared ($(wc -l <"$ours") cases)"
    exit 0
  fi
  echo "sync-conformance: $ours differs from $shared: run scripts/sync-conformance.sh and commit the result" >&2
  diff <(cut -c1-120 "$shared") <(cut -c1-120 "$ours") | head -10 >&2 || true
  exit 1
fi
mkdir -p tests/conformance
cp "$shared" "$ours"
echo "sync-conformance: copied $(wc -l <"$ours") cases from $shared to $ours"

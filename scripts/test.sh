#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs every test: doctest unit tests, golden
# CLI cases, the conformance suite in ../shared/conformance, and the NumPy cross-checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"

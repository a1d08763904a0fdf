#!/usr/bin/env bash
# Installs what tensor-inspect needs from Debian's packages (only what is missing), then
# configures and builds it. Idempotent: a second run with nothing changed takes seconds.
#   scripts/setup.sh            Release build in build/ (the tool: build/tensor-inspect)
#   BUILD_DIR=b BUILD_TYPE=Debug CMAKE_ARGS="-DTI_SANITIZE=ON" scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# zipcmp, zipmerge and ziptool: libzip-dev's CMake config checks that they exist.
# clang-14, its runtime (libFuzzer) and libomp: the fuzzing build (scripts/fuzz.sh, CI).
packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev doctest-dev libzip-dev zipcmp zipmerge ziptool
          python3 python3-numpy time clang-14 libclang-rt-14-dev libomp-14-dev
          libopenblas-dev python3-jsonschema jq bash-completion zsh fish man-db pkg-config libcairo2-dev
          libcurl4-openssl-dev nginx-light libxxhash-dev zlib1g-dev lld nettle-dev xxhash)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build_dir=${BUILD_DIR:-build}
# ccache, when installed, makes rebuilds in other build folders or clones cheap.
launcher=""
command -v ccache >/dev/null 2>&1 && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
build_type=${BUILD_TYPE:-Release}
# A unity build (CMake compiles the sources of a target in batches of 8) takes 2.4x less
# CPU from cold than one compiler run per file, because each batch parses the heavy headers
# (nlohmann/json, CLI11, fmt) once; TI_UNITY=0 compiles file by file, as the dev preset
# does, which rebuilds faster after a one-file change.
unity=-DCMAKE_UNITY_BUILD=ON
[ "${TI_UNITY:-1}" = 0 ] && unity=-DCMAKE_UNITY_BUILD=OFF
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" $launcher $unity ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"$(nproc)"

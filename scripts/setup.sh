#!/usr/bin/env bash
# Installs what building and running tensor-inspect need from Debian's packages (only what
# is missing), then configures and builds it. Idempotent: a second run with nothing changed
# takes seconds. The tests' packages and targets come with TI_TESTS=1 (scripts/test.sh does
# that); the fuzzing toolchain with .ci/run or scripts/fuzz.sh.
#   scripts/setup.sh            Release build in build/ (the tool: build/tensor-inspect)
#   BUILD_DIR=b BUILD_TYPE=Debug CMAKE_ARGS="-DTI_SANITIZE=ON" scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# zipcmp, zipmerge and ziptool: libzip-dev's CMake config checks that they exist. lld: the
# linker that orders start-up code (CMakeLists.txt; optional, but the tool starts faster).
# libhdf5-dev: HDF5's headers (the run-time libhdf5-103-1 comes with it).
build_packages=(cmake ninja-build g++ pkg-config libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
                libzip-dev zipcmp zipmerge ziptool libopenblas-dev libcairo2-dev libcurl4-openssl-dev libxxhash-dev
                zlib1g-dev lld nettle-dev libprotobuf-dev libhdf5-dev)
# What the tests run or check against: doctest, NumPy and jsonschema cross-checks, GNU time
# for peak RSS, jq in pipelines, the shells and man for completions and the man page, nginx
# for remote inputs, PyTorch (torch.save writes the .pt/.bin files tests compare against),
# onnx (onnx.helper writes the models tests compare against), h5py (writes the .h5 files and
# .keras weights tests compare against).
test_packages=(doctest-dev python3 python3-numpy python3-jsonschema time jq bash-completion zsh fish man-db
               nginx-light xxhash python3-torch python3-onnx python3-h5py)
tests=${TI_TESTS:-0}
packages=("${build_packages[@]}")
[ "$tests" = 1 ] && packages+=("${test_packages[@]}")
scripts/install_missing.sh "${packages[@]}"

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
# The test targets (doctest, the fuzz regression replays) are built when asked, and stay as a
# build folder has them: setup.sh after test.sh keeps them.
test_flag=""
if [ "$tests" = 1 ]; then test_flag=-DTI_BUILD_TESTS=ON
elif [ ! -f "$build_dir/CMakeCache.txt" ]; then test_flag=-DTI_BUILD_TESTS=OFF
fi
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja $test_flag -DCMAKE_BUILD_TYPE="$build_type" $launcher $unity \
  ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"$(nproc)"

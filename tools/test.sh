#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test. GPU tests skip (with
# their reason) on a machine without a usable GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh "$@"
cd build
ctest --output-on-failure -j "$(nproc)"

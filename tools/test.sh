#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test. GPU tests skip (with
# their reason) on a machine without a usable GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh "$@"
cd build
status=0
ctest --output-on-failure -j "$(nproc)" || status=$?
# ctest names skipped tests without their reasons: say what did not run and why.
../tools/skip_reasons.sh Testing/Temporary/LastTest.log
exit "$status"

#!/usr/bin/env bash
# Runs lomme-vault's tests: builds the package (the CLI tests drive the built binary) and
# runs every Swift Testing suite against the real libraries, builds and checks the Debian
# package (packaging/deb), then runs each libFuzzer target for a short while (fuzz/run).
# On a fresh machine run ./install.sh first: it installs the Debian packages the tests use.
#
# The long versions (not run here): bench/kill-test --iterations 200 and
# fuzz/run --seconds 600 (docs/reliability.md).
# LOMME_FUZZ_SECONDS sets the fuzzing time per target (default 30; 0 skips fuzzing).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/opt/swift/usr/bin"
swift build
swift test
# The Debian package from the release build install.sh makes, installed into an empty root
# and run there, then lintian (packaging/deb/README.md).
deb="$(packaging/deb/build --output .build/deb)"
packaging/deb/check "$deb"
fuzz_seconds="${LOMME_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" -gt 0 ]; then
  fuzz/run --seconds "$fuzz_seconds" --jobs 2
fi

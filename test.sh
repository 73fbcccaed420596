#!/usr/bin/env bash
# Runs lomme-vault's tests: checks the target graph, builds the package (the CLI tests drive
# the built binary) and runs every Swift Testing suite against the real libraries, runs the
# README's tour as printed, builds and checks the Debian
# package (packaging/deb), then runs each libFuzzer target for a short while (fuzz/run).
# On a fresh machine run ./install.sh first: it installs the Debian packages the tests use.
#
# The long versions (not run here): bench/kill-test --iterations 200 and
# fuzz/run --seconds 600 (docs/reliability.md).
# LOMME_FUZZ_SECONDS sets the fuzzing time per target (default 30; 0 skips fuzzing).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/opt/swift/usr/bin"
# The target graph is what Package.swift says: SwiftPM's own check (transitive), a stricter
# one (a target imports only what it lists itself), and a probe that a forbidden import does
# not compile (Tests/scripts/).
import_check=(--explicit-target-dependency-import-check error)
Tests/scripts/check-imports
swift build "${import_check[@]}"
swift test "${import_check[@]}"
Tests/scripts/forbidden-import-probe
# Every planted bug of bench/mutants.toml still finds the code it changes (the mutation run
# itself is long and run by hand: bench/mutate).
bench/mutate --check
# The README's tour, every line as printed, on a pseudo-terminal (Tests/scripts/readme-tour).
Tests/scripts/readme-tour
# The Debian package from the release build install.sh makes, installed into an empty root
# and run there, then lintian (packaging/deb/README.md).
deb="$(packaging/deb/build --output .build/deb)"
packaging/deb/check "$deb"
fuzz_seconds="${LOMME_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" -gt 0 ]; then
  fuzz/run --seconds "$fuzz_seconds" --jobs 2
fi

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
# Each step says how long it took (stderr), so a slow step shows where the time goes.
started=$SECONDS
step() {
  local name="$1" begun=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - begun)) s (total $((SECONDS - started)) s)" >&2
}
# The target graph is what Package.swift says: SwiftPM's own check (transitive), a stricter
# one (a target imports only what it lists itself), and a probe that a forbidden import does
# not compile (Tests/scripts/).
import_check=(--explicit-target-dependency-import-check error)
step check-imports Tests/scripts/check-imports
step build swift build "${import_check[@]}"
step "swift test" swift test "${import_check[@]}"
step forbidden-import-probe Tests/scripts/forbidden-import-probe
# Every planted bug of bench/mutants.toml still finds the code it changes (the mutation run
# itself is long and run by hand: bench/mutate).
step "mutate --check" bench/mutate --check
# The README's tour, every line as printed, on a pseudo-terminal (Tests/scripts/readme-tour).
step readme-tour Tests/scripts/readme-tour
# The Debian package from the release build install.sh makes, installed into an empty root
# and run there, then lintian (packaging/deb/README.md).
begun=$SECONDS
deb="$(packaging/deb/build --output .build/deb)"
echo "test.sh: deb build took $((SECONDS - begun)) s" >&2
step "deb check" packaging/deb/check "$deb"
fuzz_seconds="${LOMME_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" -gt 0 ]; then
  step fuzz fuzz/run --seconds "$fuzz_seconds" --jobs 2
fi

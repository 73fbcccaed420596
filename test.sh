#!/usr/bin/env bash
# Runs lomme-vault's tests: checks the target graph, builds the package (the CLI tests drive
# the built binary) and runs every Swift Testing suite against the real libraries, runs the
# README's tour as printed, builds and checks the Debian
# package (packaging/deb) and runs each libFuzzer target for a fixed number of inputs (fuzz/run --quick).
# On a fresh machine run ./install.sh first: it installs the Debian packages the tests use.
#
# The long versions (not run here): bench/kill-test --iterations 200 and
# fuzz/run --seconds 600 (docs/reliability.md).
# LOMME_FUZZ=0 skips the fuzzing.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/opt/swift/usr/bin"
# Each step says how long it took and the processor time its programs used (stderr), so a
# slow step shows where the time goes: on two cores the suite is bound by the processor.
started=$SECONDS
times_file="$(mktemp)"
# Sets the variable named $1 to the processor seconds (user + system) the finished children of this shell have
# used so far; `times` reports this shell only outside a subshell, so not in $(...).
children_cpu() {
  local line user system
  times > "$times_file"
  { read -r line; read -r user system; } < "$times_file"
  printf -v "$1" '%d' $(( $(seconds "$user") + $(seconds "$system") ))
}
seconds() {  # 1m2.345s -> 62
  local minutes="${1%%m*}" rest="${1#*m}"
  echo $(( minutes * 60 + 10#${rest%%.*} ))
}
step() {
  local name="$1" begun=$SECONDS before after
  shift
  children_cpu before
  "$@"
  children_cpu after
  echo "test.sh: $name took $((SECONDS - begun)) s, $((after - before)) s of processor time (total $((SECONDS - started)) s)" >&2
}
# The target graph is what Package.swift says: SwiftPM's own check (transitive), a stricter
# one (a target imports only what it lists itself), and a probe that a forbidden import does
# not compile (Tests/scripts/).
import_check=(--explicit-target-dependency-import-check error)
step check-imports Tests/scripts/check-imports
step build swift build "${import_check[@]}"
# While the tests run (they wait on programs and terminals much of the time), the builds the
# later steps need are made beside them, each in its own scratch folder so that SwiftPM's
# lock on .build does not make one wait for the other: the import probe's copy, the release
# build the Debian package is made from (packaging/deb/README.md) and the fuzz targets, which
# then run there too: each a fixed number of inputs, so the load changes nothing but the time.
# No test's verdict depends on how fast it runs either.
logs=.build/test-logs
mkdir -p "$logs"
# If a step fails first, the builds beside the tests are stopped with it.
stop_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
beside=""
trap 'rm -f "$times_file"; [ -z "$beside" ] || stop_tree "$beside"' EXIT
fuzz="${LOMME_FUZZ:-1}"
(
  set -e
  step forbidden-import-probe Tests/scripts/forbidden-import-probe
  step "deb build" packaging/deb/build --scratch-path .build-deb --output .build/deb > "$logs/deb-path"
  if [ "$fuzz" != 0 ]; then
    step "fuzz build" fuzz/run --build-only
    step fuzz fuzz/run --quick --jobs 2
  fi
) > "$logs/beside-the-tests.log" 2>&1 &
beside=$!
step "swift test" swift test "${import_check[@]}"
# Every planted bug of bench/mutants.toml still finds the code it changes (the mutation run
# itself is long and run by hand: bench/mutate).
step "mutate --check" bench/mutate --check
# The README's tour, every line as printed, on a pseudo-terminal (Tests/scripts/readme-tour).
step readme-tour Tests/scripts/readme-tour
if ! wait "$beside"; then
  beside=""
  cat "$logs/beside-the-tests.log" >&2
  echo "test.sh: a step run beside the tests failed (its output is above, and in $logs/beside-the-tests.log)" >&2
  exit 1
fi
beside=""
grep -E "^(test.sh|forbidden-import-probe|fuzz [a-z0-9]+):" "$logs/beside-the-tests.log" >&2 || true
# The Debian package, installed into an empty root and run there, then lintian.
step "deb check" packaging/deb/check "$(cat "$logs/deb-path")"

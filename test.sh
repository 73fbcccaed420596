#!/usr/bin/env bash
# Runs lomme-vault's tests: checks the target graph, builds the package (debug, with its tests)
# and the release binary install.sh installs, runs every Swift Testing suite against the real
# libraries (the CLI tests drive the release binary), runs the README's tour as printed, builds
# and checks the Debian package (packaging/deb) and runs each libFuzzer target for a fixed
# number of inputs (fuzz/run --quick).
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
# (GNU time, from debian-packages.txt, counts the step's own processes and nothing else.)
started=$SECONDS
times_file="$(mktemp)"
step() {
  # each shell its own file: steps run in background shells too
  local name="$1" begun=$SECONDS file="$times_file.$BASHPID" cpu status=0
  shift
  /usr/bin/time -f "%U %S" -o "$file" "$@" || status=$?
  cpu=$(tail -n 1 "$file" | awk '{ printf "%.0f", $1 + $2 }')
  echo "test.sh: $name took $((SECONDS - begun)) s, $cpu s of processor time (total $((SECONDS - started)) s)" >&2
  return "$status"
}
# The target graph is what Package.swift says: SwiftPM's own check (transitive), a stricter
# one (a target imports only what it lists itself), and a probe that a forbidden import does
# not compile (Tests/scripts/).
import_check=(--explicit-target-dependency-import-check error)
step check-imports Tests/scripts/check-imports
logs=.build/test-logs
mkdir -p "$logs"
# Steps run in the background are stopped with the script if a step fails first.
stop_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do stop_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
background=()
trap 'rm -f "$times_file" "$times_file".*; for pid in "${background[@]}"; do stop_tree "$pid"; done' EXIT
# Waits for the background step $1 (its log $2) and shows its lines of time; if it failed, shows
# its log and stops (the trap stops the other background steps).
await() {
  local pid kept=() status=0
  wait "$1" || status=$?
  for pid in "${background[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  background=("${kept[@]}")
  if [ "$status" -ne 0 ]; then
    cat "$2" >&2
    echo "test.sh: a step run in the background failed (its output is above, and in $2)" >&2
    exit 1
  fi
  grep -E "^(test.sh|check|forbidden-import-probe|fuzz [a-z0-9]+):" "$2" >&2 || true
}
# The debug build of the package and its tests (the library tests, and the debug binary,
# whose parser checks its own definitions: ParserDefinitionTests), then the release build
# install.sh makes: what the CLI tests drive (LOMME_TEST_BINARY), what the README's tour runs
# and what the Debian package holds, the binary users install. One after the other, each in
# its own scratch folder: each build keeps both cores busy by itself, and the four Swift
# builds side by side took a quarter more processor time than in turn, and the tests began
# 90 s later (DEVELOPING.md, "The suite's time").
step build swift build --build-tests "${import_check[@]}"
release=.build-install
step "release build" swift build -c release --disable-local-rpath --product lomme-vault --scratch-path "$release" \
  > "$logs/release-build.log" 2>&1 || { cat "$logs/release-build.log" >&2; exit 1; }
grep "^test.sh:" "$logs/release-build.log" >&2
binary="$PWD/$release/release/lomme-vault"
# While the tests run (they wait on programs and terminals much of the time), beside them:
# the import probe builds its copy of the package; the fuzz targets are built (in
# .build-fuzz) and each fuzzed for a fixed number of inputs, so the load changes nothing but
# the time; the Debian package is made and checked. The probe and the fuzzing run niced: the
# tests, which the run waits for longest, come first. No test's verdict depends on how fast
# any of it runs.
step forbidden-import-probe nice -n 10 Tests/scripts/forbidden-import-probe > "$logs/import-probe.log" 2>&1 &
background+=($!)
probe_job=$!
fuzz="${LOMME_FUZZ:-1}"
if [ "$fuzz" != 0 ]; then
  (
    set -e
    step "fuzz build" nice -n 10 fuzz/run --build-only
    step fuzz nice -n 10 fuzz/run --quick --jobs 2
  ) > "$logs/fuzz.log" 2>&1 &
  background+=($!)
  fuzz_job=$!
fi
(
  set -e
  step "deb build" packaging/deb/build --binary "$binary" --output .build/deb > "$logs/deb-path"
  # The Debian package, installed into an empty root and run there, then lintian.
  step "deb check" packaging/deb/check "$(cat "$logs/deb-path")"
) > "$logs/beside-the-tests.log" 2>&1 &
background+=($!)
beside=$!
step "swift test" env LOMME_TEST_BINARY="$binary" swift test --skip-build
# Every planted bug of bench/mutants.toml still finds the code it changes (the mutation run
# itself is long and run by hand: bench/mutate).
step "mutate --check" bench/mutate --check
# The README's tour, every line as printed, on a pseudo-terminal (Tests/scripts/readme-tour).
step readme-tour Tests/scripts/readme-tour --binary-dir "$(dirname "$binary")"
await "$beside" "$logs/beside-the-tests.log"
await "$probe_job" "$logs/import-probe.log"
[ "$fuzz" = 0 ] || await "$fuzz_job" "$logs/fuzz.log"

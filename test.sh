#!/usr/bin/env bash
# Runs lomme-vault's tests: builds the package (the CLI tests drive the built binary) and
# runs every Swift Testing suite against the real libraries. On a fresh machine run
# ./install.sh first: it installs the Debian packages the tests use.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/opt/swift/usr/bin"
swift build
swift test

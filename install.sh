#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for lomme-vault: installs the Debian packages it builds
# and is tested with, builds it in release mode, installs the binary, man page and shell
# completions under /usr/local, and runs it once. Needs a Swift 6 toolchain on PATH (swift.org, or /opt/swift)
# to build; the installed binary links the Swift runtime statically and runs without one.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/opt/swift/usr/bin"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

mapfile -t packages < <(grep -v '^\s*#' debian-packages.txt | grep -v '^\s*$')
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${packages[@]}"

command -v swift >/dev/null || { echo "install.sh: no swift on PATH; install a Swift 6 toolchain from swift.org first" >&2; exit 1; }
# No RUNPATH ($ORIGIN): the installed binary finds its few libraries where the system keeps them.
# Only the binary that is installed (not lomme-bench or the test helpers).
swift build -c release --disable-local-rpath --product lomme-vault
prefix="${PREFIX:-/usr/local}"
# sudo only where the prefix is not ours to write (PREFIX=~/.local needs none).
as=""
mkdir -p "$prefix" 2>/dev/null || true
if [ ! -w "$prefix" ]; then as="$sudo"; fi
$as install -d "$prefix/bin"
$as install -m 0755 .build/release/lomme-vault "$prefix/bin/lomme-vault"
# The man page, and bash, zsh and fish completions where each shell looks.
$as packaging/install-extras "$prefix/bin/lomme-vault" "$prefix"
"$prefix/bin/lomme-vault" --version
# Self-contained: the Swift runtime is linked in (-static-stdlib, Package.swift), so the
# binary runs where no Swift toolchain is installed; only C libraries remain NEEDED.
if readelf -d "$prefix/bin/lomme-vault" 2>/dev/null | grep -q 'NEEDED.*libswift'; then
    echo "install.sh: the installed binary links the Swift runtime dynamically; it needs the toolchain at run time" >&2
    exit 1
fi
echo "installed $prefix/bin/lomme-vault; see 'lomme-vault --help' or 'man lomme-vault'" >&2

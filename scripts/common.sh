#!/usr/bin/env bash
# Shared setup for scripts/run.sh and scripts/test.sh: a Rust toolchain and a persistent target dir.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Build outputs live outside the clone so fresh clones (CI) reuse earlier builds.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME}/.cache/scope-weaver/target}"
mkdir -p "$CARGO_TARGET_DIR"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

need_apt() {
    # Installs Debian packages that are missing (needs root or sudo).
    local missing=()
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "Installing Debian packages: ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_toolchain() {
    if ! command -v cargo >/dev/null 2>&1; then
        echo "cargo not found: install Rust 1.95 (https://rustup.rs, or your distribution's rustup package)." >&2
        exit 1
    fi
    # rust-toolchain.toml pins the version; rustup selects (or reports) it.
    cargo --version >&2
}

ensure_toolchain
if command -v dpkg >/dev/null 2>&1; then
    # A C compiler for crates with C parts, pkg-config, and find/xargs used by the tests and benches.
    need_apt build-essential pkg-config findutils
fi

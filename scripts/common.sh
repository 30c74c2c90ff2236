#!/usr/bin/env bash
# Shared setup for scripts/run.sh and scripts/test.sh: a Rust toolchain and a persistent target dir.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Build outputs live outside the clone so fresh clones (CI) reuse earlier builds.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME}/.cache/scope-weaver/target}"
# x86-64 builds target x86-64-v3 (AVX2/FMA: the local model's SIMD kernels; .cargo/config.toml).
# For an older CPU: SCOPE_WEAVER_BASELINE_CPU=1 builds for baseline x86-64 (slower models), in a
# target dir of its own so the two builds do not replace each other.
if [ "${SCOPE_WEAVER_BASELINE_CPU:-0}" = 1 ]; then
    export RUSTFLAGS="-C target-cpu=x86-64"
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR}-baseline"
fi
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

# The desktop app: WebKitGTK and friends to build it, Xvfb/xdotool/WebKitWebDriver to test it
# headless, Node for the windows' front end (ui/), Chromium for the UI tests.
APP_BUILD_PACKAGES=(libwebkit2gtk-4.1-dev libxdo-dev libssl-dev libayatana-appindicator3-dev librsvg2-dev)
APP_TEST_PACKAGES=(webkit2gtk-driver xvfb xauth xdotool dbus-x11 fonts-dejavu-core imagemagick openbox chromium strace)

ensure_node() {
    if ! command -v npm >/dev/null 2>&1; then
        need_apt nodejs npm
    fi
}

# Builds the windows' front end into ui/dist (npm ci only when the lock file changed).
build_ui() {
    ensure_node
    local stamp="ui/node_modules/.package-lock.stamp"
    if [ ! -f "$stamp" ] || ! cmp -s ui/package-lock.json "$stamp"; then
        (cd ui && npm ci --no-audit --no-fund --loglevel=error)
        cp ui/package-lock.json "$stamp"
    fi
    (cd ui && npm run --silent build)
}

# One debug build serves clippy's targets, the tests, the CLI the scripts call and the app the
# end-to-end tests drive: every cargo command of the test run selects the same packages and
# features (`cargo build --workspace --bins --tests` builds exactly the units `cargo test
# --workspace` does; `-p cli` or `-p scope-weaver-app` alone would unify features differently and
# build mistral.rs, image, sqlx and their dependents a second and third time). The OpenTelemetry
# exporter is part of it so its tests need no build of their own.
TEST_BUILD=(--workspace --features cli/otlp)

# Builds the test run's binaries (target/debug/scope-weaver, scope-weaver-app, tiny-model) and
# test executables.
build_for_tests() {
    cargo build --quiet "${TEST_BUILD[@]}" --bins --tests
}

# Runs a command in a headless X session with D-Bus, as the desktop tests need.
headless() {
    WEBKIT_DISABLE_COMPOSITING_MODE=1 WEBKIT_DISABLE_DMABUF_RENDERER=1 LIBGL_ALWAYS_SOFTWARE=1 \
        GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
        xvfb-run -a -s "-screen 0 1600x1000x24" dbus-run-session -- "$@"
}

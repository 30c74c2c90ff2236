#!/usr/bin/env bash
# All checks, as CI runs them: format, lints, the engine/tauri boundary, shipped skills, every test.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

step() { echo; echo "== $*"; }

step "rustfmt"
cargo fmt --all --check

step "clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "boundary: no engine crate depends on tauri"
for manifest in crates/*/Cargo.toml; do
    crate="$(sed -n 's/^name = "\(.*\)"/\1/p' "$manifest" | head -n1)"
    if cargo tree -p "$crate" -e normal,build --prefix none 2>/dev/null | grep -Eq '^tauri(-[a-z-]+)? v'; then
        echo "engine crate $crate depends on tauri" >&2
        exit 1
    fi
done
echo "ok: $(ls -d crates/*/ | wc -l) engine crates free of tauri"

step "shipped skills validate"
cargo run --quiet -p cli --bin scope-weaver -- skills validate

step "PostgreSQL on loopback (the audit log's fleet path)"
source "$ROOT/scripts/postgres.sh"
start_test_postgres
# Without the server the PostgreSQL tests would skip; here a missing server fails them.
export SCOPE_WEAVER_REQUIRE_POSTGRES=1

step "tests"
cargo test --workspace --no-fail-fast 2>&1 | tee "$CARGO_TARGET_DIR/test-output.txt"
status=${PIPESTATUS[0]}

step "tests of the optional OpenTelemetry exporter (feature otlp)"
# --workspace keeps feature unification as in the main build (no second build of sqlx).
cargo test --workspace --features audit/otlp --test otlp --no-fail-fast 2>&1 | tee -a "$CARGO_TARGET_DIR/test-output.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
passed=$(grep -Eo 'test result: [a-z]+\. [0-9]+ passed' "$CARGO_TARGET_DIR/test-output.txt" | awk '{s+=$4} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$CARGO_TARGET_DIR/test-output.txt" | awk '{s+=$1} END {print s+0}')
echo
echo "${passed} passed, ${failed} failed"
exit "$status"

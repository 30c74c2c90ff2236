#!/usr/bin/env bash
# Sandbox benchmarks (crates/sandbox/benches/sandbox.rs): duplicate finding vs fclones, scan vs
# find, snapshots vs graph copies. Installs fclones (cargo install, into the target dir) when it
# is missing; the table goes to bench-results/sandbox.md.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
tools="$CARGO_TARGET_DIR/bench-tools"
if ! command -v fclones >/dev/null 2>&1 && [ ! -x "$tools/bin/fclones" ]; then
    cargo install --locked --root "$tools" fclones
fi
export FCLONES="${FCLONES:-$(command -v fclones || echo "$tools/bin/fclones")}"
# BENCH_ONLY=duplicates|scan|snapshots|archives runs one part; BENCH_DUP_FILES and
# BENCH_DUP_MAX_BYTES size the duplicate tree; BENCH_DROP_CACHES=1 (root) measures the hash cache
# with the page cache dropped before each run.
BENCH_OUT="$ROOT/bench-results/sandbox.md" cargo bench -p sandbox --bench sandbox

#!/usr/bin/env bash
# Audit log benchmarks (crates/audit/benches/audit.rs) on SQLite and on a throwaway PostgreSQL
# server with fsync on; the table goes to bench-results/audit.md.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$ROOT/scripts/postgres.sh"
PG_FSYNC=on start_test_postgres
BENCH_OUT="$ROOT/bench-results/audit.md" cargo bench -p audit --bench audit

#!/usr/bin/env bash
# Regenerates the audit crate's compile-time query data (crates/audit/.sqlx) after a query or a
# migration changed, for both backends, without sqlx-cli: each pass builds the crate with one
# backend online (DATABASE_URL) and SQLX_OFFLINE_DIR set, which makes sqlx's macros write one
# file per query. SQLite: a scratch file with the migrations applied. PostgreSQL: a throwaway
# server (scripts/postgres.sh) with the migrations applied in the scope_weaver schema.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"

out="$ROOT/crates/audit/.sqlx"
rm -rf "$out" && mkdir -p "$out"

db="$(mktemp -d)/prepare.sqlite"
python3 - "$db" crates/audit/migrations/sqlite/*.sql <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for path in sys.argv[2:]:
    con.executescript(open(path).read())
con.commit()
PY
touch crates/audit/src/store/sqlite.rs crates/audit/src/store/postgres.rs
DATABASE_URL="sqlite://$db" SQLX_OFFLINE_DIR="$out" \
    cargo check -p audit --no-default-features --features sqlite --quiet

start_test_postgres
psql -q "$SCOPE_WEAVER_TEST_POSTGRES" -c "CREATE SCHEMA scope_weaver"
for m in crates/audit/migrations/postgres/*.sql; do
    PGOPTIONS="-c search_path=scope_weaver" psql -q -v ON_ERROR_STOP=1 "$SCOPE_WEAVER_TEST_POSTGRES" -f "$m"
done
DATABASE_URL="$SCOPE_WEAVER_TEST_POSTGRES?options=-c%20search_path%3Dscope_weaver" SQLX_OFFLINE_DIR="$out" \
    cargo check -p audit --no-default-features --features postgres --quiet
echo "wrote $(ls "$out" | wc -l) query files to crates/audit/.sqlx"

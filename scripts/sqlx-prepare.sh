#!/usr/bin/env bash
# Regenerates the audit crate's compile-time query data (crates/audit/.sqlx) after a query or a
# migration changed: applies the migrations to a scratch SQLite file and builds the crate online
# against it with SQLX_OFFLINE_DIR set, which makes sqlx's macros write one file per query.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

db="$(mktemp -d)/prepare.sqlite"
python3 - "$db" crates/audit/migrations/*.sql <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for path in sys.argv[2:]:
    con.executescript(open(path).read())
con.commit()
PY
rm -rf crates/audit/.sqlx && mkdir -p crates/audit/.sqlx
touch crates/audit/src/store.rs
DATABASE_URL="sqlite://$db" SQLX_OFFLINE_DIR="$ROOT/crates/audit/.sqlx" cargo check -p audit --quiet
echo "wrote $(ls crates/audit/.sqlx | wc -l) query files to crates/audit/.sqlx"

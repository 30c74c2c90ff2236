#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the audit log's fleet-path tests and for
# scripts/sqlx-prepare.sh. Source it, then call `start_test_postgres`: it installs the server
# (Debian's postgresql) if missing, creates a cluster in a temp folder, starts it on a free port
# of 127.0.0.1 with trust authentication, exports SCOPE_WEAVER_TEST_POSTGRES (the URL), and stops
# and removes it when the calling shell exits. PG_FSYNC=on keeps fsync on (benchmarks); tests
# run with it off.

start_test_postgres() {
    local bin
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        need_apt postgresql
        bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)"
    fi
    PG_TEST_DIR="$(mktemp -d /tmp/scope-weaver-pg.XXXXXX)"
    local port
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # initdb refuses to run as root: the cluster belongs to the postgres user then.
    PG_AS=()
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
        chown postgres "$PG_TEST_DIR"
        PG_AS=(runuser -u postgres --)
    fi
    "${PG_AS[@]}" "$bin/initdb" -D "$PG_TEST_DIR/data" -U postgres --auth=trust \
        --encoding=UTF8 --no-sync >"$PG_TEST_DIR/initdb.log" 2>&1 \
        || { cat "$PG_TEST_DIR/initdb.log" >&2; return 1; }
    "${PG_AS[@]}" "$bin/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_TEST_DIR -c fsync=${PG_FSYNC:-off}" start >/dev/null \
        || { cat "$PG_TEST_DIR/server.log" >&2; return 1; }
    PG_TEST_BIN="$bin"
    export SCOPE_WEAVER_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres"
    trap stop_test_postgres EXIT
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
}

stop_test_postgres() {
    if [ -n "${PG_TEST_DIR:-}" ] && [ -d "$PG_TEST_DIR/data" ]; then
        "${PG_AS[@]}" "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$PG_TEST_DIR"
    fi
}

-- The audit chain in PostgreSQL (schema scope_weaver): every record, append-only, each entry's
-- hash covering its predecessor's. Same shape as the SQLite chain.
CREATE TABLE entries (
    seq BIGINT PRIMARY KEY NOT NULL,
    id TEXT NOT NULL UNIQUE,
    at TEXT NOT NULL,
    run_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    previous_hash TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
CREATE INDEX entries_by_run ON entries (run_id, seq);

-- The last link, written in the same transaction as each entry: a deleted tail is noticed.
CREATE TABLE chain_head (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    count BIGINT NOT NULL,
    hash TEXT NOT NULL
);

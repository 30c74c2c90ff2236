-- The audit chain: every record, append-only, each entry's hash covering its predecessor's.
CREATE TABLE entries (
    seq INTEGER PRIMARY KEY NOT NULL,
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
    count INTEGER NOT NULL,
    hash TEXT NOT NULL
);

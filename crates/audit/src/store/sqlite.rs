//! The SQLite backend: one file, WAL, `synchronous=FULL` (every commit reaches the disk), busy
//! timeout, and `BEGIN IMMEDIATE` appends so two writers never build on the same link.

use std::path::Path;
use std::str::FromStr;

use futures_util::TryStreamExt;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, SqlitePool};

use super::{StoreOptions, block_on, runtime};
use crate::chain::{ChainHead, ChainVerifier, Entry, VerifyReport, next_entry};
use crate::{AuditError, Result};

/// SQLite's page size here (the default): `max_bytes` becomes a page count.
const PAGE_SIZE: u64 = 4096;

/// The chain in one SQLite file.
pub struct SqliteChain {
    pool: SqlitePool,
    rt: tokio::runtime::Runtime,
    path: String,
}

impl std::fmt::Debug for SqliteChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteChain")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteChain {
    pub(super) fn open(path: &Path, options: StoreOptions) -> Result<SqliteChain> {
        let shown = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| AuditError::from_io(&shown, dir, &e))?;
        }
        let rt = runtime(&shown)?;
        let mut connect = SqliteConnectOptions::from_str("sqlite:")
            .map_err(|e| AuditError::from_sqlite(&shown, e))?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(options.lock_timeout);
        if let Some(bytes) = options.max_bytes {
            connect = connect.pragma("max_page_count", (bytes / PAGE_SIZE).max(1).to_string());
        }
        let pool = block_on(&rt, async {
            SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(connect)
                .await
        })
        .map_err(|e| AuditError::from_sqlite(&shown, e))?;
        block_on(&rt, async {
            sqlx::migrate!("./migrations/sqlite").run(&pool).await
        })
        .map_err(|e| match e {
            sqlx::migrate::MigrateError::Execute(e) => AuditError::from_sqlite(&shown, e),
            e => AuditError::Migration(format!("{shown}: {e}")),
        })?;
        Ok(SqliteChain {
            pool,
            rt,
            path: shown,
        })
    }

    pub(super) fn location(&self) -> &str {
        &self.path
    }

    fn err(&self, e: sqlx::Error) -> AuditError {
        AuditError::from_sqlite(&self.path, e)
    }

    pub(super) fn head(&self) -> Result<Option<ChainHead>> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            sqlx::query_as!(ChainHead, "SELECT count, hash FROM chain_head WHERE id = 1")
                .fetch_optional(pool)
                .await
        })
        .map_err(|e| self.err(e))
    }

    pub(super) fn append(
        &self,
        run_id: &str,
        kind: &str,
        body: &serde_json::Value,
        at: String,
    ) -> Result<Entry> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            let mut conn = pool.acquire().await?;
            // IMMEDIATE: take the write lock before reading the head, so two writers never
            // build on the same link.
            let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
            let head =
                sqlx::query_as!(ChainHead, "SELECT count, hash FROM chain_head WHERE id = 1")
                    .fetch_optional(&mut *tx)
                    .await?;
            let seq = head.as_ref().map_or(1, |h| h.count + 1);
            let entry = next_entry(
                head.as_ref(),
                format!("a{seq:08}-{}", &run_id),
                at,
                run_id.to_owned(),
                kind.to_owned(),
                body,
            );
            sqlx::query!(
                "INSERT INTO entries (seq, id, at, run_id, kind, body, previous_hash, hash) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                entry.seq,
                entry.id,
                entry.at,
                entry.run_id,
                entry.kind,
                entry.body,
                entry.previous_hash,
                entry.hash
            )
            .execute(&mut *tx)
            .await?;
            sqlx::query!(
                "INSERT INTO chain_head (id, count, hash) VALUES (1, ?, ?) \
                 ON CONFLICT (id) DO UPDATE SET count = excluded.count, hash = excluded.hash",
                entry.seq,
                entry.hash
            )
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok::<_, sqlx::Error>(entry)
        })
        .map_err(|e| self.err(e))
    }

    pub(super) fn entries(&self) -> Result<Vec<Entry>> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            sqlx::query_as!(
                Entry,
                "SELECT seq, id, at, run_id, kind, body, previous_hash, hash \
                 FROM entries ORDER BY seq"
            )
            .fetch_all(pool)
            .await
        })
        .map_err(|e| self.err(e))
    }

    pub(super) fn run_entries(&self, run_id: &str) -> Result<Vec<Entry>> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            sqlx::query_as!(
                Entry,
                "SELECT seq, id, at, run_id, kind, body, previous_hash, hash \
                 FROM entries WHERE run_id = ? ORDER BY seq",
                run_id
            )
            .fetch_all(pool)
            .await
        })
        .map_err(|e| self.err(e))
    }

    pub(super) fn verify(&self) -> Result<VerifyReport> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            // One read transaction: the head and the entries come from the same snapshot.
            let mut tx = pool.begin().await?;
            let head =
                sqlx::query_as!(ChainHead, "SELECT count, hash FROM chain_head WHERE id = 1")
                    .fetch_optional(&mut *tx)
                    .await?;
            let mut v = ChainVerifier::default();
            {
                let mut rows = sqlx::query_as!(
                    Entry,
                    "SELECT seq, id, at, run_id, kind, body, previous_hash, hash \
                     FROM entries ORDER BY seq"
                )
                .fetch(&mut *tx);
                while let Some(e) = rows.try_next().await? {
                    if !v.push(e) {
                        break;
                    }
                }
            }
            tx.rollback().await?;
            Ok::<_, sqlx::Error>(v.finish(head.as_ref()))
        })
        .map_err(|e| self.err(e))
    }
}

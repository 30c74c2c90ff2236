//! The SQLite audit store (sqlx): WAL, full fsync per transaction, migrations applied on open,
//! compile-time-checked queries (offline data in `.sqlx/`). Each append is one transaction that
//! writes the entry and moves the chain head, so a crash never leaves half a record.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, SqlitePool};

use crate::chain::{ChainHead, Entry, VerifyReport, next_entry, verify};
use crate::{AuditError, Result};

/// Runs `fut` to completion on `rt` from a scoped thread (safe inside another runtime).
fn block_on<F>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    std::thread::scope(|s| {
        s.spawn(|| rt.block_on(fut))
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// The audit log in one SQLite file.
pub struct AuditStore {
    pool: SqlitePool,
    rt: tokio::runtime::Runtime,
    path: String,
}

impl std::fmt::Debug for AuditStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl AuditStore {
    /// Opens (creating if needed) the database at `path` and applies the migrations.
    pub fn open(path: &Path) -> Result<AuditStore> {
        Self::open_with(path, Duration::from_secs(5))
    }

    /// `open`, waiting at most `busy_timeout` for another process's lock before `AUDIT_LOCKED`.
    pub fn open_with(path: &Path, busy_timeout: Duration) -> Result<AuditStore> {
        let shown = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| AuditError::Unavailable {
                path: shown.clone(),
                message: format!("creating {}: {e}", dir.display()),
            })?;
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| AuditError::Unavailable {
                path: shown.clone(),
                message: format!("starting the database runtime: {e}"),
            })?;
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(|e| AuditError::from_sqlx(&shown, e))?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(busy_timeout);
        let pool = block_on(&rt, async {
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await?;
            Ok::<_, sqlx::Error>(pool)
        })
        .map_err(|e| AuditError::from_sqlx(&shown, e))?;
        block_on(&rt, async {
            sqlx::migrate!("./migrations").run(&pool).await
        })
        .map_err(|e| AuditError::Migration(format!("{shown}: {e}")))?;
        Ok(AuditStore {
            pool,
            rt,
            path: shown,
        })
    }

    pub fn path(&self) -> PathBuf {
        PathBuf::from(&self.path)
    }

    fn err(&self, e: sqlx::Error) -> AuditError {
        AuditError::from_sqlx(&self.path, e)
    }

    /// The chain's last link, if anything was recorded.
    pub fn head(&self) -> Result<Option<ChainHead>> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            sqlx::query_as!(ChainHead, "SELECT count, hash FROM chain_head WHERE id = 1")
                .fetch_optional(pool)
                .await
        })
        .map_err(|e| self.err(e))
    }

    /// Appends one record to the chain (one transaction: the entry and the new head).
    pub fn append(&self, run_id: &str, kind: &str, body: &serde_json::Value) -> Result<Entry> {
        let pool = &self.pool;
        let at = humantime::format_rfc3339_micros(std::time::SystemTime::now()).to_string();
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

    /// Every entry, in chain order.
    pub fn entries(&self) -> Result<Vec<Entry>> {
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

    /// The entries of one request, in order.
    pub fn run_entries(&self, run_id: &str) -> Result<Vec<Entry>> {
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

    /// Walks the whole chain and names the first broken link.
    pub fn verify(&self) -> Result<VerifyReport> {
        let head = self.head()?;
        Ok(verify(self.entries()?, head.as_ref()))
    }
}

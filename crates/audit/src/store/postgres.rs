//! The PostgreSQL backend (the fleet path): the same chain in the `scope_weaver` schema of a
//! shared server. Appends lock the chain head's table for their transaction, so writers on many
//! machines extend one chain without forks; `lock_timeout` bounds the wait (`AUDIT_LOCKED`).

use std::str::FromStr;
use std::time::Duration;

use futures_util::TryStreamExt;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgPool};

use super::{StoreOptions, block_on, block_on_local, redact, runtime};
use crate::chain::{ChainHead, ChainVerifier, Entry, VerifyReport, next_entry};
use crate::{AuditError, Result};

/// The schema holding the chain (and sqlx's migration table), apart from other applications.
pub const SCHEMA: &str = "scope_weaver";

/// The chain in a PostgreSQL database.
pub struct PgChain {
    pool: PgPool,
    rt: tokio::runtime::Runtime,
    location: String,
}

impl std::fmt::Debug for PgChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgChain")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl PgChain {
    pub(super) fn connect(url: &str, options: StoreOptions) -> Result<PgChain> {
        let shown = redact(url);
        let rt = runtime(&shown)?;
        let lock_ms = options.lock_timeout.as_millis().max(1);
        let connect = PgConnectOptions::from_str(url)
            .map_err(|e| AuditError::from_postgres(&shown, e))?
            .options([
                ("search_path", SCHEMA.to_owned()),
                ("lock_timeout", format!("{lock_ms}ms")),
            ]);
        // A first, direct connection: a server that is down or refuses us fails at once
        // (the pool would retry until its timeout). It creates the schema and migrates.
        // (Not `Send`: sqlx's migrator over a bare connection.)
        block_on_local(&rt, || async {
            let mut conn = sqlx::PgConnection::connect_with(&connect)
                .await
                .map_err(|e| AuditError::from_postgres(&shown, e))?;
            sqlx::query(&format!("CREATE SCHEMA IF NOT EXISTS {SCHEMA}"))
                .execute(&mut conn)
                .await
                .map_err(|e| AuditError::from_postgres(&shown, e))?;
            sqlx::migrate!("./migrations/postgres")
                .run(&mut conn)
                .await
                .map_err(|e| match e {
                    sqlx::migrate::MigrateError::Execute(e) => AuditError::from_postgres(&shown, e),
                    e => AuditError::Migration(format!("{shown}: {e}")),
                })?;
            conn.close()
                .await
                .map_err(|e| AuditError::from_postgres(&shown, e))
        })?;
        let pool = {
            let _guard = rt.enter();
            PgPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(Duration::from_secs(10) + options.lock_timeout)
                .connect_lazy_with(connect)
        };
        Ok(PgChain {
            pool,
            rt,
            location: shown,
        })
    }

    pub(super) fn location(&self) -> &str {
        &self.location
    }

    fn err(&self, e: sqlx::Error) -> AuditError {
        AuditError::from_postgres(&self.location, e)
    }

    pub(super) fn head(&self) -> Result<Option<ChainHead>> {
        let pool = &self.pool;
        block_on(&self.rt, async {
            sqlx::query_as!(
                ChainHead,
                "SELECT count, hash FROM scope_weaver.chain_head WHERE id = 1"
            )
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
            let mut tx = pool.begin().await?;
            // Serialises writers (also on other machines) until this transaction ends; readers
            // are not blocked.
            sqlx::query("LOCK TABLE scope_weaver.chain_head IN EXCLUSIVE MODE")
                .execute(&mut *tx)
                .await?;
            let head =
                sqlx::query_as!(ChainHead, "SELECT count, hash FROM scope_weaver.chain_head WHERE id = 1")
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
                "INSERT INTO scope_weaver.entries (seq, id, at, run_id, kind, body, previous_hash, hash) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
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
                "INSERT INTO scope_weaver.chain_head (id, count, hash) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO UPDATE SET count = EXCLUDED.count, hash = EXCLUDED.hash",
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
                 FROM scope_weaver.entries ORDER BY seq"
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
                 FROM scope_weaver.entries WHERE run_id = $1 ORDER BY seq",
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
            let mut conn = pool.acquire().await?;
            // One snapshot for the head and the entries.
            let mut tx = conn
                .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                .await?;
            let head = sqlx::query_as!(
                ChainHead,
                "SELECT count, hash FROM scope_weaver.chain_head WHERE id = 1"
            )
            .fetch_optional(&mut *tx)
            .await?;
            let mut v = ChainVerifier::default();
            {
                let mut rows = sqlx::query_as!(
                    Entry,
                    "SELECT seq, id, at, run_id, kind, body, previous_hash, hash \
                     FROM scope_weaver.entries ORDER BY seq"
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

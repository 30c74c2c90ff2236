//! The audit store: one hash chain in a SQLite file (the default) or in PostgreSQL (`audit_db:
//! postgres://…`, the fleet path). Both backends apply their migrations on open, use
//! compile-time-checked queries (offline data in `.sqlx/`), and append each entry and the new
//! chain head in one transaction, so a crash never leaves half a record.

use std::future::Future;
#[cfg(feature = "sqlite")]
use std::path::Path;
use std::time::Duration;

use crate::chain::{ChainHead, Entry, VerifyReport};
use crate::{AuditError, Result};

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
compile_error!("the audit crate needs a backend: feature `sqlite`, `postgres` or both");

#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

/// How long a write waits for another writer's lock before `AUDIT_LOCKED`.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

/// Options of `AuditStore::connect_with`.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// How long a write waits for another process's lock before `AUDIT_LOCKED`.
    pub lock_timeout: Duration,
    /// SQLite only: a cap on the database's size. Reaching it is reported like a full disk
    /// (`AUDIT_DISK_FULL`), and nothing is recorded.
    pub max_bytes: Option<u64>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            max_bytes: None,
        }
    }
}

/// Is `target` a PostgreSQL URL rather than a file path?
pub fn is_postgres_url(target: &str) -> bool {
    target.starts_with("postgres://") || target.starts_with("postgresql://")
}

/// `target` fit to show: a URL's password is replaced by `***`.
pub fn redact(target: &str) -> String {
    if !is_postgres_url(target) {
        return target.to_owned();
    }
    let Some((scheme, rest)) = target.split_once("://") else {
        return target.to_owned();
    };
    match rest.split_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
            None => target.to_owned(),
        },
        None => target.to_owned(),
    }
}

/// Runs `fut` to completion on `rt`: directly, or from a scoped thread when the caller is itself
/// inside a runtime (where blocking on another one would panic).
fn block_on<F>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return rt.block_on(fut);
    }
    std::thread::scope(|s| {
        s.spawn(|| rt.block_on(fut))
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// `block_on` for a future that is not `Send` (made on the runtime's thread by `make`).
#[cfg(feature = "postgres")]
fn block_on_local<M, F>(rt: &tokio::runtime::Runtime, make: M) -> F::Output
where
    M: FnOnce() -> F + Send,
    F: Future,
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return rt.block_on(make());
    }
    std::thread::scope(|s| {
        s.spawn(|| rt.block_on(make()))
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// The store's own single-threaded runtime (the callers are synchronous).
fn runtime(location: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| AuditError::Unavailable {
            path: location.to_owned(),
            message: format!("starting the database runtime: {e}"),
        })
}

/// The audit log's storage.
#[derive(Debug)]
pub enum AuditStore {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlite::SqliteChain),
    #[cfg(feature = "postgres")]
    Postgres(postgres::PgChain),
}

macro_rules! each_backend {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            #[cfg(feature = "sqlite")]
            AuditStore::Sqlite($s) => $body,
            #[cfg(feature = "postgres")]
            AuditStore::Postgres($s) => $body,
        }
    };
}

impl AuditStore {
    /// Opens (creating if needed) the SQLite database at `path` and applies the migrations.
    #[cfg(feature = "sqlite")]
    pub fn open(path: &Path) -> Result<AuditStore> {
        Self::open_with(path, StoreOptions::default())
    }

    /// `open` with options (lock timeout, size cap).
    #[cfg(feature = "sqlite")]
    pub fn open_with(path: &Path, options: StoreOptions) -> Result<AuditStore> {
        sqlite::SqliteChain::open(path, options).map(AuditStore::Sqlite)
    }

    /// Opens `target`: a `postgres://` URL, or else a SQLite file path.
    pub fn connect(target: &str) -> Result<AuditStore> {
        Self::connect_with(target, StoreOptions::default())
    }

    /// `connect` with options.
    pub fn connect_with(target: &str, options: StoreOptions) -> Result<AuditStore> {
        if is_postgres_url(target) {
            #[cfg(feature = "postgres")]
            return postgres::PgChain::connect(target, options).map(AuditStore::Postgres);
            #[cfg(not(feature = "postgres"))]
            return Err(AuditError::Unavailable {
                path: redact(target),
                message: "this build has no PostgreSQL backend (feature `postgres`)".into(),
            });
        }
        #[cfg(feature = "sqlite")]
        return Self::open_with(Path::new(target), options);
        #[cfg(not(feature = "sqlite"))]
        return Err(AuditError::Unavailable {
            path: target.to_owned(),
            message: "this build has no SQLite backend (feature `sqlite`)".into(),
        });
    }

    /// Where the log is: a file path, or the URL without its password.
    pub fn location(&self) -> String {
        each_backend!(self, s => s.location().to_owned())
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self {
            #[cfg(feature = "sqlite")]
            AuditStore::Sqlite(_) => "sqlite",
            #[cfg(feature = "postgres")]
            AuditStore::Postgres(_) => "postgres",
        }
    }

    /// The chain's last link, if anything was recorded.
    pub fn head(&self) -> Result<Option<ChainHead>> {
        each_backend!(self, s => s.head())
    }

    /// Appends one record to the chain (one transaction: the entry and the new head).
    pub fn append(&self, run_id: &str, kind: &str, body: &serde_json::Value) -> Result<Entry> {
        let at = humantime::format_rfc3339_micros(std::time::SystemTime::now()).to_string();
        each_backend!(self, s => s.append(run_id, kind, body, at))
    }

    /// Every entry, in chain order.
    pub fn entries(&self) -> Result<Vec<Entry>> {
        each_backend!(self, s => s.entries())
    }

    /// The entries of one request, in order.
    pub fn run_entries(&self, run_id: &str) -> Result<Vec<Entry>> {
        each_backend!(self, s => s.run_entries(run_id))
    }

    /// Walks the whole chain (streamed, not loaded) and names the first broken link.
    pub fn verify(&self) -> Result<VerifyReport> {
        each_backend!(self, s => s.verify())
    }
}

#[cfg(test)]
mod tests {
    use super::{is_postgres_url, redact};

    #[test]
    fn urls_are_told_apart_and_shown_without_passwords() {
        assert!(is_postgres_url("postgres://u@h/db"));
        assert!(is_postgres_url("postgresql://u@h/db"));
        assert!(!is_postgres_url("/var/lib/audit.sqlite"));
        assert_eq!(
            redact("postgres://alice:s3cret@db.example:5432/audit"),
            "postgres://alice:***@db.example:5432/audit"
        );
        assert_eq!(
            redact("postgres://alice@db/audit"),
            "postgres://alice@db/audit"
        );
        assert_eq!(redact("audit.sqlite"), "audit.sqlite");
    }
}

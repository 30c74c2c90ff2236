//! Errors of the audit log, each with a stable code for the UI.

use contracts::ErrorCode;

pub type Result<T, E = AuditError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("the audit database {path} is locked by another process; try again when it is done")]
    Locked { path: String },
    #[error("the disk holding the audit database {path} is full: nothing was recorded")]
    DiskFull { path: String },
    #[error("the audit database {path} cannot be used: {message}")]
    Unavailable { path: String, message: String },
    #[error("applying the audit database's migrations failed: {0}")]
    Migration(String),
    #[error("{0}")]
    Format(String),
    #[error("no request `{0}` in the audit log")]
    NotFound(String),
    #[error("logging cannot start: {0}")]
    Telemetry(String),
}

impl ErrorCode for AuditError {
    fn code(&self) -> &'static str {
        match self {
            AuditError::Locked { .. } => "AUDIT_LOCKED",
            AuditError::DiskFull { .. } => "AUDIT_DISK_FULL",
            AuditError::Unavailable { .. } => "AUDIT_UNAVAILABLE",
            AuditError::Migration(_) => "AUDIT_MIGRATION_FAILED",
            AuditError::Format(_) => "AUDIT_FORMAT",
            AuditError::NotFound(_) => "AUDIT_NOT_FOUND",
            AuditError::Telemetry(_) => "LOG_UNAVAILABLE",
        }
    }
}

impl AuditError {
    /// Classifies a SQLite error: busy/locked, disk full (or the size cap), or anything else.
    #[cfg(feature = "sqlite")]
    pub(crate) fn from_sqlite(path: &str, e: sqlx::Error) -> AuditError {
        if let sqlx::Error::Database(db) = &e {
            // SQLite primary result codes: 5 BUSY, 6 LOCKED, 13 FULL.
            let primary = db
                .code()
                .and_then(|c| c.parse::<i64>().ok())
                .map(|c| c & 0xff);
            match primary {
                Some(5 | 6) => {
                    return AuditError::Locked {
                        path: path.to_owned(),
                    };
                }
                Some(13) => {
                    return AuditError::DiskFull {
                        path: path.to_owned(),
                    };
                }
                // An I/O error (writing the WAL, growing the shared-memory file, fsync) is a
                // full disk when the disk has no room left.
                Some(10) if no_room_beside(path) => {
                    return AuditError::DiskFull {
                        path: path.to_owned(),
                    };
                }
                _ => {}
            }
        }
        Self::other(path, e)
    }

    /// Classifies a PostgreSQL error by SQLSTATE: lock or statement timeout and deadlock are
    /// `Locked`, 53100 is a full disk, the rest (a server that is down, bad credentials) is
    /// `Unavailable`.
    #[cfg(feature = "postgres")]
    pub(crate) fn from_postgres(location: &str, e: sqlx::Error) -> AuditError {
        if let sqlx::Error::Database(db) = &e {
            match db.code().as_deref() {
                Some("55P03" | "40P01" | "57014") => {
                    return AuditError::Locked {
                        path: location.to_owned(),
                    };
                }
                Some("53100") => {
                    return AuditError::DiskFull {
                        path: location.to_owned(),
                    };
                }
                _ => {}
            }
        }
        Self::other(location, e)
    }

    fn other(path: &str, e: sqlx::Error) -> AuditError {
        if let sqlx::Error::Io(io) = &e
            && io.raw_os_error() == Some(28)
        {
            return AuditError::DiskFull {
                path: path.to_owned(),
            };
        }
        AuditError::Unavailable {
            path: path.to_owned(),
            message: e.to_string(),
        }
    }

    /// A file-system error around the database (creating its folder).
    #[cfg(feature = "sqlite")]
    pub(crate) fn from_io(path: &str, what: &std::path::Path, e: &std::io::Error) -> AuditError {
        if e.raw_os_error() == Some(28) {
            return AuditError::DiskFull {
                path: path.to_owned(),
            };
        }
        AuditError::Unavailable {
            path: path.to_owned(),
            message: format!("creating {}: {e}", what.display()),
        }
    }
}

/// Is the disk holding `db` out of room? Writes (and removes) a 64 KiB probe file beside it.
#[cfg(feature = "sqlite")]
fn no_room_beside(db: &str) -> bool {
    use std::io::Write;
    let probe = std::path::PathBuf::from(format!("{db}.space-probe"));
    let result = std::fs::File::create(&probe).and_then(|mut f| {
        f.write_all(&[0u8; 64 * 1024])?;
        f.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    matches!(result, Err(e) if e.raw_os_error() == Some(28))
}

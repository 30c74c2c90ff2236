//! Errors of the sandbox, each with a stable code for the UI.

use std::path::PathBuf;

use contracts::ErrorCode;

use crate::commit::Conflict;
use crate::graph::GraphError;
use crate::scope::ScopeError;

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(transparent)]
    Scope(#[from] ScopeError),
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error("`{method}` needs the parameter `{name}`")]
    MissingParam { method: String, name: String },
    #[error("`{method}`: parameter `{name}` {message}")]
    InvalidParam {
        method: String,
        name: String,
        message: String,
    },
    #[error("`{method}` does not take {names}; it accepts: {accepted}")]
    UnknownParams {
        method: String,
        names: String,
        accepted: String,
    },
    #[error("unknown graph method `{0}`")]
    UnknownMethod(String),
    #[error("working root {path} is not a readable folder: {message}")]
    BadRoot { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("commit stopped before changing anything; {} conflict(s):\n{}", .0.len(), .0.iter().map(|c| format!("  - {c}")).collect::<Vec<_>>().join("\n"))]
    Conflicts(Vec<Conflict>),
    #[error(
        "{count} change(s) are not approved yet (first: {first}); approve or roll them back before commit"
    )]
    Unstaged { count: usize, first: String },
    #[error(
        "an interrupted commit is pending in {path} ({remaining} of {total} changes not applied); run `scope-weaver recover` to finish or inspect it"
    )]
    PendingJournal {
        path: PathBuf,
        remaining: usize,
        total: usize,
    },
    #[error("commit journal {path}: {message}")]
    Journal { path: PathBuf, message: String },
    #[error(
        "commit failed at change {index} ({op}): {message}; {}",
        if *.journal_kept {
            format!("{done} change(s) were applied, the journal keeps the rest")
        } else {
            "nothing on disk changed".to_owned()
        }
    )]
    CommitFailed {
        index: usize,
        op: String,
        message: String,
        done: usize,
        /// False when the failing change was the first and left nothing behind: no journal.
        journal_kept: bool,
    },
    #[error("commit refused before any change: {} file(s) would be lost:\n{}", .0.len(), .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Unaccounted(Vec<String>),
    #[error("the disk differs from the approved change after the commit ({} difference(s)):\n{}{}", .problems.len(), .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"), .run_id.as_ref().map(|id| format!("\nThe run is recorded: `scope-weaver undo {id}` turns back what was done.")).unwrap_or_default())]
    Unverified {
        run_id: Option<String>,
        problems: Vec<String>,
    },
    #[error("commit refused before any change: {} change(s) beyond what was approved:\n{}", .0.len(), .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    PlanLimit(Vec<String>),
    #[error("commit refused before any change: protected places:\n{}", .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Protected(Vec<String>),
    #[error("history record {path}: {message}")]
    History { path: PathBuf, message: String },
    #[error("run {run} changed {root}, not this folder; undo it there")]
    UndoOtherRoot { run: String, root: PathBuf },
    #[error("cannot read `{path}`: {message}")]
    Content { path: String, message: String },
    #[error(
        "refusing to extract `{path}`: {} entr{} would not stay inside the target folder ({})",
        .entries.len(),
        if .entries.len() == 1 { "y" } else { "ies" },
        .entries.iter().map(|(name, why)| format!("`{name}`: {why}")).collect::<Vec<_>>().join("; ")
    )]
    ArchiveUnsafe {
        path: String,
        /// Every refused entry, as stored, with why.
        entries: Vec<(String, String)>,
    },
    #[error(
        "`{method}`: {} already exist{} ({}); choose on_conflict skip, rename or fail",
        .paths.len(),
        if .paths.len() == 1 { "s" } else { "" },
        .paths.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
    )]
    ConflictsToResolve { method: String, paths: Vec<String> },
}

impl ErrorCode for SandboxError {
    fn code(&self) -> &'static str {
        match self {
            SandboxError::Scope(e) => e.code(),
            SandboxError::Graph(GraphError::NotFound(_)) => "NOT_FOUND",
            SandboxError::Graph(GraphError::AlreadyExists(_)) => "ALREADY_EXISTS",
            SandboxError::Graph(GraphError::NotADirectory(_)) => "NOT_A_DIRECTORY",
            SandboxError::Graph(GraphError::IntoItself(_)) => "MOVE_INTO_ITSELF",
            SandboxError::Graph(GraphError::Root) => "ROOT_PROTECTED",
            SandboxError::Graph(GraphError::UnknownSnapshot(_)) => "UNKNOWN_SNAPSHOT",
            SandboxError::MissingParam { .. } => "MISSING_PARAM",
            SandboxError::InvalidParam { .. } => "INVALID_PARAM",
            SandboxError::UnknownParams { .. } => "UNKNOWN_PARAM",
            SandboxError::UnknownMethod(_) => "UNKNOWN_METHOD",
            SandboxError::BadRoot { .. } => "BAD_ROOT",
            SandboxError::Io { .. } => "IO_ERROR",
            SandboxError::Conflicts(_) => "COMMIT_CONFLICT",
            SandboxError::Unstaged { .. } => "UNSTAGED_CHANGES",
            SandboxError::PendingJournal { .. } => "PENDING_JOURNAL",
            SandboxError::Journal { .. } => "JOURNAL_ERROR",
            SandboxError::CommitFailed { .. } => "COMMIT_FAILED",
            SandboxError::Content { .. } => "CONTENT_UNREADABLE",
            SandboxError::ArchiveUnsafe { .. } => "ARCHIVE_UNSAFE",
            SandboxError::History { .. } => "HISTORY_ERROR",
            SandboxError::PlanLimit(_) => "PLAN_LIMIT",
            SandboxError::Protected(_) => "PROTECTED_PATH",
            SandboxError::Unaccounted(_) => "CONTENT_UNACCOUNTED",
            SandboxError::Unverified { .. } => "COMMIT_UNVERIFIED",
            SandboxError::UndoOtherRoot { .. } => "UNDO_OTHER_ROOT",
            SandboxError::ConflictsToResolve { .. } => "CONFLICT_ASK",
        }
    }
}

pub type Result<T, E = SandboxError> = std::result::Result<T, E>;

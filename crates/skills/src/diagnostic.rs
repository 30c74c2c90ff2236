//! Diagnostics: every problem found in a skill folder, with file and line.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The skill (or the tool) is not loaded.
    Error,
    /// Loaded, but something is probably not what the author meant.
    Warning,
}

/// One problem in one file. `line` is 1-based; 0 means "the file as a whole".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    pub file: PathBuf,
    pub line: usize,
    pub severity: Severity,
    /// Stable machine-readable code (`MISSING_FIELD`, `UNKNOWN_METHOD`, ...).
    pub code: String,
    pub message: String,
}

impl Diagnostic {
    pub fn error(
        file: impl Into<PathBuf>,
        line: usize,
        code: &str,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            file: file.into(),
            line,
            severity: Severity::Error,
            code: code.to_owned(),
            message: message.into(),
        }
    }

    pub fn warning(
        file: impl Into<PathBuf>,
        line: usize,
        code: &str,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            file: file.into(),
            line,
            severity: Severity::Warning,
            code: code.to_owned(),
            message: message.into(),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}: {sev}[{}]: {}",
            self.file.display(),
            self.line,
            self.code,
            self.message
        )
    }
}

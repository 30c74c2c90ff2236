//! The `{code, message}` shape every error takes when it leaves the engine (UI, CLI `--json`, audit).

use serde::{Deserialize, Serialize};

/// Errors that cross a boundary carry a stable machine-readable code.
///
/// Codes are SCREAMING_SNAKE_CASE and never change meaning; messages are for people.
pub trait ErrorCode: std::fmt::Display {
    fn code(&self) -> &'static str;

    fn to_payload(&self) -> ErrorPayload {
        ErrorPayload {
            code: self.code().to_owned(),
            message: self.to_string(),
        }
    }
}

/// What the UI and `--json` output receive for an error: match on `code`, show `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorPayload {
    pub code: String,
    pub message: String,
}

impl ErrorPayload {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ErrorPayload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

//! The enumerated levers of `PipelineConfig`, each with its allowed spellings.

use serde::{Deserialize, Serialize};

macro_rules! lever {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }

            /// The allowed spellings, for error messages and `--help`.
            pub fn allowed() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(" | ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

lever!(
    /// When the person is asked to confirm.
    HitlMode { All => "all", Key => "key", Bypass => "bypass" }
);
lever!(
    /// Which planner turns a request into a plan.
    ThinkerBackend { Rule => "rule", Mistralrs => "mistralrs" }
);
lever!(
    /// Which model embeds skill descriptions, plan steps and file contents.
    EmbeddingBackend { Words => "words", Lexical => "lexical", Mistralrs => "mistralrs", Bert => "bert" }
);

impl EmbeddingBackend {
    /// Whether the backend is built in (no model file to point at).
    pub fn is_embedded(self) -> bool {
        matches!(self, EmbeddingBackend::Words | EmbeddingBackend::Lexical)
    }
}
lever!(
    /// Storage precision of vectors in the indexes.
    VectorQuantization { F32 => "f32", F16 => "f16", I8 => "i8" }
);
lever!(
    /// How text is split before embedding.
    ChunkStrategy { Fixed => "fixed", Sentence => "sentence", Paragraph => "paragraph", Semantic => "semantic" }
);
lever!(
    /// How embedding and BM25 scores are normalised before mixing (seed 000's five methods).
    CombineMethod {
        Minmax => "minmax",
        Sigmoid => "sigmoid",
        Tanh => "tanh",
        MinmaxSigmoid => "minmax_sigmoid",
        MinmaxTanh => "minmax_tanh",
    }
);
lever!(
    /// What a committed delete does.
    DeleteMode { Trash => "trash", Permanent => "permanent" }
);
lever!(
    /// What happens when a move/copy/rename target already exists.
    /// `ask`: the step stops on the names that exist and the person picks skip, rename or fail.
    ConflictPolicy { Fail => "fail", Skip => "skip", Rename => "rename", Ask => "ask" }
);
lever!(
    /// Log output format.
    LogFormat { Pretty => "pretty", Json => "json" }
);
lever!(
    /// Least severe log level shown.
    LogLevel { Error => "error", Warn => "warn", Info => "info", Debug => "debug", Trace => "trace" }
);

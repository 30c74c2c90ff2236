//! Greedy, unconstrained completion of one chat turn with a local GGUF model, printed as it is:
//! `cargo run --release -p thinker --features mistralrs --example complete -- MODEL.gguf "text" [N]`.
//! Compares the model's own words with another engine's (llama.cpp) when a plan looks wrong.

use std::path::PathBuf;

use config::PipelineConfig;
use thinker::{LlmLimits, LlmPlanner, Role};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(model), Some(text)) = (args.next(), args.next()) else {
        eprintln!("usage: complete MODEL.gguf TEXT [MAX_TOKENS]");
        std::process::exit(2);
    };
    let max_tokens = args.next().and_then(|n| n.parse().ok()).unwrap_or(64);
    let limits = LlmLimits::from_config(&PipelineConfig::default());
    let planner = LlmPlanner::load(&PathBuf::from(model), limits).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let messages = [
        (Role::System, "You are a helpful assistant.".to_owned()),
        (Role::User, text),
    ];
    match planner.complete(&messages, max_tokens) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

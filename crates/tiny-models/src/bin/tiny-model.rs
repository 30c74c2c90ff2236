//! `tiny-model <bert|llama|qwen3-embedding> DIR`: writes one tiny random-weight model folder, for
//! end-to-end tests that load models in the real app (the Settings window's model loading).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, dir] = args.as_slice() else {
        eprintln!("usage: tiny-model <bert|llama|qwen3-embedding> DIR");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    let written = match kind.as_str() {
        "bert" => tiny_models::write_bert(&dir, 32),
        "llama" => tiny_models::write_llama(&dir),
        "qwen3-embedding" => tiny_models::write_qwen3_embedding(&dir, 32),
        other => {
            eprintln!("tiny-model: unknown kind {other:?} (bert, llama, qwen3-embedding)");
            return ExitCode::from(2);
        }
    };
    match written {
        Ok(()) => {
            println!("{}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tiny-model: {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

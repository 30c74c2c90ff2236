//! `scope-weaver`: the headless command line over the engine, for scripting, CI and people without a display.

mod args;
mod audit;
mod calibrate;
mod commands;
mod demo;
mod eval_similar;
mod eval_sort;
mod output;
mod plan;
mod plan_eval;
mod plan_score;
mod run;
mod search;
mod tool;
mod undo;
mod watch;
mod workflows;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let missing = contracts::missing_cpu_features();
    if !missing.is_empty() {
        eprintln!(
            "error[CPU_UNSUPPORTED]: {}",
            contracts::cpu_mismatch_message(&missing)
        );
        return ExitCode::from(1);
    }
    quiet_on_closed_stdout();
    let cli = args::Cli::parse();
    let json = cli.json;
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            output::print_error(&err, json);
            ExitCode::from(1)
        }
    }
}

/// `scope-weaver ... | head`: when the reader goes away, stop quietly with a shell's SIGPIPE
/// status (141) instead of a panic report.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

//! `scope-weaver`: the headless command line over the engine, for scripting, CI and people without a display.

mod args;
mod audit;
mod commands;
mod demo;
mod output;
mod plan;
mod run;
mod search;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
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

//! The desktop app's entry point.

// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    let missing = contracts::missing_cpu_features();
    if !missing.is_empty() {
        eprintln!(
            "error[CPU_UNSUPPORTED]: {}",
            contracts::cpu_mismatch_message(&missing)
        );
        std::process::exit(1);
    }
    scope_weaver_app::run();
}

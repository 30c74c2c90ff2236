//! The CPU features a build was compiled for (x86-64-v3 by default: `.cargo/config.toml`) against
//! what the machine has, so a binary started on an older CPU says why it cannot run instead of
//! dying of an illegal instruction somewhere later.

/// Features this build was compiled to use (`-C target-cpu`) that this CPU does not have.
#[inline(never)]
pub fn missing_cpu_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut missing = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! check {
            ($($feature:tt),*) => {$(
                if cfg!(target_feature = $feature) && !std::arch::is_x86_feature_detected!($feature) {
                    missing.push($feature);
                }
            )*};
        }
        check!(
            "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "lzcnt", "movbe"
        );
    }
    missing
}

/// The message a shell prints when `missing_cpu_features` is not empty.
pub fn cpu_mismatch_message(missing: &[&str]) -> String {
    format!(
        "this build of Scope Weaver uses CPU instructions this machine lacks ({}); build for this \
         CPU with `SCOPE_WEAVER_BASELINE_CPU=1 bash scripts/run.sh` (the local models run slower)",
        missing.join(", ")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_machine_that_built_the_tests_runs_them() {
        assert_eq!(super::missing_cpu_features(), Vec::<&str>::new());
    }
}

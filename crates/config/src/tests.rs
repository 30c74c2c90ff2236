//! Config loading: precedence, every-problem reporting, and the wording people see.

use std::io::Write;

use expect_test::expect;

use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn yaml_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn defaults_match_the_documented_file() {
    let c = PipelineConfig::load_from(None, env(&[])).unwrap();
    assert_eq!(c, PipelineConfig::default());
    assert_eq!(c.skill_match_threshold, 0.70);
    assert_eq!(c.confidence_gap, 0.05);
    assert_eq!(c.hitl_mode, HitlMode::Key);
    assert_eq!(c.thinker_backend, ThinkerBackend::Rule);
    assert_eq!(c.embedding_backend, EmbeddingBackend::Words);
    assert_eq!(c.delete_mode, DeleteMode::Trash);
    assert_eq!(c.combine_method, CombineMethod::Minmax);
}

#[test]
fn precedence_is_defaults_then_file_then_env() {
    let file = yaml_file("hitl_mode: all\ntop_k: 9\nchunk_size: 1000\n");
    let c = PipelineConfig::load_from(
        Some(file.path()),
        env(&[
            ("SCOPE_WEAVER_HITL_MODE", "bypass"),
            ("SCOPE_WEAVER_SKILL_MATCH_THRESHOLD", "0.8"),
            ("SCOPE_WEAVER_BLOCK_ON_STALE", "true"),
            ("UNRELATED", "x"),
            ("SCOPE_WEAVER_CONFIG", "/ignored/here"),
            ("SCOPE_WEAVER_DEBUG_ANYTHING", "1"),
            // Regression: CI's test-harness variables made the desktop app's settings invalid.
            ("SCOPE_WEAVER_TEST_POSTGRES", "postgres://localhost/x"),
            ("SCOPE_WEAVER_TEST_REQUIRE_POSTGRES", "1"),
        ]),
    )
    .unwrap();
    assert_eq!(c.hitl_mode, HitlMode::Bypass, "env beats file");
    assert_eq!(c.top_k, 9, "file beats default");
    assert_eq!(c.chunk_size, 1000);
    assert_eq!(c.skill_match_threshold, 0.8);
    assert!(c.block_on_stale);
    assert_eq!(c.chunk_overlap, 32, "untouched keys keep defaults");
}

#[test]
fn every_problem_is_reported_with_key_source_and_allowed_values() {
    let file = yaml_file(
        "hitl_mode: sometimes\nskill_match_treshold: 0.5\ndelete_mode: shred\ntop_k: many\n",
    );
    let err = PipelineConfig::load_from(
        Some(file.path()),
        env(&[
            ("SCOPE_WEAVER_COMBINE_METHOD", "average"),
            ("SCOPE_WEAVER_CONFIDENCE_GAPP", "0.1"),
        ]),
    )
    .unwrap_err();
    let text = err
        .to_string()
        .replace(&file.path().display().to_string(), "FILE");
    expect![[r#"
        invalid configuration:
          - `skill_match_treshold` (from FILE): unknown setting (did you mean `skill_match_threshold`?)
          - `confidence_gapp` (from environment variable SCOPE_WEAVER_CONFIDENCE_GAPP): unknown setting (did you mean `confidence_gap`?)
          - `combine_method` (from environment variable SCOPE_WEAVER_COMBINE_METHOD): invalid value `average`, expected one of `minmax`, `sigmoid`, `tanh`, `minmax_sigmoid`, `minmax_tanh`
          - `delete_mode` (from FILE): invalid value `shred`, expected `trash` or `permanent`
          - `hitl_mode` (from FILE): invalid value `sometimes`, expected one of `all`, `key`, `bypass`
          - `top_k` (from FILE): invalid type: string "many", expected usize"#]]
    .assert_eq(&text);
    assert_eq!(contracts::ErrorCode::code(&err), "CONFIG_INVALID");
}

#[test]
fn out_of_range_values_are_reported_together() {
    let err = PipelineConfig::load_from(
        None,
        env(&[
            ("SCOPE_WEAVER_SKILL_MATCH_THRESHOLD", "1.5"),
            ("SCOPE_WEAVER_CHUNK_OVERLAP", "600"),
            ("SCOPE_WEAVER_THINKER_BACKEND", "mistralrs"),
            ("SCOPE_WEAVER_EMBEDDING_BACKEND", "bert"),
            ("SCOPE_WEAVER_EMBEDDING_MODEL_PATH", "models/minilm"),
        ]),
    )
    .unwrap_err();
    expect![[r#"
        invalid configuration:
          - `skill_match_threshold` (from environment variable SCOPE_WEAVER_SKILL_MATCH_THRESHOLD): must be between 0.0 and 1.0, got 1.5
          - `chunk_overlap` (from environment variable SCOPE_WEAVER_CHUNK_OVERLAP): must be smaller than chunk_size (256), got 600
          - `thinker_model_path` (from config/default.yaml): must be set when thinker_backend is mistralrs
          - `embedding_model_path` (from environment variable SCOPE_WEAVER_EMBEDDING_MODEL_PATH): must be an absolute path, got models/minilm"#]]
    .assert_eq(&err.to_string());
}

#[test]
fn broken_yaml_and_missing_file_are_clear() {
    let file = yaml_file("hitl_mode: [unclosed\n");
    let err = PipelineConfig::load_from(Some(file.path()), env(&[])).unwrap_err();
    assert_eq!(contracts::ErrorCode::code(&err), "CONFIG_SYNTAX");
    assert!(err.to_string().contains("is not valid YAML"), "{err}");

    let err =
        PipelineConfig::load_from(Some(Path::new("/nonexistent/sw.yaml")), env(&[])).unwrap_err();
    assert_eq!(contracts::ErrorCode::code(&err), "CONFIG_UNREADABLE");
    assert!(err.to_string().contains("/nonexistent/sw.yaml"));

    let file = yaml_file("- a\n- b\n");
    let err = PipelineConfig::load_from(Some(file.path()), env(&[])).unwrap_err();
    assert!(
        err.to_string().contains("top level must be a mapping"),
        "{err}"
    );
}

#[test]
fn empty_env_value_means_null() {
    let file = yaml_file("working_root: /tmp/x\n");
    let c = PipelineConfig::load_from(Some(file.path()), env(&[("SCOPE_WEAVER_WORKING_ROOT", "")]))
        .unwrap();
    assert_eq!(c.working_root, None);
}

#[test]
fn every_default_key_is_a_field_and_round_trips() {
    let c = PipelineConfig::default();
    let back: PipelineConfig = serde_yaml::from_str(&c.to_yaml()).unwrap();
    assert_eq!(back, c);
}

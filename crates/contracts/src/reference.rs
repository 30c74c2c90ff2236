//! `$step(n).field[0].sub` cross-step references: parsing, printing and selecting values.

use std::fmt;
use std::ops::Range;

use serde_json::{Map, Value};

use crate::ErrorCode;

/// One step into a JSON value: a field name or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    Field(String),
    Index(usize),
}

/// A parsed `$step(n)...` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// 1-based step number.
    pub step: u32,
    pub path: Vec<PathSegment>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    #[error("bad reference `{reference}`: {reason}")]
    Syntax { reference: String, reason: String },
    #[error("reference `{reference}` points to step {step}, which has not run")]
    UnknownStep { reference: String, step: u32 },
    #[error("reference `{reference}` depends on step {step}, which was rolled back or failed")]
    DependencyUnavailable { reference: String, step: u32 },
    #[error("reference `{reference}`: step {step}'s result has no {missing}")]
    MissingField {
        reference: String,
        step: u32,
        missing: String,
    },
}

impl ErrorCode for ReferenceError {
    fn code(&self) -> &'static str {
        match self {
            ReferenceError::Syntax { .. } => "BAD_REFERENCE",
            ReferenceError::UnknownStep { .. } => "UNKNOWN_STEP_REFERENCE",
            ReferenceError::DependencyUnavailable { .. } => "DEPENDENCY_UNAVAILABLE",
            ReferenceError::MissingField { .. } => "MISSING_REFERENCE_FIELD",
        }
    }
}

const PREFIX: &str = "$step(";

impl Reference {
    /// Parses a string that is exactly one reference.
    pub fn parse(s: &str) -> Result<Reference, ReferenceError> {
        let trimmed = s.trim();
        match Self::parse_prefix(trimmed)? {
            (r, len) if len == trimmed.len() => Ok(r),
            (_, len) => Err(ReferenceError::Syntax {
                reference: s.to_owned(),
                reason: format!("unexpected `{}` after the reference", &trimmed[len..]),
            }),
        }
    }

    /// Every reference embedded in `s`, with its byte range.
    pub fn find_all(s: &str) -> Result<Vec<(Range<usize>, Reference)>, ReferenceError> {
        let mut found = Vec::new();
        let mut from = 0;
        while let Some(pos) = s[from..].find(PREFIX) {
            let start = from + pos;
            let (r, len) = Self::parse_prefix(&s[start..])?;
            found.push((start..start + len, r));
            from = start + len;
        }
        Ok(found)
    }

    /// Parses a reference at the start of `s`; returns it and how many bytes it used.
    fn parse_prefix(s: &str) -> Result<(Reference, usize), ReferenceError> {
        let syntax = |reason: &str| ReferenceError::Syntax {
            reference: s.to_owned(),
            reason: reason.to_owned(),
        };
        let rest = s
            .strip_prefix(PREFIX)
            .ok_or_else(|| syntax("must start with `$step(`"))?;
        let close = rest
            .find(')')
            .ok_or_else(|| syntax("missing `)` after the step number"))?;
        let step: u32 = rest[..close]
            .trim()
            .parse()
            .map_err(|_| syntax(&format!("`{}` is not a step number", &rest[..close])))?;
        if step == 0 {
            return Err(syntax("steps are numbered from 1"));
        }
        let bytes = s.as_bytes();
        let mut i = PREFIX.len() + close + 1;
        let mut path = Vec::new();
        loop {
            match bytes.get(i) {
                Some(b'.') => {
                    let start = i + 1;
                    let mut end = start;
                    while end < bytes.len()
                        && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_')
                    {
                        end += 1;
                    }
                    if end == start {
                        // A trailing dot ends a sentence rather than starting a field.
                        break;
                    }
                    path.push(PathSegment::Field(s[start..end].to_owned()));
                    i = end;
                }
                Some(b'[') => {
                    let close = s[i..].find(']').ok_or_else(|| syntax("missing `]`"))? + i;
                    let index: usize = s[i + 1..close].trim().parse().map_err(|_| {
                        syntax(&format!("`{}` is not a list index", &s[i + 1..close]))
                    })?;
                    path.push(PathSegment::Index(index));
                    i = close + 1;
                }
                _ => break,
            }
        }
        Ok((Reference { step, path }, i))
    }

    /// Walks `data` along this reference's path.
    ///
    /// A field applied to a list maps over the list (`$step(1).nodes.path` gives every path).
    pub fn select(&self, data: &Value) -> Result<Value, ReferenceError> {
        let mut current = data.clone();
        let mut walked = String::new();
        for seg in &self.path {
            let missing = |walked: &str, what: String| ReferenceError::MissingField {
                reference: self.to_string(),
                step: self.step,
                missing: if walked.is_empty() {
                    what
                } else {
                    format!("{what} in `{walked}`")
                },
            };
            current =
                match (seg, current) {
                    (PathSegment::Field(f), Value::Object(mut map)) => map
                        .remove(f)
                        .ok_or_else(|| missing(&walked, format!("field `{f}`")))?,
                    (PathSegment::Field(f), Value::Array(items)) => {
                        let mapped: Option<Vec<Value>> = items
                            .into_iter()
                            .map(|item| match item {
                                Value::Object(mut map) => map.remove(f),
                                _ => None,
                            })
                            .collect();
                        Value::Array(mapped.ok_or_else(|| {
                            missing(&walked, format!("field `{f}` in every item"))
                        })?)
                    }
                    (PathSegment::Index(i), Value::Array(mut items)) => {
                        if *i >= items.len() {
                            return Err(missing(
                                &walked,
                                format!("item [{i}] (list has {} items)", items.len()),
                            ));
                        }
                        items.swap_remove(*i)
                    }
                    (seg, other) => {
                        let kind = match other {
                            Value::Null => "null",
                            Value::Bool(_) => "a boolean",
                            Value::Number(_) => "a number",
                            Value::String(_) => "a string",
                            Value::Array(_) => "a list",
                            Value::Object(_) => "an object",
                        };
                        let want = match seg {
                            PathSegment::Field(f) => format!("field `{f}`"),
                            PathSegment::Index(i) => format!("item [{i}]"),
                        };
                        return Err(missing(&walked, format!("{want} ({kind} has none)")));
                    }
                };
            match seg {
                PathSegment::Field(f) => {
                    walked.push('.');
                    walked.push_str(f)
                }
                PathSegment::Index(i) => walked.push_str(&format!("[{i}]")),
            }
        }
        Ok(current)
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "$step({})", self.step)?;
        for seg in &self.path {
            match seg {
                PathSegment::Field(name) => write!(f, ".{name}")?,
                PathSegment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// Every reference inside a params map (recursively), for plan validation.
pub fn find_references(params: &Map<String, Value>) -> Result<Vec<Reference>, ReferenceError> {
    fn walk(v: &Value, out: &mut Vec<Reference>) -> Result<(), ReferenceError> {
        match v {
            Value::String(s) => out.extend(Reference::find_all(s)?.into_iter().map(|(_, r)| r)),
            Value::Array(items) => items.iter().try_for_each(|i| walk(i, out))?,
            Value::Object(map) => map.values().try_for_each(|i| walk(i, out))?,
            _ => {}
        }
        Ok(())
    }
    let mut out = Vec::new();
    for v in params.values() {
        walk(v, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ExecutionResult, PipelineContext};

    fn ctx() -> PipelineContext {
        let mut ctx = PipelineContext::default();
        ctx.record(
            1,
            ExecutionResult::success(
                "s1",
                json!({"nodes": [{"path": "a.txt", "size": 3}, {"path": "b/c.pdf", "size": 5}], "count": 2}),
            ),
        );
        ctx.record(
            2,
            ExecutionResult::success(
                "s2",
                json!({"groups": [{"hash": "ab", "paths": ["x", "y"]}], "total": 1}),
            ),
        );
        ctx
    }

    #[test]
    fn resolves_data_driven_cases() {
        let ctx = ctx();
        let cases: &[(&str, Result<Value, &str>)] = &[
            ("$step(1).count", Ok(json!(2))),
            ("$step(1).nodes[1].path", Ok(json!("b/c.pdf"))),
            ("$step(1).nodes.path", Ok(json!(["a.txt", "b/c.pdf"]))),
            ("$step(2).groups[0].paths", Ok(json!(["x", "y"]))),
            ("$step(2).groups[0].paths[1]", Ok(json!("y"))),
            (
                "$step(2)",
                Ok(json!({"groups": [{"hash": "ab", "paths": ["x", "y"]}], "total": 1})),
            ),
            ("$step( 2 ).total", Ok(json!(1))),
            ("$step(2).groups[3]", Err("MISSING_REFERENCE_FIELD")),
            ("$step(1).nope", Err("MISSING_REFERENCE_FIELD")),
            ("$step(1).count.deeper", Err("MISSING_REFERENCE_FIELD")),
            ("$step(9).x", Err("UNKNOWN_STEP_REFERENCE")),
            ("$step(0).x", Err("BAD_REFERENCE")),
            ("$step(one).x", Err("BAD_REFERENCE")),
            ("$step(1.x", Err("BAD_REFERENCE")),
            ("$step(1).nodes[x]", Err("BAD_REFERENCE")),
            ("$step(1).count!", Err("BAD_REFERENCE")),
        ];
        for (reference, expected) in cases {
            let got = ctx.resolve(reference).map_err(|e| e.code());
            assert_eq!(&got, expected, "resolving {reference}");
        }
    }

    #[test]
    fn rolled_back_dependency_is_unavailable() {
        let mut ctx = ctx();
        ctx.mark_unavailable(2);
        let err = ctx.resolve("$step(2).groups").unwrap_err();
        assert_eq!(err.code(), "DEPENDENCY_UNAVAILABLE");
        assert_eq!(
            err.to_string(),
            "reference `$step(2).groups` depends on step 2, which was rolled back or failed"
        );
        // Step 1 is unaffected.
        assert_eq!(ctx.resolve("$step(1).count").unwrap(), json!(2));
    }

    #[test]
    fn failed_step_is_unavailable() {
        let mut ctx = ctx();
        ctx.record(
            3,
            ExecutionResult::failure("s3", crate::ErrorPayload::new("X", "boom")),
        );
        assert_eq!(
            ctx.resolve("$step(3).x").unwrap_err().code(),
            "DEPENDENCY_UNAVAILABLE"
        );
    }

    #[test]
    fn resolves_params_recursively_and_inside_text() {
        let ctx = ctx();
        let params = json!({
            "source": "$step(1).nodes",
            "target": "Sorted",
            "note": "moving $step(1).count files.",
            "nested": {"first": ["$step(2).groups[0].paths[0]", 4]}
        });
        let resolved = ctx.resolve_params(params.as_object().unwrap()).unwrap();
        assert_eq!(
            Value::Object(resolved),
            json!({
                "source": [{"path": "a.txt", "size": 3}, {"path": "b/c.pdf", "size": 5}],
                "target": "Sorted",
                "note": "moving 2 files.",
                "nested": {"first": ["x", 4]}
            })
        );
    }

    #[test]
    fn finds_and_prints_references() {
        let params = json!({"a": "$step(1).nodes[0].path", "b": ["x $step(3) y"], "c": 1});
        let refs = find_references(params.as_object().unwrap()).unwrap();
        let printed: Vec<String> = refs.iter().map(ToString::to_string).collect();
        assert_eq!(printed, ["$step(1).nodes[0].path", "$step(3)"]);
    }
}

//! Typed access to a primitive call's JSON params: paths through the scope, sizes, dates, policies.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use config::ConflictPolicy;
use serde_json::{Map, Value};

use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::scope::Scope;

/// The params of one call, with the method name for error messages.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub method: &'a str,
    pub map: &'a Map<String, Value>,
}

impl<'a> Params<'a> {
    pub fn new(method: &'a str, map: &'a Map<String, Value>) -> Self {
        Params { method, map }
    }

    fn invalid(&self, name: &str, message: impl Into<String>) -> SandboxError {
        SandboxError::InvalidParam {
            method: self.method.to_owned(),
            name: name.to_owned(),
            message: message.into(),
        }
    }

    pub(crate) fn missing(&self, name: &str) -> SandboxError {
        SandboxError::MissingParam {
            method: self.method.to_owned(),
            name: name.to_owned(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    pub fn required(&self, name: &str) -> Result<&'a Value> {
        self.get(name).ok_or_else(|| self.missing(name))
    }

    pub fn opt_str(&self, name: &str) -> Result<Option<String>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(other) => Err(self.invalid(name, format!("must be text, got {other}"))),
        }
    }

    pub fn str(&self, name: &str) -> Result<String> {
        self.opt_str(name)?.ok_or_else(|| self.missing(name))
    }

    /// An enumerated text param; the error lists the allowed values.
    pub fn choice(&self, name: &str, allowed: &[&str], default: &str) -> Result<String> {
        let v = self.opt_str(name)?.unwrap_or_else(|| default.to_owned());
        let norm = v.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        if allowed.contains(&norm.as_str()) {
            Ok(norm)
        } else {
            Err(self.invalid(
                name,
                format!("must be one of {}, got `{v}`", allowed.join(", ")),
            ))
        }
    }

    pub fn bool(&self, name: &str, default: bool) -> Result<bool> {
        match self.get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" | "on" => Ok(true),
                "false" | "no" | "0" | "off" => Ok(false),
                _ => Err(self.invalid(name, format!("must be true or false, got `{s}`"))),
            },
            Some(other) => Err(self.invalid(name, format!("must be true or false, got {other}"))),
        }
    }

    pub fn int(&self, name: &str) -> Result<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.invalid(name, "must be a whole number")),
            Some(Value::String(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| self.invalid(name, format!("must be a whole number, got `{s}`"))),
            Some(other) => Err(self.invalid(name, format!("must be a whole number, got {other}"))),
        }
    }

    pub fn size(&self, name: &str) -> Result<Option<u64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.invalid(name, "must be a byte count")),
            Some(Value::String(s)) => parse_size(s).map(Some).ok_or_else(|| {
                self.invalid(
                    name,
                    format!("must be a size such as 1048576, 10MB or 1.5 GiB, got `{s}`"),
                )
            }),
            Some(other) => Err(self.invalid(name, format!("must be a size, got {other}"))),
        }
    }

    /// A date as seconds since the epoch.
    pub fn date(&self, name: &str, now: i64) -> Result<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| self.invalid(name, "must be a timestamp")),
            Some(Value::String(s)) => parse_date(s, now).map(Some).ok_or_else(|| {
                self.invalid(name, format!("must be a date (2024-05-01), a timestamp, or an age (7d, 3 weeks), got `{s}`"))
            }),
            Some(other) => Err(self.invalid(name, format!("must be a date, got {other}"))),
        }
    }

    pub fn conflict(&self, default: ConflictPolicy) -> Result<ConflictPolicy> {
        let allowed: Vec<&str> = ConflictPolicy::ALL.iter().map(|c| c.as_str()).collect();
        let v = self.choice("on_conflict", &allowed, default.as_str())?;
        Ok(ConflictPolicy::parse(&v).expect("checked against ALL"))
    }

    /// A list of plain strings (`"pdf,jpg"`, `["pdf", "jpg"]`).
    pub fn list(&self, name: &str) -> Result<Vec<String>> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(s
                .split([',', ' '])
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(str::to_owned)
                .collect()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => {
                        Err(self.invalid(name, format!("must be a list of text, found {other}")))
                    }
                })
                .collect(),
            Some(other) => Err(self.invalid(name, format!("must be text or a list, got {other}"))),
        }
    }

    /// Names of new items: a list, or text split on commas only (`"Taxes 2024"` is one name,
    /// `"Photos, Videos"` two).
    pub fn names(&self, name: &str) -> Result<Vec<String>> {
        match self.get(name) {
            Some(Value::String(s)) => Ok(s
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(str::to_owned)
                .collect()),
            _ => self.list(name),
        }
    }

    /// One path inside the scope, as a node id.
    pub fn path(&self, name: &str, scope: &Scope, graph: &FileSystemGraph) -> Result<String> {
        match self.required(name)? {
            Value::String(s) => Ok(scope.resolve(s, graph)?),
            Value::Object(o) => match node_path(o) {
                Some(s) => Ok(scope.resolve(s, graph)?),
                None => Err(self.invalid(name, "must be a path or a node with a `path` field")),
            },
            other => Err(self.invalid(name, format!("must be a path, got {other}"))),
        }
    }

    /// One path or many: a string, a list, node objects, or a step result holding `nodes`/`paths`.
    pub fn paths(&self, name: &str, scope: &Scope, graph: &FileSystemGraph) -> Result<Vec<String>> {
        let mut raw = Vec::new();
        collect_paths(self.required(name)?, &mut raw).map_err(|m| self.invalid(name, m))?;
        if raw.is_empty() {
            return Err(self.invalid(name, "is an empty list: nothing to act on"));
        }
        let mut out: Vec<String> = Vec::with_capacity(raw.len());
        for r in raw {
            let id = scope.resolve(&r, graph)?;
            if !out.contains(&id) {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// Optional list of paths (`exclude`).
    pub fn opt_paths(
        &self,
        name: &str,
        scope: &Scope,
        graph: &FileSystemGraph,
    ) -> Result<Vec<String>> {
        if self.get(name).is_none() {
            Ok(Vec::new())
        } else {
            self.paths(name, scope, graph)
        }
    }
}

fn node_path(o: &Map<String, Value>) -> Option<&str> {
    o.get("path")
        .or_else(|| o.get("id"))
        .and_then(Value::as_str)
}

fn collect_paths(v: &Value, out: &mut Vec<String>) -> std::result::Result<(), String> {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => {
            for i in items {
                collect_paths(i, out)?;
            }
        }
        Value::Object(o) => {
            if let Some(p) = node_path(o) {
                out.push(p.to_owned());
            } else if let Some(inner) = o.get("nodes").or_else(|| o.get("paths")) {
                collect_paths(inner, out)?;
            } else {
                return Err("holds an object without `path`, `nodes` or `paths`".into());
            }
        }
        other => return Err(format!("must be paths, found {other}")),
    }
    Ok(())
}

/// `1048576`, `10MB`, `1.5 GiB`, `20k` → bytes. Decimal units are powers of 1000, `iB` of 1024.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num: f64 = num.parse().ok()?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024f64.powi(4),
        _ => return None,
    };
    (num >= 0.0).then(|| (num * mult).round() as u64)
}

/// A date (`2024-05-01`), RFC 3339 timestamp, or an age (`7d`, `3 weeks`, `2 months ago`) → epoch seconds.
pub fn parse_date(s: &str, now: i64) -> Option<i64> {
    let s = s.trim();
    if let Some(days) = parse_ymd(s) {
        return Some(days * 86_400);
    }
    if let Ok(t) = humantime::parse_rfc3339_weak(s) {
        return Some(epoch_secs(t));
    }
    let age: String = s
        .trim_end_matches("ago")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let d: Duration = humantime::parse_duration(&age).ok()?;
    Some(now - d.as_secs() as i64)
}

fn parse_ymd(s: &str) -> Option<i64> {
    let mut it = s.split('-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if it.next().is_some() || y.len() != 4 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

pub fn epoch_secs(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    }
}

pub fn now_secs() -> i64 {
    epoch_secs(SystemTime::now())
}

/// `2024-05-01T10:00:00Z` for a timestamp.
pub fn format_time(secs: i64) -> String {
    let t = if secs >= 0 {
        UNIX_EPOCH + Duration::from_secs(secs as u64)
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
    };
    humantime::format_rfc3339_seconds(t).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        for (s, want) in [
            ("1048576", Some(1_048_576)),
            ("10MB", Some(10_000_000)),
            ("1.5 GiB", Some(1_610_612_736)),
            ("20k", Some(20_000)),
            ("3 bytes", Some(3)),
            ("ten", None),
            ("5 parsecs", None),
        ] {
            assert_eq!(parse_size(s), want, "{s}");
        }
    }

    #[test]
    fn dates() {
        let now = 1_700_000_000;
        assert_eq!(parse_date("1970-01-02", now), Some(86_400));
        assert_eq!(parse_date("2024-03-01", now), Some(1_709_251_200));
        assert_eq!(parse_date("2024-03-01T12:00:00Z", now), Some(1_709_294_400));
        assert_eq!(parse_date("7d", now), Some(now - 7 * 86_400));
        assert_eq!(parse_date("3 weeks ago", now), Some(now - 21 * 86_400));
        assert_eq!(parse_date("2024-13-01", now), None);
        assert_eq!(parse_date("yesterday-ish", now), None);
        assert_eq!(format_time(1_709_294_400), "2024-03-01T12:00:00Z");
    }
}

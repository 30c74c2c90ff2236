//! Parameter values for the rule planner: a slot of the request as a parameter's value, which
//! slots a clause gives, and a tool's declared default (a template over its other parameters).
//! Pure.

use contracts::ToolDefinition;
use serde_json::{Map, Value, json};

use super::extract::Slots;

/// A default from the tool's `defaults`. A string default may be a template over the other
/// parameters: `"{source}.{format|zip}"` (a list parameter gives its first path, without a
/// trailing `/`; `|` gives a fallback). A template whose parameter is unknown, a reference or
/// the whole root gives nothing.
pub(super) fn default_value(
    tool: &ToolDefinition,
    name: &str,
    params: &Map<String, Value>,
    folder_object: Option<&str>,
) -> Option<Value> {
    let v = tool.planning.defaults.get(name)?;
    let Some(template) = v.as_str().filter(|s| s.contains('{')) else {
        return Some(v.clone());
    };
    // Folder patterns (`{year}/{month}`) are values, not templates over parameters.
    let is_param = |p: &str| {
        let p = p.split('|').next().unwrap_or(p);
        tool.required_params
            .iter()
            .chain(&tool.optional_params)
            .any(|x| x == p)
    };
    if !contracts::trigger_placeholders(template)
        .iter()
        .any(|p| is_param(p))
    {
        return Some(v.clone());
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}')?;
        out.push_str(&rest[..open]);
        let (param, fallback) = match rest[open + 1..close].split_once('|') {
            Some((p, f)) => (p, Some(f)),
            None => (&rest[open + 1..close], None),
        };
        let value = match params.get(param) {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(Value::Array(a)) => a.first().and_then(Value::as_str),
            _ => None,
        }
        .filter(|s| !s.starts_with('$'))
        .or(folder_object.filter(|_| fallback.is_none()))
        .map(|s| s.trim_end_matches('/').to_owned())
        .filter(|s| s != ".");
        out.push_str(&value.or(fallback.map(str::to_owned))?);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(json!(out))
}

/// The value of a slot of the request, as a parameter value, and the slot it accounts for.
pub(super) fn slot_value(slot: &str, s: &Slots) -> Option<(Value, &'static str)> {
    let is_name_pattern = |p: &str| {
        ["{name", "{n", "{exif", "{date", "{parent"]
            .iter()
            .any(|x| p.contains(x))
    };
    let v = match slot {
        "extensions" if !s.extensions.is_empty() => (json!(s.extensions.join(",")), "extensions"),
        "glob" => (json!(s.glob.clone()?), "glob"),
        "name" => (json!(s.name.clone()?), "name"),
        "min_size" => (json!(s.min_size.clone()?), "min_size"),
        "max_size" => (json!(s.max_size.clone()?), "max_size"),
        "modified_after" => (json!(s.modified_after.clone()?), "modified_after"),
        "modified_before" => (json!(s.modified_before.clone()?), "modified_before"),
        "empty" if s.empty => (json!(true), "empty"),
        "kind" => (json!(s.kind.clone()?), "kind"),
        "recursive" => (json!(s.recursive?), "recursive"),
        "limit" => (json!(s.limit?), "limit"),
        "sentences" => (json!(s.sentences?), "sentences"),
        "keep" => (json!(s.keep.clone()?), "keep"),
        "exclude" if !s.exclude.is_empty() => (json!(s.exclude), "exclude"),
        "priority" if !s.priority.is_empty() => (json!(s.priority), "priority"),
        "format" => (json!(s.format.clone()?), "format"),
        "compression" => {
            // The format's own range: zip and tar.gz 0–9, tar.zst 1–22 ("the highest level" is 22).
            let zst = s.format.as_deref() == Some("tar.zst")
                || s.targets.iter().any(|t| t.ends_with(".zst"));
            if let Some(level) = s.level {
                return Some((json!(level), "compression"));
            }
            let level = match (s.compression?, zst) {
                ("max", true) => 22,
                ("max", false) => 9,
                ("none", false) => 0,
                (_, _) => 1,
            };
            (json!(level), "compression")
        }
        // A folder pattern; a file-name pattern ("{name}", "{exif.date}") is `name_pattern`.
        "pattern" => (
            json!(s.pattern.clone().filter(|p| !is_name_pattern(p))?),
            "pattern",
        ),
        "name_pattern" => {
            let p = s
                .pattern
                .clone()
                .or_else(|| (s.case.is_some() || s.find.is_some()).then(|| "{name}".to_owned()))?;
            (json!(p), "pattern")
        }
        "start" => (json!(s.start?), "pattern"),
        "case" => (json!(s.case.clone()?), "case"),
        "find" => (json!(s.find.clone()?), "find"),
        "replace" => (json!(s.replace.clone()?), "replace"),
        "content" => (json!(s.content.clone()?), "content"),
        "tags" if !s.tags.is_empty() => (json!(s.tags.join(", ")), "tags"),
        "query" => (json!(s.query.clone()?), "query"),
        "categories" if !s.categories.is_empty() => (json!(s.categories.join(", ")), "categories"),
        "delete_originals" if s.delete_originals => (json!(true), "delete_originals"),
        "max_bytes" => (json!(s.max_bytes?), "max_bytes"),
        "locations" => (json!(s.locations.first()?), "locations"),
        "objects" => (json!(s.objects.first()?), "objects"),
        "targets" => (json!(s.targets.first()?), "targets"),
        _ => return None,
    };
    Some(v)
}

/// Which specific slots the clause filled (each should be used by the chosen tools).
pub(super) fn slot_presence(s: &Slots) -> [(&'static str, bool); 23] {
    [
        ("categories", !s.categories.is_empty()),
        ("tags", !s.tags.is_empty()),
        ("extensions", !s.extensions.is_empty()),
        ("glob", s.glob.is_some()),
        ("min_size", s.min_size.is_some()),
        ("max_size", s.max_size.is_some()),
        ("modified_after", s.modified_after.is_some()),
        ("modified_before", s.modified_before.is_some()),
        ("keep", s.keep.is_some()),
        ("exclude", !s.exclude.is_empty()),
        ("priority", !s.priority.is_empty()),
        ("format", s.format.is_some()),
        ("pattern", s.pattern.is_some()),
        ("case", s.case.is_some()),
        ("find", s.find.is_some()),
        ("empty", s.empty),
        ("limit", s.limit.is_some()),
        ("sentences", s.sentences.is_some()),
        ("content", s.content.is_some()),
        ("name", s.name.is_some()),
        ("max_bytes", s.max_bytes.is_some()),
        ("compression", s.compression.is_some() || s.level.is_some()),
        ("recursive", s.recursive.is_some()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(defaults: Value) -> ToolDefinition {
        ToolDefinition {
            name: "create".into(),
            description: String::new(),
            primitive: contracts::Primitive::Graph(contracts::GraphPrimitive {
                method: "create_archive".into(),
                mutates: true,
                scope_enforced: true,
                return_type: "Created".into(),
            }),
            signature: String::new(),
            required_params: vec!["source".into(), "target".into()],
            optional_params: vec!["format".into()],
            return_type: "Created".into(),
            planning: serde_json::from_value(json!({ "defaults": defaults })).unwrap(),
            described: None,
        }
    }

    #[test]
    fn a_default_template_is_filled_from_the_other_parameters() {
        let t = tool(json!({"target": "{source}.{format|zip}", "format": "zip"}));
        let params = |v: Value| v.as_object().unwrap().clone();
        let p = params(json!({"source": ["Documents/Taxes/"]}));
        assert_eq!(
            default_value(&t, "target", &p, None),
            Some(json!("Documents/Taxes.zip"))
        );
        let p = params(json!({"source": ["Taxes"], "format": "tar.gz"}));
        assert_eq!(
            default_value(&t, "target", &p, None),
            Some(json!("Taxes.tar.gz"))
        );
        // A reference or the whole root names nothing to call the archive.
        let p = params(json!({"source": "$step(1).nodes"}));
        assert_eq!(default_value(&t, "target", &p, None), None);
        let p = params(json!({"source": ["."]}));
        assert_eq!(default_value(&t, "target", &p, None), None);
        assert_eq!(
            default_value(&t, "target", &Map::new(), Some("Photos")),
            Some(json!("Photos.zip"))
        );
        assert_eq!(
            default_value(&t, "format", &Map::new(), None),
            Some(json!("zip"))
        );
    }
}

//! A workflow's pre- and postconditions judged on a scanned folder: `exists`, `no_duplicates`
//! (the duplicate finder with the params the condition carries), `no_loose_files` (only folders
//! at the top), `free_space` (of the disk holding the folder). Every condition gets an outcome;
//! a path outside the working folder does not hold.

use std::collections::BTreeMap;

use contracts::{Condition, ConditionCheck, ConditionOutcome};
use serde_json::Value;

use crate::graph::human_bytes;
use crate::node::NodeKind;
use crate::{Sandbox, parse_size};

impl Sandbox {
    /// Each condition with its `{slot}`s filled from `slots`, judged on this sandbox's graph.
    pub fn check_conditions(
        &mut self,
        conditions: &[Condition],
        slots: &BTreeMap<String, String>,
    ) -> Vec<ConditionOutcome> {
        conditions
            .iter()
            .map(|c| {
                let path = c.path_with(slots);
                let (holds, detail) = match self.resolve(&path) {
                    Err(e) => (false, e.to_string()),
                    Ok(id) => self.judge(c, &id, slots),
                };
                ConditionOutcome {
                    check: c.check,
                    path,
                    holds,
                    detail,
                    message: (!holds).then(|| c.message.clone()).flatten(),
                }
            })
            .collect()
    }

    fn judge(
        &mut self,
        c: &Condition,
        id: &str,
        slots: &BTreeMap<String, String>,
    ) -> (bool, String) {
        let Some(node) = self.graph.node(id) else {
            return (false, "not found".into());
        };
        let kind = node.kind;
        match c.check {
            ConditionCheck::Exists => (true, format!("{} exists", describe(kind))),
            ConditionCheck::NoLooseFiles => {
                // Of the given types only (`extension`: "pdf", "jpg,png" or a list), if any.
                let types: Vec<String> = match c.params.get("extension") {
                    Some(Value::String(s)) => s.split(',').map(str::to_owned).collect(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_owned))
                        .collect(),
                    _ => Vec::new(),
                };
                let types: Vec<String> = types
                    .iter()
                    .map(|t| t.trim().trim_start_matches('.').to_lowercase())
                    .filter(|t| !t.is_empty())
                    .collect();
                let of_type = |name: &str| {
                    types.is_empty()
                        || name
                            .rsplit_once('.')
                            .is_some_and(|(_, ext)| types.contains(&ext.to_lowercase()))
                };
                let loose = self
                    .graph
                    .children(id)
                    .iter()
                    .filter(|n| n.kind != NodeKind::Dir && of_type(&n.name))
                    .count();
                (loose == 0, format!("{loose} file(s) at its top level"))
            }
            ConditionCheck::NoDuplicates => {
                let mut params = serde_json::Map::new();
                for (k, v) in &c.params {
                    let v = match v {
                        Value::String(s) => Value::String(contracts::fill_slots(s, slots)),
                        other => other.clone(),
                    };
                    params.insert(k.clone(), v);
                }
                params.insert("path".into(), Value::String(id.to_owned()));
                match self.call("find_duplicates", &params) {
                    Ok(r) => {
                        let groups = r.data["group_count"].as_u64().unwrap_or(0);
                        let copies = r.data["duplicate_count"].as_u64().unwrap_or(0);
                        (
                            groups == 0,
                            if groups == 0 {
                                "no duplicates".to_owned()
                            } else {
                                format!("{groups} duplicate group(s), {copies} extra cop(ies)")
                            },
                        )
                    }
                    Err(e) => (false, format!("could not look: {e}")),
                }
            }
            ConditionCheck::FreeSpace => {
                let wanted = c.value.as_deref().map(|v| contracts::fill_slots(v, slots));
                let Some(bytes) = wanted.as_deref().and_then(parse_size) else {
                    return (
                        false,
                        format!("`{}` is not a size", wanted.unwrap_or_default()),
                    );
                };
                let folder = self.root().join(id);
                match free_space(&folder) {
                    Some(free) => (
                        free >= bytes,
                        format!("{} free, {} wanted", human_bytes(free), human_bytes(bytes)),
                    ),
                    None => (false, "the disk holding it is not known".into()),
                }
            }
        }
    }
}

fn describe(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Dir => "the folder",
        NodeKind::File => "the file",
        NodeKind::Symlink => "the link",
    }
}

/// Free bytes on the disk whose mount point holds `path` (the longest one that does).
fn free_space(path: &std::path::Path) -> Option<u64> {
    let path = std::fs::canonicalize(path).ok()?;
    let disks = sysinfo::Disks::new_with_refreshed_list();
    disks
        .list()
        .iter()
        .filter(|d| path.starts_with(d.mount_point()))
        .max_by_key(|d| d.mount_point().as_os_str().len())
        .map(sysinfo::Disk::available_space)
}

//! SkillIndex: every skill (description, tags, trigger phrases) and every tool (name, one-line
//! description) as documents of a HybridIndex; ranks (skill, tool) pairs for a request.

use std::collections::BTreeMap;

use contracts::{SkillDefinition, strip_placeholders, triggers_for_tool};
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::embed::Embedder;
use crate::index::{HybridIndex, Mix};

/// What a document of the SkillIndex stands for: a whole skill, or one of its tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillDoc {
    pub skill: String,
    pub tool: Option<String>,
}

/// How much the skill-level match counts against the tool-level match in a pair's score.
pub const SKILL_WEIGHT: f32 = 0.6;

/// One ranked (skill, tool) pair.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillHit {
    pub skill: String,
    pub tool: String,
    /// `SKILL_WEIGHT · skill + (1 − SKILL_WEIGHT) · tool`, each a hybrid score in [0, 1].
    pub score: f32,
    pub skill_score: f32,
    pub tool_score: f32,
    /// Cosine similarity of the skill document alone (for diagnostics).
    pub vector: f32,
    pub bm25: f32,
}

/// The answer to "which skill does this?": ranked pairs and whether the best is a clear winner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillRanking {
    pub query: String,
    pub hits: Vec<SkillHit>,
    /// Top score ≥ `threshold` and ≥ `gap` ahead of the best pair of another skill.
    pub confident: bool,
    pub threshold: f32,
    pub gap: f32,
    /// Skills without tools (plain Agent Skills files: instructions only), which have no pairs
    /// in `hits`, with their skill-level score, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<InstructionHit>,
}

/// An instruction-only skill and how well its description matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstructionHit {
    pub skill: String,
    pub score: f32,
}

impl SkillRanking {
    pub fn top(&self) -> Option<&SkillHit> {
        self.hits.first()
    }

    /// The best pair of every other skill, best first: what a near-miss picker offers.
    pub fn runner_ups(&self) -> Vec<&SkillHit> {
        let mut seen = vec![self.hits.first().map(|h| h.skill.as_str())];
        let mut out = Vec::new();
        for h in self.hits.iter().skip(1) {
            if !seen.contains(&Some(h.skill.as_str())) {
                seen.push(Some(&h.skill));
                out.push(h);
            }
        }
        out
    }

    /// Score distance from the top pair to the best pair of another skill (the top score itself
    /// when no other skill matched).
    pub fn margin(&self) -> f32 {
        match (self.top(), self.runner_ups().first()) {
            (Some(t), Some(r)) => t.score - r.score,
            (Some(t), None) => t.score,
            _ => 0.0,
        }
    }
}

/// `is_confident`: top score ≥ threshold AND gap to the runner-up ≥ confidence_gap.
pub fn is_confident(top: f32, runner_up: Option<f32>, threshold: f32, gap: f32) -> bool {
    top >= threshold && top - runner_up.unwrap_or(0.0) >= gap
}

/// Text of a skill's document: name words, description, tags and trigger phrases.
pub fn skill_text(s: &SkillDefinition) -> String {
    let triggers: Vec<String> = s
        .triggers
        .iter()
        .chain(s.tools.values().flat_map(|t| &t.planning.triggers))
        .map(|t| strip_placeholders(t))
        .collect();
    format!(
        "{}. {} {}. {}",
        s.name.replace(['-', '_'], " "),
        s.description.trim(),
        s.tags.join(", "),
        triggers.join(". ")
    )
}

/// Text of a tool's document: its name words, one-line description, the skill's trigger phrases
/// that fit it (see [`triggers_for_tool`]), its keywords and its description (summary and example
/// requests).
pub fn tool_text(s: &SkillDefinition, tool: &str) -> String {
    let t = s
        .tools
        .get(tool)
        .map(|t| t.description.as_str())
        .unwrap_or("");
    let triggers: Vec<String> = triggers_for_tool(s, tool)
        .iter()
        .map(|t| strip_placeholders(t))
        .collect();
    let mut text = format!("{}: {t}", tool.replace(['-', '_'], " "));
    if !triggers.is_empty() {
        text += &format!(". {}", triggers.join(". "));
    }
    // The words that point at this tool rather than its siblings ("bitrate", "exif") are what
    // a request about it says.
    if let Some(keywords) = s
        .tools
        .get(tool)
        .map(|t| &t.planning.keywords)
        .filter(|k| !k.is_empty())
    {
        text += &format!(". {}", keywords.join(", "));
    }
    if let Some(d) = s.tools.get(tool).and_then(|t| t.described.as_ref()) {
        text += &format!(". {}", d.text());
    }
    text
}

/// Every document (skill and tool) of one skill, with its text.
pub fn skill_docs(s: &SkillDefinition) -> Vec<(SkillDoc, String)> {
    let mut out = vec![(
        SkillDoc {
            skill: s.name.clone(),
            tool: None,
        },
        skill_text(s),
    )];
    for t in s.tools.keys() {
        out.push((
            SkillDoc {
                skill: s.name.clone(),
                tool: Some(t.clone()),
            },
            tool_text(s, t),
        ));
    }
    out
}

/// The skill catalogue as a hybrid index.
#[derive(Debug)]
pub struct SkillIndex {
    pub(crate) index: HybridIndex<SkillDoc>,
}

impl SkillIndex {
    pub fn new(index: HybridIndex<SkillDoc>) -> Self {
        SkillIndex { index }
    }

    pub fn inner(&self) -> &HybridIndex<SkillDoc> {
        &self.index
    }

    /// Embeds and adds every document of `skill` (replacing its previous ones); returns how many
    /// documents were embedded.
    pub fn upsert(&mut self, skill: &SkillDefinition, embedder: &dyn Embedder) -> Result<usize> {
        self.remove(&skill.name)?;
        let docs = skill_docs(skill);
        let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder.embed_documents(&texts)?;
        let n = texts.len();
        for ((meta, text), v) in docs.into_iter().zip(vectors) {
            self.index.insert(meta, text, &v)?;
        }
        Ok(n)
    }

    pub fn remove(&mut self, skill: &str) -> Result<usize> {
        self.index.remove_where(|d| d.skill == skill)
    }

    /// Names of the indexed skills.
    pub fn skills(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .index
            .docs()
            .filter(|(_, d)| d.meta.tool.is_none())
            .map(|(_, d)| d.meta.skill.clone())
            .collect();
        v.dedup();
        v
    }

    /// Ranks every (skill, tool) pair for `query` (already embedded as `vector`).
    pub fn rank(
        &self,
        query: &str,
        vector: &[f32],
        mix: Mix,
        threshold: f32,
        gap: f32,
    ) -> Result<SkillRanking> {
        let all = self.index.len();
        let skills = self
            .index
            .search(vector, query, all, mix, |d| d.tool.is_none())?;
        let tools = self
            .index
            .search(vector, query, all, mix, |d| d.tool.is_some())?;
        let mut skill_scores: BTreeMap<&str, (f32, f32, f32)> = BTreeMap::new();
        for s in &skills {
            let d = &self.index.doc(s.key).expect("ranked doc exists").meta;
            skill_scores.insert(&d.skill, (s.score, s.vector, s.bm25));
        }
        let mut hits: Vec<SkillHit> = tools
            .iter()
            .filter_map(|t| {
                let d = &self.index.doc(t.key)?.meta;
                let (s, vector, bm25) = skill_scores.get(d.skill.as_str()).copied()?;
                Some(SkillHit {
                    skill: d.skill.clone(),
                    tool: d.tool.clone()?,
                    score: SKILL_WEIGHT * s + (1.0 - SKILL_WEIGHT) * t.score,
                    skill_score: s,
                    tool_score: t.score,
                    vector,
                    bm25,
                })
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| (&a.skill, &a.tool).cmp(&(&b.skill, &b.tool)))
        });
        let with_tools: std::collections::BTreeSet<&str> =
            hits.iter().map(|h| h.skill.as_str()).collect();
        let instructions = skills
            .iter()
            .filter_map(|s| {
                let d = &self.index.doc(s.key)?.meta;
                (!with_tools.contains(d.skill.as_str())).then(|| InstructionHit {
                    skill: d.skill.clone(),
                    score: s.score,
                })
            })
            .collect();
        let mut ranking = SkillRanking {
            query: query.to_owned(),
            hits,
            confident: false,
            threshold,
            gap,
            instructions,
        };
        ranking.confident = ranking.top().is_some_and(|t| {
            is_confident(
                t.score,
                ranking.runner_ups().first().map(|r| r.score),
                threshold,
                gap,
            )
        });
        Ok(ranking)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_needs_both_height_and_gap() {
        assert!(is_confident(0.8, Some(0.7), 0.7, 0.05));
        assert!(!is_confident(0.8, Some(0.77), 0.7, 0.05));
        assert!(!is_confident(0.65, None, 0.7, 0.05));
        assert!(is_confident(0.7, None, 0.7, 0.05));
    }

    #[test]
    fn triggers_go_to_the_tools_whose_required_params_they_fill() {
        let skills = skills::SkillStore::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
            skills::engine_primitive_table(sandbox::graph_primitive_table()),
        )
        .unwrap();
        let s = &skills.get("search-files").unwrap().definition;
        let mut out = String::new();
        for t in s.tools.keys() {
            out += &format!("{t}: {:?}\n", triggers_for_tool(s, t));
        }
        expect_test::expect![[r#"
            find: ["find files in {path} older than {modified_before}", "find empty folders in {path}", "where is {name}"]
            find_empty: []
            find_large: ["find files larger than {min_size} in {path}"]
            find_recent: ["files changed in the last {modified_after}"]
            search: ["which file talks about {query}", "which files say something about {query}", "which documents in {path} are about {query}", "which of my notes mentions {query}", "which notes in {path} use {query}", "search for {query}", "find files about {query} in {path}", "which files mention {query}"]
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn placeholders_leave_the_trigger_words() {
        assert_eq!(
            strip_placeholders("sort {path} into {target} by type"),
            "sort into by type"
        );
    }
}

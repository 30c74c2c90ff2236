//! RetrievalPipeline: the one place that owns the shared embedder and both indexes, and answers
//! the orchestrator's questions — which skill fits this step, which files are about this — and
//! keeps the indexes current (build, hot reload, content sync after commit).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use config::PipelineConfig;
use contracts::PlanStep;
use sandbox::Sandbox;
use serde::Serialize;
use sha2::{Digest, Sha256};
use skills::{SkillStore, TEMPLATE_DIR};

use crate::chunk::ChunkSpec;
use crate::content_index::{ContentHit, ContentIndex, SyncReport, within};
use crate::embed::{Embedder, build_embedder};
use crate::index::{HybridIndex, Mix};
use crate::skill_index::{SkillIndex, SkillRanking, skill_docs};
use crate::{Result, RetrievalError};

const SKILL_INDEX: &str = "skills";

/// What `build_index` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BuildReport {
    /// Skills whose documents were (re-)embedded.
    pub embedded: Vec<String>,
    /// Skills whose persisted documents were still current.
    pub reused: usize,
    /// Skills dropped from the index (no longer loaded).
    pub removed: Vec<String>,
    /// Whether the persisted index was unusable (other embedder, dims, precision) and rebuilt.
    pub rebuilt: bool,
}

/// Files that matched a content query, and whether the index was current for them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentResults {
    pub query: String,
    pub scope: String,
    pub hits: Vec<ContentHit>,
    /// Files in the scope whose index entry is missing or out of date.
    pub stale: Vec<String>,
    /// The seed's warning when `stale` is not empty.
    pub warning: Option<String>,
}

/// The seed's stale-index warning.
pub fn stale_warning(stale: &[String]) -> Option<String> {
    if stale.is_empty() {
        return None;
    }
    let sample: Vec<&str> = stale.iter().take(3).map(String::as_str).collect();
    let more = if stale.len() > 3 { ", …" } else { "" };
    Some(format!(
        "Content index out of date for {} nodes ({}{more}); results for them may be stale until \
         the changes are committed and re-indexed.",
        stale.len(),
        sample.join(", ")
    ))
}

/// The shared embedder, the SkillIndex and (once a sandbox is open) its ContentIndex.
#[derive(Debug)]
pub struct RetrievalPipeline {
    embedder: Arc<dyn Embedder>,
    config: PipelineConfig,
    index_dir: PathBuf,
    skills: SkillIndex,
    skills_rebuilt: bool,
    /// Each indexed tool's description, for the answers of `skill_match`.
    described: BTreeMap<(String, String), contracts::ToolDescription>,
    content: Option<(PathBuf, ContentIndex)>,
}

/// Bumped when `sandbox::parse` starts reading more from files (v2: PDF, office documents,
/// EXIF, audio tags).
const CONTENT_EXTRACTION: &str = "x2";

impl RetrievalPipeline {
    /// Builds the configured embedder and opens the persisted indexes.
    pub fn open(config: &PipelineConfig) -> Result<Self> {
        Self::with_embedder(config, build_embedder(config)?)
    }

    /// Uses `embedder` (shared with anything else that needs vectors).
    pub fn with_embedder(config: &PipelineConfig, embedder: Arc<dyn Embedder>) -> Result<Self> {
        let index_dir = config.state_dir().join("index");
        let (skills, rebuilt) = Self::load_or_new(&index_dir, SKILL_INDEX, &*embedder, config)?;
        Ok(RetrievalPipeline {
            embedder,
            config: config.clone(),
            index_dir,
            skills: SkillIndex::new(skills),
            skills_rebuilt: rebuilt,
            described: BTreeMap::new(),
            content: None,
        })
    }

    fn load_or_new<M: Clone + Serialize + serde::de::DeserializeOwned>(
        dir: &Path,
        name: &str,
        embedder: &dyn Embedder,
        config: &PipelineConfig,
    ) -> Result<(HybridIndex<M>, bool)> {
        let (fp, dims, q) = (
            embedder.fingerprint(),
            embedder.dims(),
            config.vector_quantization,
        );
        match HybridIndex::load(dir, name, fp, dims, q)? {
            Some(ix) => Ok((ix, false)),
            None => Ok((
                HybridIndex::new(fp, dims, q)?,
                dir.join(format!("{name}.json")).exists(),
            )),
        }
    }

    pub fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }

    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    pub fn skill_index(&self) -> &SkillIndex {
        &self.skills
    }

    pub fn content_index(&self) -> Option<&ContentIndex> {
        self.content.as_ref().map(|(_, c)| c)
    }

    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    fn mix(&self) -> Mix {
        Mix {
            method: self.config.combine_method,
            alpha: self.config.hybrid_alpha,
        }
    }

    /// Embeds every loaded skill whose documents changed (all of them the first time), drops
    /// skills that are gone, and saves the index. The template skill is not a capability.
    pub fn build_index(&mut self, store: &SkillStore) -> Result<BuildReport> {
        let mut report = BuildReport {
            rebuilt: std::mem::take(&mut self.skills_rebuilt),
            ..Default::default()
        };
        let loaded: Vec<&skills::LoadedSkill> =
            store.skills().filter(|s| !is_template(s, store)).collect();
        for s in &loaded {
            if self.skill_is_current(&s.definition) {
                report.reused += 1;
            } else {
                self.skills
                    .upsert(&self.indexed(&s.definition), &*self.embedder)?;
                report.embedded.push(s.definition.name.clone());
            }
        }
        for name in self.skills.skills() {
            if !loaded.iter().any(|s| s.definition.name == name) {
                self.skills.remove(&name)?;
                report.removed.push(name);
            }
        }
        self.described = loaded
            .iter()
            .flat_map(|s| tool_descriptions(&s.definition))
            .collect();
        self.skills.index.save(&self.index_dir, SKILL_INDEX)?;
        Ok(report)
    }

    /// After an edit: re-embeds only `skill`, and only if its documents changed (drops it if it
    /// is no longer loaded, and drops skills the store no longer has, e.g. after a rename).
    /// Returns how many documents were embedded. Saves the index.
    pub fn hot_reload(&mut self, store: &SkillStore, skill: &str) -> Result<usize> {
        let n = match store.get(skill) {
            Some(s) if !is_template(s, store) => {
                self.described.retain(|(k, _), _| *k != skill);
                self.described.extend(tool_descriptions(&s.definition));
                if self.skill_is_current(&s.definition) {
                    0
                } else {
                    self.skills
                        .upsert(&self.indexed(&s.definition), &*self.embedder)?
                }
            }
            _ => {
                self.described.retain(|(k, _), _| *k != skill);
                self.skills.remove(skill)?;
                0
            }
        };
        for name in self.skills.skills() {
            if store.get(&name).is_none() {
                self.skills.remove(&name)?;
            }
        }
        self.skills.index.save(&self.index_dir, SKILL_INDEX)?;
        Ok(n)
    }

    /// The description of an indexed tool (summary, example requests, tags).
    pub fn tool_description(&self, skill: &str, tool: &str) -> Option<&contracts::ToolDescription> {
        self.described.get(&(skill.to_owned(), tool.to_owned()))
    }

    /// `skill` as the index holds it: without its tools' descriptions when
    /// `skill_index_descriptions` is off.
    fn indexed<'a>(
        &self,
        skill: &'a contracts::SkillDefinition,
    ) -> std::borrow::Cow<'a, contracts::SkillDefinition> {
        if self.config.skill_index_descriptions {
            return std::borrow::Cow::Borrowed(skill);
        }
        let mut bare = skill.clone();
        for t in bare.tools.values_mut() {
            t.described = None;
        }
        std::borrow::Cow::Owned(bare)
    }

    /// Whether the index holds exactly the documents `skill` has now.
    fn skill_is_current(&self, skill: &contracts::SkillDefinition) -> bool {
        let mut want: Vec<String> = skill_docs(&self.indexed(skill))
            .into_iter()
            .map(|d| d.1)
            .collect();
        let mut have: Vec<String> = self
            .skills
            .index
            .docs()
            .filter(|(_, d)| d.meta.skill == skill.name)
            .map(|(_, d)| d.text.clone())
            .collect();
        want.sort();
        have.sort();
        want == have
    }

    /// Drops both indexes and re-embeds everything (after the embedding model changed).
    pub fn rebuild_all_indexes(
        &mut self,
        store: &SkillStore,
        sandbox: Option<&mut Sandbox>,
    ) -> Result<BuildReport> {
        let (fp, dims, q) = (
            self.embedder.fingerprint().to_owned(),
            self.embedder.dims(),
            self.config.vector_quantization,
        );
        self.skills = SkillIndex::new(HybridIndex::new(&fp, dims, q)?);
        let mut report = self.build_index(store)?;
        report.rebuilt = true;
        if let Some(sb) = sandbox {
            self.content = Some((
                sb.root().to_owned(),
                ContentIndex::new(HybridIndex::new(&fp, dims, q)?),
            ));
            self.update_content(sb)?;
        }
        Ok(report)
    }

    /// Ranks skills and tools for one plan step: its description, or its skill and tool names.
    pub fn query_skill(&self, step: &PlanStep) -> Result<SkillRanking> {
        let text = if step.description.trim().is_empty() {
            format!("{} {}", step.skill, step.tool)
        } else {
            step.description.clone()
        };
        self.match_skill(&text)
    }

    /// Ranks skills and tools for a request in plain words.
    pub fn match_skill(&self, query: &str) -> Result<SkillRanking> {
        let v = self.embedder.embed_query(query)?;
        self.skills.rank(
            query,
            &v,
            self.mix(),
            self.config.skill_match_threshold,
            self.config.confidence_gap,
        )
    }

    /// The saved ContentIndex of a folder (named after what extraction reads, so a saved index
    /// from before a change to `sandbox::parse` is rebuilt rather than trusted).
    fn content_name(root: &Path) -> String {
        let h: String = Sha256::digest(root.as_os_str().as_encoded_bytes())
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("content-{CONTENT_EXTRACTION}-{h}")
    }

    /// Opens the ContentIndex of `sandbox`'s root (persisted one if current) and syncs it.
    pub fn index_sandbox(&mut self, sandbox: &mut Sandbox) -> Result<SyncReport> {
        self.index_sandbox_until(sandbox, &|| false)
    }

    /// [`Self::index_sandbox`] that stops between files when `stop` says so; the files done
    /// so far are saved, so the next sync of this folder goes on from there.
    pub fn index_sandbox_until(
        &mut self,
        sandbox: &mut Sandbox,
        stop: &dyn Fn() -> bool,
    ) -> Result<SyncReport> {
        let root = sandbox.root().to_owned();
        if self.content.as_ref().is_none_or(|(r, _)| *r != root) {
            let (ix, _) = Self::load_or_new(
                &self.index_dir,
                &Self::content_name(&root),
                &*self.embedder,
                &self.config,
            )?;
            self.content = Some((root, ContentIndex::new(ix)));
        }
        self.sync_content(sandbox, stop)
    }

    /// Re-indexes the sandbox's stale nodes (after a commit) and saves the ContentIndex, when
    /// this folder's index is open. One never opened here is left as it is: its next sync (the
    /// next search by content) compares each file's size and mtime and re-reads what changed.
    pub fn update_content(&mut self, sandbox: &mut Sandbox) -> Result<SyncReport> {
        if self
            .content
            .as_ref()
            .is_none_or(|(r, _)| r != sandbox.root())
        {
            return Ok(SyncReport::default());
        }
        self.sync_content(sandbox, &|| false)
    }

    fn sync_content(
        &mut self,
        sandbox: &mut Sandbox,
        stop: &dyn Fn() -> bool,
    ) -> Result<SyncReport> {
        let spec = ChunkSpec::from_config(&self.config);
        let Some((root, content)) = self.content.as_mut() else {
            return self.index_sandbox_until(sandbox, stop);
        };
        let started = std::time::Instant::now();
        let report = content.sync(sandbox, &*self.embedder, &spec, stop)?;
        tracing::info!(
            embedded = report.embedded_files,
            kept = report.kept_files,
            removed = report.removed_files,
            pending = report.pending_files,
            stopped = report.stopped_files,
            unreadable = report.unreadable.len(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "content index synced"
        );
        content
            .index
            .save(&self.index_dir, &Self::content_name(root))?;
        Ok(report)
    }

    /// Files below `scope` (a root-relative folder, "." for all) about `query`, best first.
    /// Stale nodes in the scope give the seed's warning, or an error when `block_on_stale`.
    pub fn query_content(
        &self,
        sandbox: &Sandbox,
        query: &str,
        scope: &str,
        top_k: usize,
    ) -> Result<ContentResults> {
        let content = self
            .content
            .as_ref()
            .filter(|(r, _)| r == sandbox.root())
            .map(|(_, c)| c)
            .ok_or_else(|| {
                RetrievalError::Params(
                    "the content index of this folder is not open (index_sandbox first)".into(),
                )
            })?;
        let stale: Vec<String> = sandbox
            .stale_nodes()
            .into_iter()
            .filter(|n| within(&n.id, scope))
            .map(|n| n.id.clone())
            .collect();
        if !stale.is_empty() && self.config.block_on_stale {
            return Err(RetrievalError::Stale {
                count: stale.len(),
                sample: stale.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
            });
        }
        let v = self.embedder.embed_query(query)?;
        let hits = content.search(
            query,
            &v,
            scope,
            top_k.max(1),
            self.mix(),
            self.config.content_min_similarity,
        )?;
        Ok(ContentResults {
            query: query.to_owned(),
            scope: scope.to_owned(),
            hits,
            warning: stale_warning(&stale),
            stale,
        })
    }
}

fn is_template(s: &skills::LoadedSkill, store: &SkillStore) -> bool {
    s.dir == store.dir().join(TEMPLATE_DIR)
}

/// Each tool of `skill` that has a description, keyed by (skill, tool).
fn tool_descriptions(
    skill: &contracts::SkillDefinition,
) -> impl Iterator<Item = ((String, String), contracts::ToolDescription)> + '_ {
    skill
        .tools
        .iter()
        .filter_map(|(name, t)| Some(((skill.name.clone(), name.clone()), t.described.clone()?)))
}

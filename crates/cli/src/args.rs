//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "scope-weaver",
    version,
    about = "On-device file agent: plan, simulate, approve, commit."
)]
pub struct Cli {
    /// YAML config file (overrides config/default.yaml; SCOPE_WEAVER_* variables override it).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Skills directory (overrides `skills_dir`).
    #[arg(long, global = true, value_name = "DIR")]
    pub skills: Option<PathBuf>,
    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    pub json: bool,
    /// Also write the log (log_level, log_format) to stderr; it always goes to
    /// <state_dir>/logs. SCOPE_WEAVER_LOG=<filter> sets levels per module.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scan a folder into the sandbox graph and summarise it.
    Scan {
        root: PathBuf,
        /// Also print the tree (to this depth).
        #[arg(long, value_name = "DEPTH", num_args = 0..=1, default_missing_value = "2")]
        tree: Option<usize>,
    },
    /// List, show and validate skills.
    Skills {
        #[command(subcommand)]
        command: SkillsCommand,
    },
    /// Run one tool on a sandbox of ROOT: prints the result and the diff; writes only with --commit.
    Tool {
        skill: String,
        tool: String,
        #[arg(long)]
        root: PathBuf,
        /// Parameters as key=value (values may be JSON: n=3, names='["a","b"]'; repeat a key for a list).
        params: Vec<String>,
        /// Apply the change to disk (deletes go to the trash unless delete_mode is permanent).
        #[arg(long)]
        commit: bool,
    },
    /// Search the files of ROOT by what they say (content index: embeddings + BM25).
    Search {
        root: PathBuf,
        query: String,
        /// Only below this folder of ROOT.
        #[arg(long, value_name = "SUBFOLDER")]
        path: Option<String>,
        /// How many files (default: config top_k).
        #[arg(long, value_name = "N")]
        top: Option<usize>,
    },
    /// Do what REQUEST says in ROOT: plan, simulate each step, ask for approval, then commit.
    /// Without REQUEST: one request per line from stdin, the planner's model loaded once.
    Run {
        #[arg(long)]
        root: PathBuf,
        request: Option<String>,
        /// When to ask: all (every step), key (steps that change files), bypass (only the final diff).
        #[arg(long, value_name = "MODE")]
        hitl: Option<String>,
        /// Answer every question with the planner's choice and approve everything.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Plan and simulate, show the diff, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Show the plan the planner makes for a request (nothing is simulated or changed).
    Plan {
        request: Option<String>,
        /// The folder the request is about (its name and sub-folders help read the request).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Score the planner on a labelled JSONL file (eval/plans.jsonl) instead.
        #[arg(long, value_name = "FILE", conflicts_with = "request")]
        file: Option<PathBuf>,
        /// With --file: print every request the planner got wrong.
        #[arg(long)]
        failures: bool,
    },
    /// Score sorting by meaning (organize-by-content) on a labelled JSONL file
    /// (eval/content.jsonl): writes its documents as real files (PDF, DOCX, Markdown, text) into a
    /// temporary folder and classifies them into the file's categories with the configured embedder.
    EvalSort {
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
        /// Also score content search on these labelled queries (eval/content_queries.jsonl).
        #[arg(long, value_name = "FILE")]
        queries: Option<PathBuf>,
        /// With --file: print every file sorted into the wrong category.
        #[arg(long)]
        failures: bool,
        /// Score every Nth document only (a model reads each file: a sample is quicker).
        #[arg(long, value_name = "N", default_value_t = 1)]
        every: usize,
    },
    /// How well similar photos are found: each photo of DIR with seven altered copies (resized,
    /// recompressed, brightened, more contrast, cropped, blurred), precision and recall of the
    /// groups per threshold.
    EvalSimilar {
        /// A folder of real photos (.jpg, .png): `scripts/fetch-photos.sh` fetches some.
        #[arg(long, value_name = "DIR")]
        photos: PathBuf,
        /// Only this threshold (differing bits of 256) instead of the whole table.
        #[arg(long, value_name = "BITS")]
        threshold: Option<u32>,
        /// Print the groups that mix two photos.
        #[arg(long)]
        failures: bool,
    },
    /// The audit log: every request, step, primitive call and decision, hash-chained.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Export the sandbox graph.
    Graph {
        #[command(subcommand)]
        command: GraphCommand,
    },
    /// Undo a committed run: its changes turned back (moves moved back, what it made to the
    /// trash, trashed files restored), shown as a diff and committed when approved. Files changed
    /// since the run are named and left alone. Without RUN_ID, the newest run still in effect.
    Undo {
        /// A run id from `scope-weaver history` (or a unique prefix of one).
        run_id: Option<String>,
        /// Approve the undo without asking.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Show what the undo would do, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// The committed runs, newest first, and which were undone.
    History {
        /// Only the runs that changed this folder.
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// The choices you made in the near-miss picker that planning learns from (newest last);
    /// `--forget ID` makes it forget one.
    Learned {
        #[arg(long, value_name = "ID")]
        forget: Option<String>,
    },
    /// Saved workflows: save a committed run as one, the repeated runs worth saving, and which
    /// workflows and skills fit a request.
    Workflows {
        #[command(subcommand)]
        command: WorkflowsCommand,
    },
    /// Watch folders: with ROOT, attach REQUEST to FOLDER of ROOT (saved; replaces that folder's
    /// watch) and watch it; without, watch every saved folder. Folders that changed while nothing
    /// watched are handled first. When files arrive and the folder is quiet for the settle time,
    /// the request is simulated: the changes wait in the inbox (`scope-weaver inbox`), or with
    /// --trusted are committed when nothing in them deletes.
    Watch {
        root: Option<PathBuf>,
        /// The folder of ROOT to watch (default: ROOT itself).
        #[arg(long, requires = "root")]
        folder: Option<String>,
        /// What to do with it: a saved workflow's trigger ("tidy Downloads") or any request.
        #[arg(long, requires = "root")]
        request: Option<String>,
        /// Seconds without changes before the folder is touched.
        #[arg(long, value_name = "SECS", default_value_t = 5)]
        settle: u64,
        /// Commit changes that delete nothing without asking.
        #[arg(long)]
        trusted: bool,
        /// Handle what changed while nothing watched, then stop.
        #[arg(long)]
        once: bool,
        /// List the saved watches.
        #[arg(long, conflicts_with_all = ["root", "once"])]
        list: bool,
        /// Forget a saved watch.
        #[arg(long, value_name = "ID", conflicts_with_all = ["root", "once", "list"])]
        remove: Option<String>,
    },
    /// The drop folder: take the task files in DIR (`{"request": "...", "root": "/abs/folder"}`,
    /// optionally `"trusted": true`) oldest first; each is simulated, its changes parked in the
    /// inbox (or committed when trusted and nothing deletes), answered with NAME.answer.json and
    /// moved to DIR/done/. A bad file gets NAME.error.json beside it and stays. Looks again every
    /// second until interrupted, or once with --once.
    Tasks {
        dir: PathBuf,
        #[arg(long)]
        once: bool,
    },
    /// Changes watched folders would make, waiting for approval: list them, `approve ID` (runs
    /// the request on the folder as it is now, asking as a run does; --yes approves) or
    /// `discard ID`.
    Inbox {
        #[command(subcommand)]
        command: Option<InboxCommand>,
    },
    /// Inspect (or with --complete, finish) a commit that was interrupted.
    Recover {
        root: PathBuf,
        #[arg(long)]
        complete: bool,
    },
    /// Write a demo folder (a "home" whose Downloads holds duplicates and real PDFs, photos with
    /// EXIF, a song with tags, a Word document) into DIR, which must be new or empty.
    Demo { dir: PathBuf },
    /// Show the effective configuration.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Every loaded skill with its tools.
    List,
    /// One skill: description, triggers, tools with signatures.
    Show { name: String },
    /// Check every SKILL.md; exits non-zero on errors.
    Validate,
    /// The primitive table skills are checked against.
    Primitives,
    /// Rank skills and tools for a request: scores, runner-ups, confident or near-miss.
    Search {
        query: Option<String>,
        /// Rank every line of this file instead (text, or JSON with a `request` field; `-` for
        /// stdin); prints one JSON ranking per line.
        #[arg(long, value_name = "FILE", conflicts_with = "query")]
        file: Option<PathBuf>,
        /// How many (skill, tool) pairs to show.
        #[arg(long, value_name = "N", default_value_t = 5)]
        top: usize,
    },
    /// Write each skill's descriptions.json (every tool's summary, example requests and tags):
    /// by the configured planner model, else derived from the SKILL.md; the skill is then
    /// embedded again. Skills already described for their present SKILL.md are left alone.
    Describe {
        /// Skills to describe (default: every skill).
        names: Vec<String>,
        /// Describe them again even when their descriptions are current.
        #[arg(long)]
        force: bool,
    },
    /// Watch the skills folder: reload and re-embed a skill whenever its files change.
    Watch {
        /// Stop after this many reloads (default: run until interrupted).
        #[arg(long, value_name = "N")]
        count: Option<usize>,
    },
}

#[derive(Debug, Subcommand)]
pub enum InboxCommand {
    /// Run the item's request now (on the folder as it is), then remove it from the inbox.
    Approve {
        id: String,
        /// Approve the run's steps and diff without asking.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Remove the item; nothing is written.
    Discard { id: String },
}

#[derive(Debug, Subcommand)]
pub enum WorkflowsCommand {
    /// Save committed run RUN_ID (from `scope-weaver history`) as the workflow skill NAME: its
    /// steps as committed, the folder it acted on as the `{path}` parameter, triggers such as
    /// "NAME {path}"; then "NAME Desktop" runs it on Desktop.
    Save { run_id: String, name: String },
    /// Tool sequences you committed three times or more that no workflow covers yet.
    Suggest,
    /// The saved workflows with their triggers and steps.
    List,
    /// The five workflows and skills that fit REQUEST best, with scores (and whether the
    /// request would run a workflow).
    Match {
        request: String,
        /// The folder the request is about (a `{path}` must name one of its folders).
        #[arg(long)]
        root: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Recent requests: id, time, status, steps.
    List {
        #[arg(long, value_name = "N", default_value_t = 20)]
        limit: usize,
    },
    /// One request: its records in order, readable (with --json: the Task tree and entries).
    Show { id: String },
    /// Every entry, as json, yaml or csv.
    Export {
        #[arg(long, value_name = "FORMAT", default_value = "json")]
        format: String,
    },
    /// Check the hash chain; names the first broken link and exits non-zero if there is one.
    Verify,
    /// Near-miss, override and rollback rates, mean latency per stage, tokens per request.
    Stats,
}

#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// networkx-style node-link JSON of ROOT.
    Export {
        root: PathBuf,
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// The merged configuration as YAML.
    Show,
}

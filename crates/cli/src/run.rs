//! `scope-weaver run`: one request through the whole pipeline, with the person answering in the
//! terminal (or `--yes` answering everything with the planner's choices, `--json` for one event
//! per line).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use config::HitlMode;
use contracts::PlanStep;
use engine::{Engine, RunSettings};
use pipeline::{
    Decision, DiffDecision, DiffReview, Event, Interaction, ParamQuestion, SkillCandidate, Stage,
    StepReview,
};
use serde_json::{Value, json};

use crate::commands::{Env, open_engine, open_sandbox, parse_params};
use crate::output::print_json_line;

/// The terminal side of the pipeline's questions.
pub struct TerminalInteraction {
    yes: bool,
    json: bool,
    spinner: Option<indicatif::ProgressBar>,
}

impl TerminalInteraction {
    /// Questions on stderr, answers from stdin; `yes` approves everything, `json` prints events.
    pub fn new(yes: bool, json: bool) -> Self {
        TerminalInteraction {
            yes,
            json,
            spinner: None,
        }
    }

    fn ask(&mut self, prompt: &str) -> Option<String> {
        if let Some(s) = &self.spinner {
            s.finish_and_clear();
        }
        self.spinner = None;
        eprint!("{prompt} ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    }

    fn say(&mut self, text: &str) {
        if self.json {
            return;
        }
        match &self.spinner {
            Some(s) => s.suspend(|| eprintln!("{text}")),
            None => eprintln!("{text}"),
        }
    }
}

fn show_lines(lines: &[String], limit: usize) -> String {
    let mut out: Vec<String> = lines
        .iter()
        .take(limit)
        .map(|l| format!("    {l}"))
        .collect();
    if lines.len() > limit {
        out.push(format!("    … and {} more", lines.len() - limit));
    }
    out.join("\n")
}

impl Interaction for TerminalInteraction {
    fn event(&mut self, event: &Event) {
        if self.json {
            print_json_line(&serde_json::to_value(event).unwrap_or(Value::Null));
            return;
        }
        match event {
            Event::StageStarted { stage, step } => {
                let bar = self.spinner.get_or_insert_with(|| {
                    let b = indicatif::ProgressBar::with_draw_target(
                        None,
                        indicatif::ProgressDrawTarget::stderr(),
                    );
                    b.set_style(
                        indicatif::ProgressStyle::with_template("{spinner} {msg}")
                            .expect("valid template"),
                    );
                    b
                });
                bar.set_message(match step {
                    Some(n) => format!("step {n}: {} ({}/13)", stage.label(), stage.number()),
                    None => format!("{} ({}/13)", stage.label(), stage.number()),
                });
                bar.tick();
            }
            Event::Planned {
                plan,
                planner,
                notes,
                ..
            } => {
                let mut text = format!("Plan ({planner}):");
                for s in &plan.steps {
                    text.push_str(&format!(
                        "\n  {}. {}/{} {}",
                        s.step,
                        s.skill,
                        s.tool,
                        Value::Object(s.params.clone())
                    ));
                }
                for n in notes {
                    text.push_str(&format!("\n  note: {n}"));
                }
                self.say(&text);
            }
            Event::Dispatched {
                step,
                skill,
                tool,
                ok,
                summary,
                ..
            } => {
                let mark = if *ok { "✓" } else { "✗" };
                self.say(&format!("{mark} step {step} {skill}/{tool}: {summary}"));
            }
            Event::Skipped { step, code, reason } => {
                self.say(&format!("↷ step {step} skipped [{code}]: {reason}"));
            }
            Event::RolledBack { step, undone, .. } => {
                self.say(&format!(
                    "↶ step {step} rolled back ({undone} change(s) undone)"
                ));
            }
            Event::Warning { message, .. } => self.say(&format!("warning: {message}")),
            Event::ExtraParams { step, params } => self.say(&format!(
                "note: step {step} ignores parameters it does not take: {}",
                params.join(", ")
            )),
            Event::NearMiss {
                step,
                chosen: Some(c),
                ..
            } if self.yes => self.say(&format!(
                "step {step}: unsure between skills; kept {}/{} (--yes)",
                c.skill, c.tool
            )),
            Event::CommitProgress { done, total } => {
                if let Some(s) = &self.spinner {
                    s.set_message(format!("committing {done}/{total}"));
                    s.tick();
                }
            }
            Event::Report { .. } => {
                if let Some(s) = self.spinner.take() {
                    s.finish_and_clear();
                }
            }
            _ => {}
        }
    }

    fn clarify_request(&mut self, question: &str) -> Option<String> {
        if self.yes {
            self.say(&format!(
                "question: {question} (--yes: going on without an answer)"
            ));
            return None;
        }
        self.ask(&format!("{question}\n>"))
    }

    fn choose_skill(&mut self, step: &PlanStep, candidates: &[SkillCandidate]) -> Option<usize> {
        let planned = candidates.iter().position(|c| c.planned);
        if self.yes {
            return planned;
        }
        let mut text = format!(
            "I'm not certain which skill to use for step {} (\"{}\"). Please confirm:",
            step.step, step.description
        );
        for (i, c) in candidates.iter().enumerate() {
            text.push_str(&format!(
                "\n  {}. {}/{} (score {:.2}){}",
                i + 1,
                c.skill,
                c.tool,
                c.score,
                if c.planned { "  ← planned" } else { "" }
            ));
        }
        self.say(&text);
        let answer = self.ask("Number [1], or s to skip:")?;
        if answer.eq_ignore_ascii_case("s") {
            return None;
        }
        if answer.is_empty() {
            return planned.or(Some(0));
        }
        answer
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=candidates.len()).contains(n))
            .map(|n| n - 1)
    }

    fn clarify_param(&mut self, q: &ParamQuestion) -> Option<Value> {
        if self.yes {
            return q.suggestion.clone();
        }
        let hint = q
            .suggestion
            .as_ref()
            .map(|s| format!(" [{}]", s.as_str().map_or(s.to_string(), str::to_owned)))
            .unwrap_or_default();
        let offered = if q.choices.is_empty() {
            String::new()
        } else {
            let numbered: Vec<String> = q
                .choices
                .iter()
                .zip(1..)
                .map(|(c, n)| format!("{n}. {c}"))
                .collect();
            format!(
                "\n  {}  (a number, or your own answer)",
                numbered.join("   ")
            )
        };
        let answer = self.ask(&format!("{}{offered}{hint}\n>", q.question))?;
        if answer.is_empty() {
            return q.suggestion.clone();
        }
        // A number picks one of the offered answers.
        if let Some(choice) = answer
            .parse::<usize>()
            .ok()
            .and_then(|n| q.choices.get(n.checked_sub(1)?))
        {
            return Some(Value::String(choice.clone()));
        }
        let parsed = parse_params(&[format!("{}={answer}", q.param)]).ok()?;
        parsed.get(&q.param).cloned()
    }

    fn review_step(&mut self, r: &StepReview) -> Decision {
        if self.yes {
            return Decision::Approve;
        }
        self.say(&format!(
            "Step {} {}/{} {}\n  {}\n{}",
            r.step,
            r.skill,
            r.tool,
            Value::Object(r.params.clone()),
            r.summary,
            show_lines(&r.changes, 20)
        ));
        loop {
            let Some(a) = self.ask("[a]pprove, [r]oll back, or key=value … to change parameters:")
            else {
                return Decision::RollBack;
            };
            match a.as_str() {
                "" | "a" | "y" | "yes" => return Decision::Approve,
                "r" | "n" | "no" => return Decision::RollBack,
                _ => {
                    let pairs: Vec<String> = a.split_whitespace().map(str::to_owned).collect();
                    match parse_params(&pairs) {
                        Ok(overrides) => {
                            let mut params = r.params.clone();
                            params.extend(overrides);
                            return Decision::Override(params);
                        }
                        Err(e) => self.say(&format!("{e}")),
                    }
                }
            }
        }
    }

    fn review_diff(&mut self, d: &DiffReview) -> DiffDecision {
        if !self.json {
            // The summary is the final report's text: shown here only when the person decides.
            let asking = !d.dry_run && !self.yes;
            self.say(&format!(
                "Pending change ({} operation(s)):\n{}{}",
                d.changes.len(),
                show_lines(&d.changes, 40),
                if asking {
                    format!("\n{}", d.summary)
                } else {
                    String::new()
                }
            ));
        }
        if d.dry_run {
            return DiffDecision::Discard;
        }
        if self.yes {
            return DiffDecision::Commit;
        }
        let undo = if d.rollback_points.len() > 1 {
            format!(
                ", or u<step> to undo from a step on ({})",
                d.rollback_points
                    .iter()
                    .map(|p| format!("u{}", p.step))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        } else {
            String::new()
        };
        loop {
            let answer = self.ask(&format!("Commit to disk? [y/N{undo}]"));
            match answer.as_deref() {
                Some("y" | "Y" | "yes") => return DiffDecision::Commit,
                Some(a) if a.starts_with('u') => {
                    let point = a[1..]
                        .trim()
                        .parse::<u32>()
                        .ok()
                        .and_then(|n| d.rollback_points.iter().find(|p| p.step == n));
                    match point {
                        Some(p) => return DiffDecision::RollBackTo(p.snapshot.clone()),
                        None => self.say("no such step among the rollback points"),
                    }
                }
                _ => return DiffDecision::Discard,
            }
        }
    }
}

/// `scope-weaver run`: `request` through the pipeline, or, without one, every line of stdin in
/// turn with the skills, the index, the planner's model and the audit log loaded once (one
/// engine, as the app holds).
pub fn run_cmd(
    env: &Env,
    root: &Path,
    request: Option<&str>,
    hitl: Option<&str>,
    yes: bool,
    dry_run: bool,
) -> Result<ExitCode> {
    let hitl = match hitl {
        Some(h) => Some(HitlMode::parse(h).ok_or_else(|| {
            crate::output::usage(
                "INVALID_ARGUMENT",
                format!("--hitl must be one of {}", HitlMode::allowed()),
            )
        })?),
        None => None,
    };
    let interactive = std::io::stdin().is_terminal();
    let engine = open_engine(env)?;
    let mut ui = TerminalInteraction::new(yes || (!interactive && dry_run), env.json);
    let settings = RunSettings {
        hitl,
        dry_run,
        ..RunSettings::default()
    };
    if let Some(request) = request {
        run_one(env, &engine, root, request, &settings, &mut ui)?;
        return Ok(ExitCode::SUCCESS);
    }
    // One request per line; each starts from the folder as it is on disk now.
    let mut failed = false;
    loop {
        if interactive && !env.json {
            eprint!("request> ");
            let _ = std::io::stderr().flush();
        }
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let request = line.trim();
        if request.is_empty() {
            continue;
        }
        if let Err(err) = run_one(env, &engine, root, request, &settings, &mut ui) {
            // A failed request is reported; the next one still runs.
            crate::output::print_error(&err, env.json);
            failed = true;
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub(crate) fn run_one(
    env: &Env,
    engine: &Engine,
    root: &Path,
    request: &str,
    settings: &RunSettings,
    ui: &mut TerminalInteraction,
) -> Result<pipeline::RunReport> {
    let mut sandbox = open_sandbox(env, root)?;
    let report = engine.run_in(&mut sandbox, request, settings, ui)?;
    if !env.json {
        let id = &report.id;
        eprintln!("audit: request {id} recorded (scope-weaver audit show {id})");
        if report.committed {
            eprintln!("undo: scope-weaver undo {id}");
        }
    }
    if env.json {
        print_json_line(&json!({"event": "done", "report": report}));
    } else {
        println!("{}", report.text);
        let slow: Vec<String> = report
            .stage_ms
            .iter()
            .filter(|(s, _)| **s != Stage::Commit || report.committed)
            .map(|(s, ms)| format!("{} {:.0} ms", s.label(), ms))
            .collect();
        eprintln!("time per stage: {}", slow.join(" · "));
    }
    Ok(report)
}

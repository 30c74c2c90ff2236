//! The readings of a clause (the (skill, tool) pairs it is scored against), and a judge's choice
//! between the readings the rules are unsure of.

use super::{CANDIDATES, Candidate, PlanBuilder, Slots, UNDERSTOOD_FLOOR, looks_like_file, score};
use crate::{Judgement, Reading, ReadingQuestion, Result, ThinkerError};

impl PlanBuilder<'_, '_> {
    /// The readings of a clause: what retrieval ranks first, a tool whose trigger the clause
    /// says, a tool made for the kind of file named, the meta skills when the clause asks what the
    /// agent can do, and what the person chose before for a clause like it.
    pub(super) fn readings(
        &self,
        ranking: &retrieval::SkillRanking,
        slots: &Slots,
        (matched, affirmed): (&str, &str),
        lessons: &[&contracts::LearnedChoice],
    ) -> Vec<retrieval::SkillHit> {
        let mut hits: Vec<retrieval::SkillHit> =
            ranking.hits.iter().take(CANDIDATES).cloned().collect();
        // A tool whose trigger the clause says word for word (its slots filled) is a reading,
        // ranked or not.
        for s in self.cx.skills.skills() {
            for tool in s.definition.tools.keys() {
                let says_trigger = score::says_trigger_whole(&s.definition, tool, affirmed)
                    || score::says_trigger_whole(&s.definition, tool, matched)
                    || score::trigger_frame_said(&s.definition, tool, matched).is_some()
                    || score::trigger_frame_said(&s.definition, tool, affirmed).is_some();
                if says_trigger
                    && !hits
                        .iter()
                        .any(|h| h.skill == s.definition.name && h.tool == *tool)
                {
                    hits.push(unranked(&s.definition.name, tool));
                }
            }
        }
        self.add_kind_readings(&mut hits, ranking, slots);
        // "can u convert wav to flac?" asks what the agent can do: looking its skills up is a
        // reading, ranked or not.
        if slots.asks_ability {
            for s in self.cx.skills.skills() {
                let d = &s.definition;
                for (name, _) in d.tools.iter().filter(|(_, t)| !t.mutates()) {
                    let known = hits.iter().any(|h| h.skill == d.name && h.tool == *name);
                    if d.tags.iter().any(|t| t == "meta") && !known {
                        hits.push(as_ranked(ranking, &d.name, name));
                    }
                }
            }
        }
        // "check Pictures for duplicate photos and put them in a folder called X": a clause
        // pointing back at the last step is offered the sibling that takes that step's result
        // (`takes_from`), ranked or not.
        if slots.refers_back
            && let Some(last) = self.steps.last()
            && let Some(s) = self
                .cx
                .skills
                .skills()
                .find(|s| s.definition.name == last.skill)
        {
            let d = &s.definition;
            for (name, tool) in &d.tools {
                let takes_the_last = tool
                    .planning
                    .takes_from
                    .values()
                    .any(|from| from.split_once('.').is_some_and(|(t, _)| t == last.tool));
                if takes_the_last && !hits.iter().any(|h| h.skill == d.name && h.tool == *name) {
                    hits.push(as_ranked(ranking, &d.name, name));
                }
            }
        }
        for l in lessons {
            let Some((skill, tool)) = l.chosen.split_once('/') else {
                continue;
            };
            if !hits.iter().any(|h| h.skill == skill && h.tool == tool) {
                hits.push(as_ranked(ranking, skill, tool));
            }
        }
        hits
    }

    /// A tool that makes the kind of file a clause's target is, or one made for the kind of the
    /// one file it names, is a reading, ranked or not.
    fn add_kind_readings(
        &self,
        hits: &mut Vec<retrieval::SkillHit>,
        ranking: &retrieval::SkillRanking,
        slots: &Slots,
    ) {
        // "… could live in Archive/old.tar.gz": a tool that makes that kind of file at its
        // target is a reading, ranked or not; so is one made for the kind of the one file the
        // clause names ("which files are in Requiem [hotfix].zip" lists an archive).
        let kind_of = |p: &String| {
            let name = p.rsplit('/').next().unwrap_or(p).to_lowercase();
            sandbox::category_of(name.rsplit_once('.').map(|(_, e)| e))
        };
        let target_kinds: Vec<&str> = slots
            .targets
            .iter()
            .filter(|t| looks_like_file(t))
            .map(kind_of)
            .collect();
        let files: Vec<&String> = slots
            .objects
            .iter()
            .chain(&slots.locations)
            .filter(|p| looks_like_file(p))
            .collect();
        let object_kinds: Vec<&str> = match files.as_slice() {
            [one] => vec![kind_of(one)],
            _ => Vec::new(),
        };
        tracing::trace!(?target_kinds, ?object_kinds, "kinds named");
        for s in self.cx.skills.skills() {
            let d = &s.definition;
            for (name, tool) in &d.tools {
                let makes_it = tool
                    .planning
                    .makes
                    .iter()
                    .any(|k| target_kinds.contains(&k.as_str()));
                // Only a tool made for that kind alone (not one that reads every kind).
                let reads_it = tool.planning.reads.len() == 1
                    && object_kinds.contains(&tool.planning.reads[0].as_str());
                if (makes_it || reads_it)
                    && !hits.iter().any(|h| h.skill == d.name && h.tool == *name)
                {
                    hits.push(as_ranked(ranking, &d.name, name));
                }
            }
        }
    }

    /// When the rules are unsure of `best` (`margin` below `planner_sure_margin`) and a judge
    /// is there, it chooses between `best` and the other readings close to it (distinct actions,
    /// within `READING_WINDOW`). When the judge is sure of its choice (`MODEL_SURE`), that reading
    /// becomes `best` and the margin is raised to the sure margin, so no picker shows; a judge
    /// that is not sure leaves the rules' choice and the picker. A judge that fails leaves the
    /// rules' choice too (and says so); cancelling cancels the plan.
    pub(super) fn judge_reading(
        &mut self,
        text: &str,
        best: &mut Candidate,
        margin: &mut f32,
        candidates: &mut [Candidate],
    ) -> Result<()> {
        let sure = self.cx.config.planner_sure_margin;
        if *margin >= sure || best.score < UNDERSTOOD_FLOOR {
            return Ok(());
        }
        let Some(judge) = self.judge.as_deref_mut() else {
            return Ok(());
        };
        let floor = (best.score - crate::READING_WINDOW).max(UNDERSTOOD_FLOOR);
        let mut others: Vec<usize> = (0..candidates.len())
            .filter(|&i| candidates[i].score >= floor)
            .collect();
        others.sort_by(|&a, &b| candidates[b].score.total_cmp(&candidates[a].score));
        let mut shown = vec![best.action()];
        let mut picked: Vec<usize> = Vec::new();
        for i in others {
            let action = candidates[i].action();
            if shown.len() < crate::MAX_READINGS && !shown.contains(&action) {
                shown.push(action);
                picked.push(i);
            }
        }
        if picked.is_empty() {
            return Ok(());
        }
        let reading = |c: &Candidate| Reading {
            steps: c.steps.iter().map(|(s, _)| s.clone()).collect(),
        };
        let question = ReadingQuestion {
            request: self.request,
            clause: text,
            readings: std::iter::once(reading(best))
                .chain(picked.iter().map(|&i| reading(&candidates[i])))
                .collect(),
        };
        let judgement: Judgement = match judge.choose(&question, self.cx.skills, self.control) {
            Ok(j) => j,
            Err(ThinkerError::Cancelled) => return Err(ThinkerError::Cancelled),
            Err(e) => {
                self.notes.push(format!(
                    "\"{text}\": the model could not choose between readings ({e}); the rules' \
                     choice stands"
                ));
                return Ok(());
            }
        };
        let p = judgement.probability();
        self.judged_by = Some(judgement.by.clone());
        let chosen = question.readings[judgement.chosen].action();
        if p < crate::MODEL_SURE {
            // A model that is not sure either does not overrule the rules: the person picks.
            self.notes.push(if judgement.chosen == 0 {
                format!(
                    "\"{text}\": {} leaned to the rules' {chosen} too ({:.0} %) of {} readings, \
                     not sure enough to settle it",
                    judgement.by,
                    p * 100.0,
                    question.readings.len(),
                )
            } else {
                format!(
                    "\"{text}\": {} leaned to {chosen} ({:.0} %) of {} readings, not sure enough \
                     to overrule the rules' {}",
                    judgement.by,
                    p * 100.0,
                    question.readings.len(),
                    best.action()
                )
            });
            return Ok(());
        }
        let rules_choice = best.action();
        if judgement.chosen > 0 {
            std::mem::swap(best, &mut candidates[picked[judgement.chosen - 1]]);
        }
        self.notes.push(format!(
            "\"{text}\": {} chose {chosen} ({:.0} %) from {} readings{}",
            judgement.by,
            p * 100.0,
            question.readings.len(),
            if judgement.chosen > 0 {
                format!(" (the rules' first was {rules_choice})")
            } else {
                String::new()
            }
        ));
        *margin = margin.max(sure);
        Ok(())
    }
}

/// `skill/tool` as a reading retrieval did not rank.
pub(super) fn unranked(skill: &str, tool: &str) -> retrieval::SkillHit {
    retrieval::SkillHit {
        skill: skill.to_owned(),
        tool: tool.to_owned(),
        score: 0.0,
        skill_score: 0.0,
        tool_score: 0.0,
        vector: 0.0,
        bm25: 0.0,
    }
}

/// `skill/tool` as a reading: as retrieval ranked it, if it did.
fn as_ranked(ranking: &retrieval::SkillRanking, skill: &str, tool: &str) -> retrieval::SkillHit {
    ranking
        .hits
        .iter()
        .find(|h| h.skill == skill && h.tool == tool)
        .cloned()
        .unwrap_or_else(|| unranked(skill, tool))
}

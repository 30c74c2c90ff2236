//! Learning from the person's choices: a step they gave another skill in the near-miss picker
//! (`LearnedChoice`, remembered in the audit log) biases later clauses that say much the same
//! thing towards what they chose and away from what was planned. Pure.

use std::collections::BTreeSet;

use contracts::LearnedChoice;

/// Share of the words of the shorter text that the other one also says, from which a
/// remembered choice applies (and at least two words in common unless one says only one).
const SIMILAR: f32 = 0.6;
/// Added to a reading that does what the person chose; taken from every reading with another
/// skill: the one they turned down (its sibling tools are the same wrong idea) and any other that
/// now comes first (a planner that has changed since would otherwise offer a third wrong idea,
/// which the choice also ruled out).
const CHOSEN_BONUS: f32 = 0.45;
const REJECTED_PENALTY: f32 = 0.25;

/// The words of a clause that say what to do. Names are left out: files and paths, quoted
/// names, and capitalised words after the first ("summarise 'notes.md' in Documents" and
/// "summarise report.pdf in Work" say the same thing). When only small words are left ("what's
/// in …"), they are what it says.
fn terms(text: &str) -> BTreeSet<String> {
    let mut unquoted = String::new();
    let mut quote: Option<char> = None;
    for (i, ch) in text.char_indices() {
        let opens = text[..i].chars().last().is_none_or(char::is_whitespace);
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if matches!(ch, '\'' | '"') && opens => quote = Some(ch),
            None => unquoted.push(ch),
        }
    }
    let words: Vec<&str> = unquoted
        .split_whitespace()
        .enumerate()
        .filter(|(i, w)| {
            let capitalised_name = *i > 0 && w.starts_with(char::is_uppercase);
            !(super::normalize::is_name(w) || capitalised_name)
        })
        .map(|(_, w)| w)
        .collect();
    let text = words.join(" ");
    let content: BTreeSet<String> = retrieval::text::terms(&text).into_iter().collect();
    if content.is_empty() {
        retrieval::text::words(&text).into_iter().collect()
    } else {
        content
    }
}

/// The remembered choices about a clause like `text`.
pub(super) fn lessons<'a>(text: &str, learned: &'a [LearnedChoice]) -> Vec<&'a LearnedChoice> {
    let clause = terms(text);
    if clause.is_empty() {
        return Vec::new();
    }
    learned
        .iter()
        .filter(|c| {
            let other = terms(&c.text);
            let common = clause.intersection(&other).count();
            let shorter = clause.len().min(other.len());
            shorter > 0 && common >= shorter.min(2) && common as f32 / shorter as f32 >= SIMILAR
        })
        .collect()
}

/// How much the lessons about `text` move a reading whose action is `skill/tool`. A lesson
/// about the very same words (only the names differ) counts twice: the person has answered this
/// question already.
pub(super) fn adjustment(text: &str, skill_tool: &str, lessons: &[&LearnedChoice]) -> f32 {
    let clause = terms(text);
    lessons
        .iter()
        .map(|c| {
            let weight = if terms(&c.text) == clause { 2.0 } else { 1.0 };
            let skill = |s: &str| s.split('/').next().unwrap_or_default().to_owned();
            weight
                * if c.chosen == skill_tool {
                    CHOSEN_BONUS
                } else if skill(&c.chosen) != skill(skill_tool) {
                    -REJECTED_PENALTY
                } else {
                    0.0
                }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(text: &str) -> LearnedChoice {
        LearnedChoice {
            id: "a1".into(),
            run_id: "r1".into(),
            at: "2026-11-24T10:00:00Z".into(),
            text: text.into(),
            planned: "analyze-directory/summary".into(),
            chosen: "parse-content/extract_text".into(),
        }
    }

    #[test]
    fn a_choice_applies_to_clauses_that_say_much_the_same() {
        let learned = [choice(
            "summarise 'meeting notes 2024-03-12.md' in Documents",
        )];
        assert_eq!(
            lessons(
                "summarise 'meeting notes 2024-05-02.md' in Documents",
                &learned
            )
            .len(),
            1
        );
        assert!(lessons("remove duplicates in Downloads", &learned).is_empty());
        let by_name = [choice("summarise report.pdf")];
        assert_eq!(lessons("summarise song.mp3", &by_name).len(), 1);
        let said = "summarise the meeting notes in Documents";
        let l = lessons(said, &learned);
        let adjust = |action: &str| adjustment(said, action, &l);
        assert_eq!(adjust("parse-content/extract_text"), CHOSEN_BONUS);
        assert_eq!(adjust("analyze-directory/summary"), -REJECTED_PENALTY);
        // Regression: a third skill that comes first later (the index changed) is ruled out too.
        assert_eq!(adjust("manage-files/find"), -REJECTED_PENALTY);
        assert_eq!(adjust("analyze-directory/analyze"), -REJECTED_PENALTY);
        assert_eq!(adjust("parse-content/metadata"), 0.0);
        // The same words with other names: the person answered this already, twice the weight.
        let same = lessons("summarise report.pdf in Work", &by_name);
        assert_eq!(
            adjustment("summarise song.mp3", "parse-content/extract_text", &same),
            2.0 * CHOSEN_BONUS
        );
        assert_eq!(learned[0].day(), "2026-11-24");
    }
}

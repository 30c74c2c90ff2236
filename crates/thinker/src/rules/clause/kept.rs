//! "keep the biggest and drop the rest": what is kept and what goes said as one step.

use super::*;

/// What "the rest" is when one of each is kept: the others.
const THE_OTHERS: &[&str] = &[
    "the rest",
    "the others",
    "the other ones",
    "the other copies",
    "the remaining ones",
    "the remainder",
    "all the others",
    "all the rest",
    "its siblings",
    "their siblings",
];

/// "…, in each group keep the biggest and drop the rest", "find duplicates in Music, keep the
/// largest and delete the others": what is kept and what goes are one step, and what goes are
/// the extra copies of what is kept. A clause that only removes "the rest" takes the "keep …"
/// said before it: out of a header (which says where), or joined to the step before.
pub(super) fn keep_with_what_goes(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    let mut i = 1;
    while i < clauses.len() {
        let removes_the_rest = {
            let text = clauses[i].text.trim_end_matches(['.', '!', ',']);
            let words: Vec<&str> = text.split_whitespace().collect();
            let rest = words.get(1..).map(|w| w.join(" ").to_lowercase());
            words.len() <= 6
                && !text.contains('/')
                && words
                    .first()
                    .is_some_and(|v| verbs.is_action(&v.to_lowercase()))
                && rest.is_some_and(|r| THE_OTHERS.iter().any(|o| r.starts_with(o)))
        };
        let kept_at = keep_said_at(&clauses[i - 1].text);
        if removes_the_rest && kept_at.is_some() {
            let c = &mut clauses[i];
            let lower = c.text.to_lowercase();
            if let Some((at, other)) = THE_OTHERS
                .iter()
                .find_map(|o| lower.find(o).map(|at| (at, o)))
                .filter(|_| lower.len() == c.text.len())
            {
                c.text
                    .replace_range(at..at + other.len(), "the extra copies");
            }
        }
        match kept_at {
            Some(at) if removes_the_rest => {
                let prev = &mut clauses[i - 1];
                if prev.header {
                    // "…, in each group of lookalikes keep the biggest": which groups go too.
                    let before = prev.text[..at].trim_end();
                    let at = before
                        .rfind(", ")
                        .map(|comma| comma + 2)
                        .filter(|&from| {
                            let part = before[from..].to_lowercase();
                            [
                                "in each ",
                                "for each ",
                                "within each ",
                                "of each ",
                                "in every ",
                            ]
                            .iter()
                            .any(|lead| part.starts_with(lead))
                        })
                        .unwrap_or(at);
                    let keep = prev.text[at..].trim_end_matches([',', ' ']).to_owned();
                    prev.text = prev.text[..at].trim_end_matches([',', ' ']).to_owned();
                    clauses[i].text = format!("{keep} and {}", clauses[i].text);
                    if clauses[i - 1].text.is_empty() {
                        clauses.remove(i - 1);
                        continue;
                    }
                } else {
                    let c = clauses.remove(i);
                    let prev = &mut clauses[i - 1];
                    prev.text =
                        format!("{} and {}", prev.text.trim_end_matches([',', ' ']), c.text);
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Where "keep the …" / "keep only the …" / "keep one" starts in `text` (the last one), if any.
fn keep_said_at(text: &str) -> Option<usize> {
    let lower = text.to_lowercase();
    [
        "keep the ",
        "keep only the ",
        "keep just the ",
        "keep one ",
        "retain the ",
        "retain only the ",
        "retain one ",
        "hang on to the ",
        "hold on to the ",
        "hang onto the ",
        "hold onto the ",
    ]
    .iter()
    .filter_map(|k| {
        lower
            .match_indices(k)
            .map(|(at, _)| at)
            .filter(|&at| at == 0 || lower[..at].ends_with([' ', ',']))
            .last()
    })
    .max()
    .filter(|_| lower.len() == text.len())
}

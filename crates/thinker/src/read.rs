//! Reading a file with a model for the `llm` tasks (seed 005's Thinker primitive): the JSON
//! Schemas the answers are constrained to, the prompts (the person's categories first, so they
//! stay in the model's prefix cache from one file to the next; then the file's beginning), the
//! checks, and how sure the model was of a category, from the alternatives it weighed where the
//! category was decided. Pure.

use retrieval::classify::{Category, FileText};
use serde::Deserialize;
use serde_json::{Value, json};

/// A generated piece of text (one token) and the most likely tokens the model weighed at that
/// point with their probabilities; empty for a token the grammar forced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Piece {
    pub text: String,
    pub alternatives: Vec<(String, f32)>,
}

/// Longest reason, in characters.
const MAX_REASON: usize = 60;
/// Longest title, in characters.
const MAX_TITLE: usize = 60;
/// Most characters of an example file shown for a category.
const EXAMPLE_CHARS: usize = 100;

fn guidance() -> Value {
    json!({"whitespace_flexible": false, "item_separator": ", ", "key_separator": ": "})
}

/// The answer's shape: one of the categories by name, and a short reason.
pub fn category_schema(categories: &[Category]) -> Value {
    let names: Vec<&str> = categories.iter().map(|c| c.name.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "category": {"enum": names},
            "reason": {"type": "string", "minLength": 3, "maxLength": MAX_REASON},
        },
        "required": ["category", "reason"],
        "additionalProperties": false,
        "x-guidance": guidance(),
    })
}

/// The file as the model reads it: its name and the beginning of its text.
fn file_message(file: &FileText) -> String {
    let text = file.text.trim();
    let body = if text.is_empty() { "(no text)" } else { text };
    format!("File: {}\n---\n{body}\n---", file.name)
}

/// The system message (the categories, described where the person described them, with a
/// file already filed under them) and the user message (the file).
pub fn category_prompt(categories: &[Category], file: &FileText) -> (String, String) {
    let mut system = String::from(
        "You sort a person's files into their folders by what each file is about. The \
         categories:\n",
    );
    for c in categories {
        system.push_str(&format!("- {}", c.name));
        if !c.description.trim().is_empty() {
            system.push_str(&format!(": {}", c.description.trim()));
        }
        if let Some(example) = c.examples.first() {
            let flat: String = example.split_whitespace().collect::<Vec<_>>().join(" ");
            let short: String = flat.chars().take(EXAMPLE_CHARS).collect();
            system.push_str(&format!(" (already in it: \"{short}…\")"));
        }
        system.push('\n');
    }
    system.push_str(
        "Answer with JSON only: \"category\" is the one category the file belongs to, written \
         exactly as above; \"reason\" is a few words saying what in the file shows it.",
    );
    (system, file_message(file))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CategoryAnswer {
    category: String,
    reason: String,
}

/// The chosen category's index and the reason, or what is wrong with the answer.
pub fn check_category(text: &str, categories: &[Category]) -> Result<(usize, String), String> {
    let answer: CategoryAnswer =
        serde_json::from_str(text).map_err(|e| format!("not the asked JSON: {e}"))?;
    let index = categories
        .iter()
        .position(|c| c.name == answer.category)
        .ok_or_else(|| {
            format!(
                "`{}` is not one of the categories ({})",
                answer.category,
                categories
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    Ok((index, answer.reason.trim().to_owned()))
}

/// How likely the model thought each of `names` for the answer's `"category"` value, from the
/// alternatives it weighed at each token it chose there. At every such token the weight of the
/// alternatives that still spell some name is shared out among the names they spell; a name
/// that leaves the chosen spelling keeps what it had at that point. Without any weighed token
/// the chosen name is certain.
pub fn category_probabilities(pieces: &[Piece], names: &[&str], chosen: usize) -> Vec<f32> {
    choice_probabilities(pieces, "category", names, chosen)
}

/// How likely the model found each of `names` as the string value of `key` (one of them was
/// `chosen`), from the alternatives weighed where the value was written; see
/// [`category_probabilities`].
pub(crate) fn choice_probabilities(
    pieces: &[Piece],
    key: &str,
    names: &[&str],
    chosen: usize,
) -> Vec<f32> {
    let mut out = vec![0.0; names.len()];
    let text: String = pieces.iter().map(|p| p.text.as_str()).collect();
    let Some(start) = value_start(&text, key) else {
        out[chosen] = 1.0;
        return out;
    };
    // In any case: a model leaning to "inv" leans to "Invoices" (the grammar then spells it).
    let targets: Vec<String> = names
        .iter()
        .map(|n| format!("{}\"", n.to_lowercase()))
        .collect();
    let spells = |i: usize, so_far: &str| {
        let so_far = so_far.to_lowercase();
        targets[i].starts_with(&so_far) || so_far.starts_with(targets[i].as_str())
    };
    let end = start + names[chosen].len() + 1;
    let mut prob = vec![1.0f32; names.len()];
    let mut alive = vec![true; names.len()];
    let mut decided = false;
    let mut offset = 0;
    for piece in pieces {
        let (from, to) = (offset, offset + piece.text.len());
        offset = to;
        if to <= start || from >= end || piece.alternatives.is_empty() {
            continue;
        }
        // The value as written before this piece, and the part of the piece before the value.
        let (before, lead) = if from >= start {
            (&text[start..from], "")
        } else {
            ("", &text[from..start])
        };
        let mut mass = vec![0.0f32; names.len()];
        let mut weighed = 0.0f32;
        for (alt, p) in &piece.alternatives {
            let Some(alt) = alt.strip_prefix(lead) else {
                continue;
            };
            let so_far = format!("{before}{alt}");
            let mut spells_any = false;
            for (i, m) in mass.iter_mut().enumerate() {
                if alive[i] && spells(i, &so_far) {
                    *m += p;
                    spells_any = true;
                }
            }
            if spells_any {
                weighed += p;
            }
        }
        if weighed <= 0.0 {
            continue;
        }
        decided = true;
        // The value as written up to the end of this piece: the names that still agree go on.
        let chosen_so_far = &text[start..to];
        for i in 0..names.len() {
            if alive[i] {
                prob[i] *= mass[i] / weighed;
                alive[i] = spells(i, chosen_so_far);
            }
        }
    }
    let total: f32 = prob.iter().sum();
    if !decided || total <= 0.0 || !total.is_finite() {
        out[chosen] = 1.0;
        return out;
    }
    for (o, p) in out.iter_mut().zip(&prob) {
        *o = p / total;
    }
    out
}

/// Where the string value of `key` starts in a JSON object's text (after its opening quote).
fn value_start(text: &str, key: &str) -> Option<usize> {
    let at = text.find(&format!("\"{key}\""))? + key.len() + 2;
    let colon = at + text[at..].find(':')?;
    let quote = colon + text[colon..].find('"')?;
    Some(quote + 1)
}

/// The answer's shape: a short title.
pub fn title_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"title": {"type": "string", "minLength": 3, "maxLength": MAX_TITLE}},
        "required": ["title"],
        "additionalProperties": false,
        "x-guidance": guidance(),
    })
}

/// The system and user message that ask for a file's title.
pub fn title_prompt(file: &FileText) -> (String, String) {
    let system = "You give a person's files descriptive names by what they are about. Answer \
        with JSON only: \"title\" is 2 to 7 words saying what the document is and whom or what \
        it concerns, with its key figure when it has one, taken from this file (like \"Car \
        insurance renewal 312 USD\" or \"Banana bread recipe\"); no date, no file extension, no \
        list."
        .to_owned();
    (system, file_message(file))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TitleAnswer {
    title: String,
}

/// The title, or what is wrong with it.
pub fn check_title(text: &str) -> Result<String, String> {
    let answer: TitleAnswer =
        serde_json::from_str(text).map_err(|e| format!("not the asked JSON: {e}"))?;
    let title = tidy_title(&answer.title);
    let words = title.split(' ').count();
    if title.chars().filter(|c| c.is_alphanumeric()).count() < 3 {
        return Err("the title says nothing".into());
    }
    if words > 10 {
        return Err(format!("the title has {words} words; give at most 7"));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(w) = title
        .split([' ', ','])
        .filter(|w| w.len() > 2)
        .find(|w| !seen.insert(w.to_lowercase()))
    {
        return Err(format!("the title repeats `{w}`"));
    }
    Ok(title)
}

/// A title as a name wants it: its first phrase when the model went on past a comma or a full
/// stop ("Weekly team meeting minutes, 24 May, attendees …"), without a dangling last word
/// ("… between Ben and Farid, in" → "… between Ben and Farid").
fn tidy_title(raw: &str) -> String {
    const DANGLING: &[&str] = &[
        "a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with",
    ];
    let flat = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = flat
        .split([',', ';'])
        .next()
        .map(|p| p.split(". ").next().unwrap_or(p))
        .unwrap_or(&flat);
    let long = flat.split(' ').count() > 6;
    let mut words: Vec<&str> = if long && first.split(' ').count() >= 2 {
        first.split(' ').collect()
    } else {
        flat.split(' ').collect()
    };
    while words.len() > 1
        && words.last().is_some_and(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            w.is_empty() || DANGLING.contains(&w.to_lowercase().as_str())
        })
    {
        words.pop();
    }
    words
        .join(" ")
        .trim_end_matches([',', ';', ':', '-', '.'])
        .to_owned()
}

/// The answer's shape: a summary of at most `sentences` sentences.
pub fn summary_schema(sentences: usize) -> Value {
    json!({
        "type": "object",
        "properties": {"summary": {
            "type": "string", "minLength": 10, "maxLength": 40 + 160 * sentences.max(1),
        }},
        "required": ["summary"],
        "additionalProperties": false,
        "x-guidance": guidance(),
    })
}

/// The system and user message that ask for a summary.
pub fn summary_prompt(file: &FileText, sentences: usize) -> (String, String) {
    let system = format!(
        "You summarize a person's files in plain words. Answer with JSON only: \"summary\" is \
         at most {sentences} sentence(s) saying what it is and what in it matters (who, what, \
         amounts, dates), with no preamble."
    );
    (system, file_message(file))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SummaryAnswer {
    summary: String,
}

/// The summary, or what is wrong with it.
pub fn check_summary(text: &str) -> Result<String, String> {
    let answer: SummaryAnswer =
        serde_json::from_str(text).map_err(|e| format!("not the asked JSON: {e}"))?;
    let summary = answer.summary.trim().to_owned();
    if summary.split_whitespace().count() < 3 {
        return Err("the summary says nothing".into());
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrieval::classify::CategorySource;

    fn cats(names: &[&str]) -> Vec<Category> {
        names
            .iter()
            .map(|n| Category {
                name: (*n).into(),
                description: String::new(),
                folder: format!("Inbox/{n}"),
                exists: false,
                source: CategorySource::Request,
                examples: Vec::new(),
            })
            .collect()
    }

    fn piece(text: &str, alternatives: &[(&str, f32)]) -> Piece {
        Piece {
            text: text.into(),
            alternatives: alternatives
                .iter()
                .map(|(t, p)| ((*t).to_owned(), *p))
                .collect(),
        }
    }

    #[test]
    fn a_category_decided_at_its_first_token_gets_the_weight_of_each_spelling() {
        let names = ["Invoices", "Recipes", "Meeting notes"];
        let pieces = [
            piece("{\"category\": \"", &[]),
            // Not every alternative spells a category: those are left out of the sharing; one
            // in another case counts for the category it spells.
            piece(
                "Inv",
                &[
                    ("Inv", 0.5),
                    ("inv", 0.1),
                    ("Rec", 0.2),
                    ("Meeting", 0.1),
                    ("Hello", 0.1),
                ],
            ),
            piece("oices\", \"reason\": \"", &[]),
            piece("amount", &[("amount", 0.9), ("total", 0.1)]),
            piece(" due\"}", &[]),
        ];
        let p = category_probabilities(&pieces, &names, 0);
        assert!((p[0] - 0.6667).abs() < 1e-3, "{p:?}");
        assert!((p[1] - 0.2222).abs() < 1e-3, "{p:?}");
        assert!((p[2] - 0.1111).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn names_sharing_a_first_token_are_told_apart_where_they_part() {
        // "Travel" and "Tax" share "T"; the model hesitates between them at the second token.
        let names = ["Travel", "Tax", "Health"];
        let pieces = [
            piece("{\"category\": \"", &[]),
            piece("T", &[("T", 0.8), ("Health", 0.2)]),
            piece("ravel", &[("ravel", 0.75), ("ax", 0.25)]),
            piece("\", \"reason\": \"flight\"}", &[]),
        ];
        let p = category_probabilities(&pieces, &names, 0);
        assert!((p[0] - 0.6).abs() < 1e-3, "{p:?}");
        assert!((p[1] - 0.2).abs() < 1e-3, "{p:?}");
        assert!((p[2] - 0.2).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn a_token_that_opens_the_value_with_its_quote_is_read_from_the_quote_on() {
        let names = ["Recipes", "Invoices"];
        let pieces = [
            piece("{\"category\":", &[]),
            piece(" \"Rec", &[(" \"Rec", 0.5), (" \"Inv", 0.5), (" \"", 0.5)]),
            piece("ipes\", \"reason\": \"flour\"}", &[]),
        ];
        let p = category_probabilities(&pieces, &names, 0);
        // " \"" spells both names so far: its weight goes to each.
        assert!((p[0] - 0.5).abs() < 1e-3, "{p:?}");
        assert!((p[1] - 0.5).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn without_weighed_tokens_the_choice_is_certain() {
        let pieces = [piece(
            "{\"category\": \"Recipes\", \"reason\": \"flour\"}",
            &[],
        )];
        assert_eq!(
            category_probabilities(&pieces, &["Invoices", "Recipes"], 1),
            [0.0, 1.0]
        );
    }

    #[test]
    fn answers_are_checked_against_the_categories_and_limits() {
        let c = cats(&["Invoices", "Recipes"]);
        assert_eq!(
            check_category(r#"{"category": "Recipes", "reason": " flour "}"#, &c),
            Ok((1, "flour".to_owned()))
        );
        let wrong = check_category(r#"{"category": "Music", "reason": "x"}"#, &c).unwrap_err();
        assert!(wrong.contains("Invoices, Recipes"), "{wrong}");
        assert_eq!(
            check_title(r#"{"title": "Invoice  ACME 420 EUR"}"#),
            Ok("Invoice ACME 420 EUR".to_owned())
        );
        assert!(check_title(r#"{"title": "--"}"#).is_err());
        assert!(check_title(r#"{"title": "Invoice 2024-117 2024-117"}"#).is_err());
        for (raw, tidy) in [
            (
                "Weekly Team Meeting Minutes, 24 May, Attendees- Ines Duarte,",
                "Weekly Team Meeting Minutes",
            ),
            (
                "Lease Agreement between Ben Ortiz and Farid Haddad, 1999, in",
                "Lease Agreement between Ben Ortiz and Farid Haddad",
            ),
            (
                "Chili con carne with olive oil and",
                "Chili con carne with olive oil",
            ),
            ("Invoice no. 7821 ACME", "Invoice no. 7821 ACME"),
            ("Invoices, 2024", "Invoices, 2024"),
        ] {
            assert_eq!(tidy_title(raw), tidy, "{raw}");
        }
        assert!(check_summary(r#"{"summary": "ok"}"#).is_err());
    }

    #[test]
    fn the_categories_open_the_prompt_and_the_file_ends_it() {
        let mut c = cats(&["Invoices", "Recipes"]);
        c[1].description = "cooking and baking".into();
        c[0].examples = vec!["ACME GmbH\nAmount due 420 EUR".into()];
        let file = FileText {
            path: "Inbox/scan.pdf".into(),
            name: "scan.pdf".into(),
            text: "Banana bread".into(),
        };
        let (system, user) = category_prompt(&c, &file);
        assert!(
            system.contains("- Invoices (already in it: \"ACME GmbH Amount due 420 EUR…\")"),
            "{system}"
        );
        assert!(
            system.contains("- Recipes: cooking and baking\n"),
            "{system}"
        );
        assert!(
            !system.contains("Banana"),
            "the file stays out of the cached part"
        );
        assert_eq!(user, "File: scan.pdf\n---\nBanana bread\n---");
        let schema = category_schema(&c);
        assert_eq!(
            schema["properties"]["category"]["enum"],
            json!(["Invoices", "Recipes"])
        );
    }
}

//! Sorting files by what they are about: the `classify` task of the `llm` primitive, without a
//! model. Each file's text (what `sandbox::parse` extracts) is compared with each category (its
//! name and description, and the files already filed under it) by the shared [`Embedder`]; a file
//! goes to the closest category when that one leads the next by at least the sure margin, and is
//! asked about otherwise — never guessed silently.
//!
//! Pure: texts and categories in, judgements out. Where the categories come from (the request,
//! a guidance file, the folders already there) is `sources.rs`; reading files is the shell's job.

mod sources;

use serde::Serialize;

use crate::Result;
use crate::embed::{Embedder, WordVectors};

pub use sources::{CategorySpec, categories_from_param, parse_guidance};

/// Where a category came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CategorySource {
    /// Named in the request ("into Invoices, Recipes and Meeting notes").
    Request,
    /// Described in the folder's guidance file (`.scope-weaver.md` / `.yaml`).
    Guidance,
    /// A folder that is already there.
    Folder,
}

/// One category files can be sorted into.
#[derive(Debug, Clone, Serialize)]
pub struct Category {
    pub name: String,
    /// What belongs in it, in the person's words (may be empty: the name alone).
    pub description: String,
    /// The root-relative folder its files go to.
    pub folder: String,
    /// Whether that folder exists already (reused) or the plan creates it.
    pub exists: bool,
    pub source: CategorySource,
    /// Texts of files already in its folder: examples of what belongs there.
    #[serde(skip)]
    pub examples: Vec<String>,
}

/// A file to classify: its root-relative path, its name and its readable text.
#[derive(Debug, Clone)]
pub struct FileText {
    pub path: String,
    pub name: String,
    pub text: String,
}

/// How a file was judged.
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    pub path: String,
    /// Index of the closest category.
    pub best: usize,
    pub score: f32,
    /// The next closest category and its score.
    pub runner_up: Option<(usize, f32)>,
    /// How far the closest category leads the next (0..1): what "sure" is measured on.
    pub confidence: f32,
    /// One line: the category, its lead, and the file's words that point there.
    pub reason: String,
}

/// The most characters of a file's text that are compared: the beginning says what it is.
pub const TEXT_CHARS: usize = 4000;

fn file_text(f: &FileText) -> String {
    let stem = f.name.rsplit_once('.').map_or(f.name.as_str(), |(s, _)| s);
    let words = stem.replace(['_', '-', '.'], " ");
    let body: String = f.text.chars().take(TEXT_CHARS).collect();
    format!("{words}\n{body}")
}

fn category_text(c: &Category) -> String {
    if c.description.trim().is_empty() {
        c.name.clone()
    } else {
        format!("{}. {}", c.name, c.description)
    }
}

/// Judges every file against every category. The category's vector is its name and description,
/// averaged with the files already in its folder when there are any.
pub fn judge(
    embedder: &dyn Embedder,
    files: &[FileText],
    categories: &[Category],
) -> Result<Vec<Judgement>> {
    if files.is_empty() || categories.is_empty() {
        return Ok(Vec::new());
    }
    let texts: Vec<String> = files.iter().map(file_text).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let file_vecs = embedder.embed_documents(&refs)?;
    let mut cat_vecs = Vec::with_capacity(categories.len());
    for c in categories {
        let own = embedder.embed_query(&category_text(c))?;
        let examples: Vec<&str> = c.examples.iter().map(String::as_str).collect();
        let v = if examples.is_empty() {
            own
        } else {
            let ex = embedder.embed_documents(&examples)?;
            let mut mean = own.clone();
            for e in &ex {
                for (m, x) in mean.iter_mut().zip(e) {
                    *m += x / ex.len() as f32;
                }
            }
            crate::embed::normalize(&mut mean);
            mean
        };
        cat_vecs.push(v);
    }
    let meanings: Vec<Option<Vec<f32>>> = categories
        .iter()
        .map(|c| WordVectors::shipped().meaning(&category_text(c)))
        .collect();
    Ok(files
        .iter()
        .zip(&file_vecs)
        .zip(&texts)
        .map(|((f, v), text)| {
            let mut scores: Vec<(usize, f32)> = cat_vecs
                .iter()
                .enumerate()
                .map(|(i, c)| (i, crate::embed::cosine(v, c)))
                .collect();
            scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let (best, score) = scores[0];
            let runner_up = scores.get(1).copied();
            let confidence = runner_up.map_or(1.0, |(_, s)| (score - s).max(0.0));
            let reason = reason(categories, best, score, runner_up, text, &meanings[best]);
            Judgement {
                path: f.path.clone(),
                best,
                score,
                runner_up,
                confidence,
                reason,
            }
        })
        .collect())
}

fn reason(
    categories: &[Category],
    best: usize,
    score: f32,
    runner_up: Option<(usize, f32)>,
    text: &str,
    meaning: &Option<Vec<f32>>,
) -> String {
    let mut out = format!("closest to {} ({score:.2}", categories[best].name);
    if let Some((i, s)) = runner_up {
        out.push_str(&format!("; next {} {s:.2}", categories[i].name));
    }
    out.push(')');
    if let Some(m) = meaning {
        let words: Vec<String> = WordVectors::shipped()
            .closest_words(text, m, 3)
            .into_iter()
            .filter(|(_, s)| *s > 0.25)
            .map(|(w, _)| w)
            .collect();
        if !words.is_empty() {
            out.push_str(": ");
            out.push_str(&words.join(", "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::WordsEmbedder;

    fn cat(name: &str) -> Category {
        Category {
            name: name.into(),
            description: String::new(),
            folder: format!("Inbox/{name}"),
            exists: false,
            source: CategorySource::Request,
            examples: Vec::new(),
        }
    }

    fn file(name: &str, text: &str) -> FileText {
        FileText {
            path: format!("Inbox/{name}"),
            name: name.into(),
            text: text.into(),
        }
    }

    #[test]
    fn files_go_to_the_category_they_are_about_with_a_reason() {
        let e = WordsEmbedder::new(384);
        let cats = [cat("Invoices"), cat("Recipes"), cat("Meeting notes")];
        let files = [
            file(
                "scan-0031.pdf",
                "ACME GmbH. Amount due: 420 EUR incl. VAT. Please pay by bank transfer within 30 days.",
            ),
            file(
                "doc2.docx",
                "Banana bread: mash three bananas, stir in flour, butter and sugar, bake 50 minutes.",
            ),
            file(
                "notes.md",
                "Attendees: Anna, Ben. Agenda: release plan. Decisions and action items for next week.",
            ),
        ];
        let j = judge(&e, &files, &cats).unwrap();
        let got: Vec<&str> = j.iter().map(|j| cats[j.best].name.as_str()).collect();
        assert_eq!(got, ["Invoices", "Recipes", "Meeting notes"]);
        assert!(
            j[0].reason.starts_with("closest to Invoices ("),
            "{}",
            j[0].reason
        );
        assert!(j.iter().all(|j| j.confidence > 0.0 && j.confidence <= 1.0));
    }

    #[test]
    fn files_already_in_a_folder_teach_it_what_belongs_there() {
        let e = WordsEmbedder::new(384);
        // "Misc" says nothing; its examples (tax letters) say what it holds.
        let mut misc = cat("Misc");
        misc.examples = vec!["Tax assessment notice from the revenue office for 2023.".into()];
        let cats = [misc, cat("Recipes")];
        let j = judge(
            &e,
            &[file(
                "letter.txt",
                "Your income tax return for 2024 is due.",
            )],
            &cats,
        )
        .unwrap();
        assert_eq!(j[0].best, 0, "{:?}", j[0]);
    }
}

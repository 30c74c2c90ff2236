//! What a heading names: the files it says nothing about, what it says there is, what was done to
//! them or where they landed, or the file it says last. Pure.

use super::*;

/// The files a header names: all of it when it says nothing about them ("duplicate photos in
/// Pictures/Family"), what it says there is ("somewhere in Documents there's a letter about the
/// boiler"), or nothing ("the desktop looks like a bomb went off").
pub(super) fn what_a_header_names(header: &str, verbs: &Verbs) -> Option<String> {
    let lex = crate::rules::lexicon::lexicon();
    let words: Vec<&str> = header
        .trim_end_matches([',', ':', ' '])
        .split_whitespace()
        .collect();
    let lower: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .collect();
    let states = |w: &String| {
        lex.statement_verbs.contains(w)
            || w.split_once('\'')
                .is_some_and(|(_, end)| lex.statement_verbs.contains(&format!("'{end}")))
    };
    // "there's", "there is", "there are": what follows is what there is.
    let there = lower
        .iter()
        .position(|w| w == "there" || w.starts_with("there'"));
    if let Some(at) = there {
        let joined = lower[at] != "there";
        let skip = if joined { 1 } else { 2 };
        if joined || lower.get(at + 1).is_some_and(states) {
            let rest: Vec<&str> = words[..at]
                .iter()
                .chain(&words[(at + skip).min(words.len())..])
                .copied()
                .collect();
            let rest_lower: Vec<String> = lower[..at]
                .iter()
                .chain(&lower[(at + skip).min(lower.len())..])
                .cloned()
                .collect();
            return (!rest.is_empty() && !rest_lower.iter().any(states)).then(|| rest.join(" "));
        }
    }
    // "Logs/app is full of 0-byte junk files", ".part files are littering ~/Downloads": the
    // files said to fill or clutter a place, in that place.
    if let Some(v) = lower.iter().position(states).filter(|v| *v > 0) {
        let subject = words[..v].join(" ");
        let (rest, rest_lower) = (&words[v + 1..], &lower[v + 1..]);
        let names_a_place =
            |w: &&str| w.contains('/') || w.starts_with(|c: char| c == '~' || c.is_uppercase());
        // "is mad cluttered w dupes": what it is full of, after the words saying how much.
        let at = rest_lower
            .iter()
            .take_while(|w| lex.intensifiers.contains(*w))
            .count();
        let filled = lex.filled_with.iter().find_map(|p| {
            let p: Vec<&str> = p.split(' ').collect();
            let said = rest_lower.len() > at + p.len()
                && rest_lower[at..at + p.len()].iter().zip(&p).all(|(w, p)| {
                    w == p
                    // "cluttered w dupes": the casual word for the phrase's own.
                    || lex.synonyms.get(w).is_some_and(|s| s == p)
                });
            said.then_some(at + p.len())
        });
        if let Some(from) = filled {
            return Some(format!("{} in {subject}", rest[from..].join(" ")));
        }
        if let Some(named) = what_they_are_and_where(&lower[v], rest, rest_lower) {
            return Some(named);
        }
        if let Some(named) = files_said_to_be(&lower[v], &words[..v], rest) {
            return Some(named);
        }
        // "lmao Lab/Old Runs has a ton of empty dirs": what a place has, after the words saying
        // how much, is in it.
        let place_at = words[..v].iter().position(names_a_place);
        if lex.possession_verbs.contains(&lower[v])
            && let Some(p) = place_at
        {
            let from = rest_lower
                .iter()
                .take_while(|w| lex.quantity_words.contains(*w) || lex.intensifiers.contains(*w))
                .count();
            // "track 12.mp3 has no proper name": what it lacks is not in it.
            let lacks = rest_lower
                .get(from)
                .is_some_and(|w| matches!(w.as_str(), "no" | "nothing" | "none"));
            // "Desktop/old.zip has served its purpose", "… has done its job": a verb with its
            // own object says what the place did, not what it has.
            let did = rest_lower.get(from + 1).is_some_and(|w| {
                matches!(
                    w.as_str(),
                    "its" | "his" | "her" | "their" | "my" | "our" | "your"
                )
            });
            if from < rest.len() && !lacks && !did {
                return Some(format!(
                    "{} in {}",
                    rest[from..].join(" "),
                    words[p..v].join(" ")
                ));
            }
        }
        // "somewhere in Documents is that tax office letter about my refund": what is in a
        // place said first.
        if matches!(lower[0].as_str(), "somewhere" | "in") && !rest.is_empty() {
            let place = words[..v]
                .iter()
                .skip_while(|w| w.eq_ignore_ascii_case("somewhere"))
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            return Some(format!("{} {place}", rest.join(" ")));
        }
        if rest_lower.first().is_some_and(|w| w.ends_with("ing")) {
            let place: Vec<&str> = rest[1..]
                .iter()
                .skip_while(|w| ["up", "in", "on", "the"].contains(&w.to_lowercase().as_str()))
                .copied()
                .collect();
            if place.first().is_some_and(names_a_place) {
                return Some(format!("{subject} in {}", place.join(" ")));
            }
        }
    }
    if let Some(named) = what_landed_where(&words, &lower) {
        return Some(named);
    }
    if let Some(named) = what_was_done_to(&words, &lower) {
        return Some(named);
    }
    // "Grandpa wants the finished puzzle photo too, Pictures/Jigsaws/Venice 1000.jpg": a path
    // said last, after a comma, names what the words before it describe.
    let appositive = header
        .trim_end_matches([',', ':', ' '])
        .rsplit_once(", ")
        .map(|(_, last)| last.trim())
        .filter(|last| {
            last.split_whitespace()
                .next()
                .is_some_and(|w| w.contains('/'))
        });
    if let Some(last) = appositive.filter(|_| !has_action(header, verbs)) {
        return Some(last.to_owned());
    }
    // "the bowls club sent Downloads/league-handbook.zip": a file said last is what was sent.
    // (Not a path with spaces said alone: "Reading List/Week 9/hooks.pdf".)
    if let [.., before, last] = words.as_slice()
        && last.contains('/')
        && last.contains('.')
        && before.chars().all(|c| c.is_lowercase())
        && !has_action(header, verbs)
        && !lower.iter().any(|w| is_question_word(w))
    {
        return Some((*last).to_owned());
    }
    (!has_action(header, verbs) && !lower.iter().any(states)).then(|| words.join(" "))
}

/// "my old phone saved the pictures in Pictures/Terrariums as .jpeg": what a verb in the past
/// did something to, up to a word that says how or why ("the pictures in Pictures/Terrariums");
/// a later "them" is those. Only with a place among them.
fn what_was_done_to(words: &[&str], lower: &[String]) -> Option<String> {
    const WHICH: &[&str] = &[
        "the", "my", "our", "all", "every", "those", "these", "his", "her",
    ];
    const ENDS: &[&str] = &[
        "as", "because", "so", "when", "since", "before", "after", "but", "while", "and",
    ];
    let v = (1..lower.len().saturating_sub(1)).find(|&i| {
        lower[i].len() > 4 && lower[i].ends_with("ed") && WHICH.contains(&lower[i + 1].as_str())
    })?;
    let end = (v + 1..words.len())
        .find(|&i| ENDS.contains(&lower[i].as_str()))
        .unwrap_or(words.len());
    let object = &words[v + 1..end];
    object
        .iter()
        .any(|w| w.contains('/'))
        .then(|| object.join(" "))
}

/// "the scans landed in Imports/Dig card 2026": what arrived somewhere, in that place ("the
/// scans in Imports/Dig card 2026"); a later "them" is those. Three kinds or more listed
/// ("trench photos, context sheets and finds lists") are everything there.
fn what_landed_where(words: &[&str], lower: &[String]) -> Option<String> {
    const ARRIVED: &[&str] = &["came", "went", "got", "arrived", "landed", "ended", "wound"];
    let v = lower.iter().position(|w| ARRIVED.contains(&w.as_str()))?;
    let prep = v + 1 + usize::from(lower.get(v + 1).is_some_and(|w| w == "up"));
    let place = words.get(prep + 1)?;
    let into = matches!(
        lower.get(prep)?.as_str(),
        "in" | "into" | "on" | "onto" | "under" | "inside"
    );
    let subject: Vec<&str> = words[..v]
        .iter()
        .copied()
        .filter(|w| !w.eq_ignore_ascii_case("all"))
        .collect();
    // "photos, sheets and lists": three kinds or more are what the place holds, not a filter.
    let commas = subject.iter().filter(|w| w.ends_with(',')).count();
    let listed = commas >= 2 || commas == 1 && subject.contains(&"and");
    let what = if listed {
        "everything".to_owned()
    } else {
        subject.join(" ")
    };
    (v > 0 && into && place.contains('/') && !subject.is_empty())
        .then(|| format!("{what} in {}", words[prep + 1..].join(" ")))
}

/// "some files in 3D printing/Models are totally blank, zero bytes", "the videos in Downloads
/// are over 2 GB": files of a place and what they are said to be (empty, old, big) are the files
/// a later "those" acts on, with what is said of them ("some files in … totally blank, zero
/// bytes").
fn files_said_to_be(verb: &str, subject: &[&str], rest: &[&str]) -> Option<String> {
    // ("… are IMG_5512.jpg, IMG_5513.jpg and so on" says how they are named.)
    let names_files = rest.iter().any(|w| {
        w.contains('/') || crate::rules::looks_like_file(w.trim_end_matches([',', ';', '.']))
    });
    if !matches!(verb, "is" | "are" | "was" | "were" | "'re") || rest.is_empty() || names_files {
        return None;
    }
    let lower: Vec<String> = subject
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let kind_at = lower
        .iter()
        .position(|w| crate::rules::extract::names_a_kind_of_thing(w))?;
    let in_a_place = subject[kind_at + 1..].windows(2).any(|pair| {
        matches!(pair[0].to_lowercase().as_str(), "in" | "inside" | "under")
            && (pair[1].contains('/')
                || pair[1].starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()))
    });
    in_a_place.then(|| format!("{} {}", subject.join(" "), rest.join(" ")))
}

/// "the e-books I bought are .epub files scattered in Downloads": after "is"/"are", the kind of
/// file they are and the place said after it ("epub files in Downloads").
fn what_they_are_and_where(verb: &str, rest: &[&str], rest_lower: &[String]) -> Option<String> {
    const PLACING: &[&str] = &[
        "in",
        "on",
        "across",
        "around",
        "all",
        "over",
        "under",
        "inside",
        "throughout",
    ];
    if !matches!(verb, "is" | "are" | "was" | "were" | "'re") {
        return None;
    }
    let from = rest_lower
        .iter()
        .take_while(|w| matches!(w.as_str(), "a" | "the" | "all" | "just" | "mostly" | "some"))
        .count();
    let end = from
        + rest_lower[from..].iter().position(|w| {
            w.ends_with("ed") || w.ends_with("ing") || PLACING.contains(&w.as_str())
        })?;
    let kinds = &rest[from..end];
    let a_kind = |w: &&str| {
        w.starts_with('.') || crate::rules::extract::names_a_kind_of_thing(&w.to_lowercase())
    };
    if kinds.is_empty() || !kinds.iter().any(a_kind) {
        return None;
    }
    let place_at = end
        + rest_lower[end..].iter().position(|w| {
            !(w.ends_with("ed") || w.ends_with("ing") || PLACING.contains(&w.as_str()))
        })?;
    let place = &rest[place_at..];
    place
        .first()
        .is_some_and(|w| w.contains('/') || w.starts_with(|c: char| c == '~' || c.is_uppercase()))
        .then(|| format!("{} in {}", kinds.join(" "), place.join(" ")))
}

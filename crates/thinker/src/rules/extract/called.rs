//! Names said with "called"/"named" or after "file", and file names given only as examples of
//! how files are named ("all called chat (1).txt, chat (2).txt and so on"). Pure.

use super::lexicon::*;
use super::{Slots, cut, never_in_a_name, places, unquote};

/// "twenty files all called chat (1).txt, chat (2).txt and so on": names given as examples of
/// how files are named, no file to act on. They go from `text` (placeholders into `quoted`).
pub(super) fn drop_example_names(text: &mut String, quoted: &[String]) {
    while let Some(m) = EXAMPLES_AND_SO_ON.find(text) {
        let named: Vec<&str> = m
            .as_str()
            .split('⟦')
            .skip(1)
            .filter_map(|p| p.split_once('⟧'))
            .filter_map(|(n, _)| n.parse::<usize>().ok())
            .filter_map(|n| quoted.get(n).map(String::as_str))
            .collect();
        if named.is_empty()
            || named
                .iter()
                .any(|n| n.contains('/') || !crate::rules::looks_like_file(n))
        {
            return;
        }
        cut(text, m.range());
    }
}

/// "called X", or a hyphenated name after "skill" ("create a skill music-renamer").
pub(super) fn read_called(
    s: &mut Slots,
    text: &mut String,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    if let Some(c) = CALLED.captures(text) {
        let raw = c
            .get(1)
            .or(c.get(2))
            .or(c.get(3))
            .or(c.get(4))
            .or(c.get(5))
            .or(c.get(6))
            .or(c.get(7))
            .map_or("", |m| m.as_str());
        let mut name = lookup(raw).unwrap_or_else(|| unquote(raw));
        let mut end = c.get(0).expect("match").end();
        if let Some((file, file_end)) = file_named_after(text, &name, end, lookup) {
            name = format!("{name} {file}");
            end = file_end;
        } else if let Some((words, words_end)) = words_after_a_name(text, &name, end) {
            name = format!("{name} {words}");
            end = words_end;
        }
        // "zip up Pictures/Kyoto, call it Backup/kyoto-trip.zip": an archive's path is the one
        // to make, not a name to look for.
        // "move the pdfs into a new folder called Taxes", "put the spare copies in a folder
        // called Pictures/Doubles": the folder they go to.
        let into_a_folder = INTO_A_FOLDER.is_match(&text[..c.get(0).expect("match").start()]);
        if name.contains('/') && places::is_archive_name(&name) || into_a_folder {
            s.targets.push(name);
        } else {
            s.name = Some(name);
        }
        // "rename it tokyo-crossing.jpg": "it" still points back.
        let r = c
            .get(2)
            .map_or(c.get(0).expect("match").start()..end, |m| m.range());
        cut(text, r);
    } else if let Some(c) = FILE_THEN_A_WORD.captures(text) {
        // "make a text file vet questions.txt": the words after "file" up to a file's name
        // are that name, as after "called".
        let first = c.get(1).expect("group");
        if let Some((file, end)) = file_named_after(text, first.as_str(), first.end(), lookup) {
            s.name = Some(format!("{} {file}", first.as_str()));
            cut(text, first.start()..end);
        }
    }
}

/// "a folder named Rainforest diorama inside Documents/…": one or two words in lower case after
/// a name of one word written with a capital go on it when where it goes, a link or the end
/// follows them ("called Taxes please" is Taxes). The words and the index after them in `text`.
fn words_after_a_name(text: &str, name: &str, from: usize) -> Option<(String, usize)> {
    let single_capital = name.starts_with(char::is_uppercase)
        && name.chars().skip(1).all(char::is_lowercase)
        && name.len() > 1;
    if !single_capital || !text[from..].starts_with(' ') {
        return None;
    }
    let words: Vec<&str> = text[from..].split(' ').skip(1).take(3).collect();
    let ends_after = |k: usize| {
        words[k - 1].ends_with([',', ';', ':', '.', '!', '?'])
            || words.get(k).is_none_or(|w| {
                let w = w.to_lowercase();
                places::LOCATION_PREPS.contains(&w.as_str())
                    || places::TARGET_PREPS.contains(&w.as_str())
                    || matches!(w.as_str(), "and" | "then" | "as" | "for")
            })
    };
    (1..=2).find_map(|k| {
        let run = words.get(..k)?;
        let (last, inside) = run.split_last()?;
        let bare = last.trim_end_matches([',', ';', ':', '.', '!', '?']);
        (inside
            .iter()
            .all(|w| super::paths::tail_word(w) && !w.ends_with([',', ';', ':', '.', '!', '?']))
            && super::paths::tail_word(bare)
            && ends_after(k))
        .then(|| {
            let said: Vec<&str> = inside.iter().copied().chain([bare]).collect();
            let len: usize =
                run.iter().map(|w| w.len() + 1).sum::<usize>() - (last.len() - bare.len());
            (said.join(" "), from + len)
        })
    })
}

/// "a note called packing list.txt": up to two more words in lower case after a name of one
/// word, ending in a file's name (a placeholder), go on the name. The rest of the name and the
/// index after it in `text`.
fn file_named_after(
    text: &str,
    name: &str,
    from: usize,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, usize)> {
    let plain = |w: &str| w.len() > 1 && w.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    // ("named like scan_0043.pdf" gives an example, no name.)
    if !plain(name) || never_in_a_name(name) || name == "like" || !text[from..].starts_with(' ') {
        return None;
    }
    let mut words = Vec::new();
    let mut at = from;
    for raw in text[from..].split(' ').skip(1).take(3) {
        at += 1 + raw.len();
        let bare = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
        if let Some(file) =
            lookup(bare).filter(|f| !f.contains('/') && crate::rules::looks_like_file(f))
        {
            words.push(file);
            return Some((words.join(" "), at - (raw.len() - bare.len())));
        }
        if !plain(raw) || never_in_a_name(raw) || words.len() == 1 {
            return None;
        }
        words.push(raw.to_owned());
    }
    None
}

//! The lexicon's phrases read in a clause: casual phrases in the words the skills use, phrasal
//! verbs around what they act on, and a kind said with itself. Pure.

use crate::rules::lexicon::lexicon;

/// `t` (lower case) with the lexicon's phrases in the words the skills use, in file order. A
/// phrasal verb is read with what it acts on inside it too: "sum it up" as "sum up" is read
/// ("summarize it"), "back them up" as "copy them".
pub(super) fn phrases_read(t: &str) -> String {
    let lex = lexicon();
    let mut t = t.to_owned();
    for (from, to) in &lex.phrases {
        if let Some((verb, particle)) = from.trim().split_once(' ')
            && lex.verb_particles.contains(particle)
            && t.contains(&format!(" {verb} "))
        {
            t = phrasal_around_a_name(&t, verb, particle, to.trim());
            for pronoun in [
                "it",
                "them",
                "'em",
                "em",
                "those",
                "these",
                "everything",
                "all",
            ] {
                t = t.replace(
                    &format!(" {verb} {pronoun} {particle} "),
                    &format!(" {} {pronoun} ", to.trim()),
                );
            }
        }
        t = t.replace(from.as_str(), to);
    }
    like_with_like(&t)
}

/// "back ⟦0⟧ up to …", "back that folder up", "back its folder ⟦0⟧ up": a phrasal verb with a
/// name (a placeholder, or the gap a masked name leaves) or a folder said as such between its
/// verb and its particle, read as `to` with what it acts on after it.
fn phrasal_around_a_name(t: &str, verb: &str, particle: &str, to: &str) -> String {
    // (A run of spaces is one gap.)
    let mut words: Vec<&str> = t.split(' ').collect();
    words.dedup_by(|a, b| a.is_empty() && b.is_empty());
    // A name masked out of the text leaves two spaces, an empty word between them.
    let placeholder = |w: &str| w.is_empty() || w.starts_with('⟦') && w.ends_with('⟧');
    let pointing = |w: &str| matches!(w, "that" | "this" | "the" | "its" | "my" | "your");
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let between = if words[i] == verb {
            (1..=3).find(|&k| {
                words.get(i + 1 + k) == Some(&particle)
                    && match &words[i + 1..i + 1 + k] {
                        [name] => placeholder(name),
                        [p, f] => pointing(p) && crate::rules::extract::is_folder_noun(f),
                        [p, f, name] => {
                            pointing(p)
                                && crate::rules::extract::is_folder_noun(f)
                                && placeholder(name)
                        }
                        _ => false,
                    }
            })
        } else {
            None
        };
        match between {
            Some(k) => {
                out.push(to.to_owned());
                out.extend(words[i + 1..i + 1 + k].iter().map(|w| (*w).to_owned()));
                i += k + 2;
            }
            None => {
                out.push(words[i].to_owned());
                i += 1;
            }
        }
    }
    out.join(" ")
}

/// "pdfs with pdfs and images with images": a kind of thing said with itself asks for each
/// kind together, read as grouping by type.
fn like_with_like(t: &str) -> String {
    let words: Vec<&str> = t.split_whitespace().collect();
    if !words.windows(3).any(|w| w[1] == "with" && w[0] == w[2]) {
        return t.to_owned();
    }
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if words.get(i + 1) == Some(&"with")
            && words.get(i + 2) == Some(&w)
            && w.len() > 3
            && w.ends_with('s')
        {
            out.extend([w, "grouped", "by", "type"]);
            i += 3;
        } else {
            out.push(w);
            i += 1;
        }
    }
    format!(" {} ", out.join(" "))
}

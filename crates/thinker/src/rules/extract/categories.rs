//! The person's own categories named in a request: "into Invoices, Recipes and Meeting notes".

/// A list of two or more names after the clause's last "into" (or a colon): each one to three words starting
/// with a capital (or quoted), separated by commas, "and", "or". Returns the names and the range
/// they (with "into") take in `text`.
pub(super) fn category_list(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Option<(Vec<String>, std::ops::Range<usize>)> {
    // After the last "into", or a colon ("by topic: Tax, Medical, Car"), or "under" ("every
    // pdf belongs under Proteomics, Imaging or Methods"): the last of them that lists names.
    let mut starts: Vec<(usize, usize)> = [" into ", ": ", " under ", " among "]
        .iter()
        .filter_map(|m| text.rfind(m).map(|i| (i, i + m.len())))
        .collect();
    starts.sort_unstable_by(|a, b| b.cmp(a));
    starts.into_iter().find_map(|(start, from)| {
        names_listed(&text[from..], lookup).map(|n| (n, start..text.len()))
    })
}

/// The names `tail` lists, two or more, up to how to sort or a remark after a dash.
fn names_listed(tail: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<Vec<String>> {
    // "… into Family, Bank and Doctor — then list …": the dash before the next clause.
    let tail = tail.trim_end_matches(['.', '!', '?', ' ', '—', '–']);
    // "into Work, Family and Health by what they're about", "… based on content": how to sort
    // is not a category; nor is a remark after a dash ("… or Methods — judge by the topic").
    let tail = [
        " by ",
        " based on ",
        " depending on ",
        " according to ",
        " judging ",
        " going by ",
        " — ",
        " – ",
        " - ",
    ]
    .iter()
    .filter_map(|w| tail.find(w))
    .min()
    .map_or(tail, |i| &tail[..i])
    // "… or Medical, judging by its subject matter": the comma before the remark.
    .trim_end_matches([',', ' ']);
    let mut list = format!(" {tail} ");
    for sep in [" and ", " or ", " & ", ";"] {
        list = list.replace(sep, ",");
    }
    let mut names = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        let item = item
            .strip_prefix("the ")
            .unwrap_or(item)
            .trim_end_matches(" folders")
            .trim_end_matches(" folder");
        if let Some(q) = lookup(item) {
            names.push(q);
            continue;
        }
        let mut words: Vec<&str> = item.split_whitespace().collect();
        // "auf Versicherung, Schule und Finanzamt verteilen" read as "… Finanzamt sort": a verb
        // said after the list (German puts it last) is no part of a name.
        while words.len() > 1
            && words.last().is_some_and(|w| {
                w.starts_with(char::is_lowercase)
                    && crate::rules::lexicon::lexicon().action_verbs.contains(*w)
            })
        {
            words.pop();
        }
        let named = !words.is_empty()
            && words.len() <= 3
            && words[0].starts_with(|c: char| c.is_uppercase())
            && words
                .iter()
                .all(|w| w.chars().all(|c| c.is_alphanumeric() || "-'&".contains(c)));
        if !named {
            return None;
        }
        names.push(words.join(" "));
    }
    (names.len() >= 2).then_some(names)
}

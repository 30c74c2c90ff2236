//! "Did you mean …?" suggestions for misspelt keys, methods and params.

/// Levenshtein distance between two strings.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The option closest to `word`, if it is close enough to be a plausible typo.
pub fn closest<'a>(word: &str, options: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    options
        .into_iter()
        .map(|o| (edit_distance(word, o), o))
        .filter(|(d, o)| *d <= 3.max(o.len() / 3))
        .min()
        .map(|(_, o)| o)
}

#[cfg(test)]
mod tests {
    #[test]
    fn suggestions() {
        assert_eq!(super::edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            super::closest("move_nod", ["get_children", "move_node"]),
            Some("move_node")
        );
        assert_eq!(super::closest("zzzzzzzz", ["move_node"]), None);
    }
}

//! Markup to text: HTML and the XML inside office documents lose their tags, scripts and
//! styles; block elements end lines and character entities are decoded.

/// Local names (after any `ns:` prefix) of elements that end a line of text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "blockquote",
    "br",
    "dd",
    "div",
    "dt",
    "footer",
    "h",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "p",
    "pre",
    "section",
    "si",
    "table",
    "title",
    "tr",
];

/// The text of an HTML or XML document, one block per line, whitespace collapsed within lines.
pub fn markup_to_text(markup: &str) -> String {
    let lower = markup.to_ascii_lowercase();
    let mut out = String::with_capacity(markup.len() / 2);
    let mut i = 0;
    while i < markup.len() {
        let rest = &markup[i..];
        if rest.starts_with("<!--") {
            i += rest.find("-->").map_or(rest.len(), |p| p + 3);
            continue;
        }
        if rest.starts_with('<') {
            let close = rest.find('>').map_or(rest.len(), |p| p + 1);
            let tag = &rest[..close];
            let name = tag_name(tag);
            i += close;
            if matches!(name.as_str(), "script" | "style") && !tag.starts_with("</") {
                let end = format!("</{name}");
                i = lower[i..]
                    .find(&end)
                    .map_or(markup.len(), |p| i + p + end.len());
                i += markup[i..].find('>').map_or(0, |p| p + 1);
                continue;
            }
            if BLOCKS.contains(&name.as_str()) {
                out.push('\n');
            } else if name == "tab" || name == "td" || name == "th" || name == "table-cell" {
                out.push('\t');
            } else {
                out.push(' ');
            }
            continue;
        }
        let next = rest.find('<').unwrap_or(rest.len());
        out.push_str(&decode_entities(&rest[..next]));
        i += next;
    }
    tidy(&out)
}

/// The `<title>` of an HTML page (or `<dc:title>` of office metadata), entities decoded.
pub fn title_of(markup: &str) -> Option<String> {
    element_text(markup, "title").or_else(|| element_text(markup, "dc:title"))
}

/// The text of the first `<name>…</name>` element, tags inside removed.
pub fn element_text(markup: &str, name: &str) -> Option<String> {
    let lower = markup.to_ascii_lowercase();
    let open = format!("<{name}");
    let mut from = 0;
    let start = loop {
        let p = lower[from..].find(&open)? + from;
        let after = lower.as_bytes().get(p + open.len()).copied();
        if matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
            break p;
        }
        from = p + open.len();
    };
    let body = start + markup[start..].find('>')? + 1;
    let end = lower[body..].find(&format!("</{name}>"))? + body;
    let text = tidy(&markup_to_text(&markup[body..end])).replace('\n', " ");
    (!text.is_empty()).then_some(text)
}

fn tag_name(tag: &str) -> String {
    let inner = tag.trim_start_matches('<').trim_start_matches('/');
    let name: String = inner
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '>' && *c != '/')
        .collect::<String>()
        .to_ascii_lowercase();
    match name.rsplit_once(':') {
        Some((_, local)) => local.to_owned(),
        None => name,
    }
}

/// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`, `&#233;` and `&#xE9;` decoded; other
/// entities kept as written.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest.find(';').filter(|e| *e <= 10);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => ' ',
                "mdash" => '—',
                "ndash" => '–',
                "hellip" => '…',
                "copy" => '©',
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whitespace collapsed within each line (tabs kept as one separator), blank lines dropped.
fn tidy(text: &str) -> String {
    text.lines()
        .map(|l| {
            l.split('\t')
                .map(|cell| cell.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
                .join("\t")
        })
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_loses_tags_scripts_and_styles_and_keeps_blocks() {
        let html = "<html><head><title>Q3 &amp; Q4</title><style>p{}</style></head>\
                    <body><h1>Report</h1><p>Hello <b>world</b>&nbsp;&#233;t&#xE9;</p>\
                    <script>if (a < b) x()</script><!-- note --><ul><li>one</li><li>two</li></ul>\
                    <table><tr><td>a</td><td>b</td></tr></table></body></html>";
        expect_test::expect![[r#"
            Q3 & Q4
            Report
            Hello world été
            one
            two
            a	b"#]]
        .assert_eq(&markup_to_text(html));
        assert_eq!(title_of(html).as_deref(), Some("Q3 & Q4"));
    }

    #[test]
    fn office_xml_paragraphs_become_lines() {
        let xml = r#"<w:document><w:body><w:p><w:r><w:t>First</w:t></w:r><w:r><w:tab/><w:t>line</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">Second &lt;line&gt;</w:t></w:r></w:p></w:body></w:document>"#;
        assert_eq!(markup_to_text(xml), "First\tline\nSecond <line>");
    }

    #[test]
    fn unknown_and_unterminated_entities_are_kept() {
        assert_eq!(
            decode_entities("a &foo; b & c &#xZZ;"),
            "a &foo; b & c &#xZZ;"
        );
        assert_eq!(element_text("<titles>x</titles>", "title"), None);
    }
}

//! Requests in German, French and Dutch (and English filler) read the way a speaker means them,
//! through the shipped skills and the rule planner. One case per reading that was once wrong
//! (issue 19, dev9 set).

mod support;

use serde_json::json;
use support::check_readings as check;

#[test]
fn german_phrases_with_no_word_for_word_english() {
    check(&[
        (
            "Imkerei/Stockkarten: zeig mir jede Datei, Unterordner eingeschlossen",
            &["manage-files/list"],
            &[(0, "recursive", json!(true))],
        ),
        (
            "Brauerei/Sudprotokolle hat doppelte Dateien – behalte immer die mit dem kürzesten Pfad",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("shortest_path"))],
        ),
        (
            "Feuerwehr/Einsatzfotos monatsweise in Ordner einsortieren",
            &["organize-by-type/by_date"],
            &[(0, "path", json!("Feuerwehr/Einsatzfotos"))],
        ),
        // The verb left out, and "danach" after a comma opens the next step.
        (
            "Foodblog/Rezeptfotos: zuerst die Dubletten weg, danach nach Dateityp ordnen",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "organize-by-type/organize",
            ],
            &[(0, "path", json!("Foodblog/Rezeptfotos"))],
        ),
        (
            "Mietvertrag_Wohnheim_Zimmer_214.pdf – hab keine Ahnung mehr, in welchem Ordner der liegt",
            &["search-files/find"],
            // Looked for by its name everywhere, not read as a folder.
            &[
                (0, "name", json!("Mietvertrag_Wohnheim_Zimmer_214.pdf")),
                (0, "path", json!(".")),
                (0, "recursive", json!(true)),
            ],
        ),
        (
            "FITS nach PNG konvertieren – kannst du das von Haus aus?",
            &["skill-search/search"],
            &[],
        ),
        // A file's name keeps its German month.
        (
            "schieb Downloads/Dienstplan Feuerwehr Dezember 2026.pdf nach Feuerwehr/Dienstpläne",
            &["manage-files/move"],
            &[(
                0,
                "source",
                json!(["Downloads/Dienstplan Feuerwehr Dezember 2026.pdf"]),
            )],
        ),
    ]);
}

#[test]
fn french_and_dutch_words_and_english_filler() {
    check(&[
        // The adjective after the noun.
        (
            "montre-moi les 12 fichiers les plus lourds in Vidéo/Rendus, merci",
            &["analyze-directory/analyze"],
            &[(0, "top_n", json!(12))],
        ),
        (
            "kun je Zeilclub/reglement-2027.txt even voorlezen? need the rules for sunday",
            &["parse-content/extract_text"],
            &[(0, "path", json!("Zeilclub/reglement-2027.txt"))],
        ),
        (
            "curious before I commit: Dorm Move-Out/Laptop Desktop split up by type — what would the count be in each category?",
            &["organize-by-type/preview_categories"],
            &[(0, "path", json!("Dorm Move-Out/Laptop Desktop"))],
        ),
    ]);
}

//! Every tool of every shipped skill, both ways a person reaches it: `scope-weaver tool` with
//! parameters, and a request in plain words that the default (rule) planner plans into that tool.
//! Runs on the demo folder; nothing is committed except the archive the archive tools read.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::Env;

/// One tool: a request that must plan to it, and parameters for `scope-weaver tool`.
struct Case {
    skill: &'static str,
    tool: &'static str,
    request: &'static str,
    params: &'static [&'static str],
    /// A sibling tool of the same primitive operation the planner may pick instead (it runs the
    /// same call), named here so the overlap stays visible.
    same_as: Option<&'static str>,
}

const fn case(
    skill: &'static str,
    tool: &'static str,
    request: &'static str,
    params: &'static [&'static str],
) -> Case {
    Case {
        skill,
        tool,
        request,
        params,
        same_as: None,
    }
}

const CASES: &[Case] = &[
    case(
        "analyze-directory",
        "analyze",
        "give me a full breakdown of what is taking up space in Downloads",
        &["path=Downloads"],
    ),
    case(
        "analyze-directory",
        "summary",
        "how many files are in Documents and how big is it",
        &["path=Documents"],
    ),
    Case {
        same_as: Some("search-files/find_large"),
        ..case(
            "analyze-directory",
            "largest",
            "which files in Downloads are bigger than 1 KB",
            &["path=Downloads", "min_size=1KB"],
        )
    },
    case(
        "archive-files",
        "create",
        "zip the Documents folder",
        &[
            "source=Documents",
            "target=Documents.tar.zst",
            "format=tar.zst",
        ],
    ),
    case(
        "archive-files",
        "list",
        "what is inside Downloads/docs.zip",
        &["path=Downloads/docs.zip"],
    ),
    case(
        "archive-files",
        "extract",
        "unpack Downloads/docs.zip",
        &["path=Downloads/docs.zip"],
    ),
    case(
        "batch-rename",
        "rename",
        "rename the photos in Downloads to beach_001.jpg, beach_002.jpg",
        &[
            "source=Downloads/beach.jpg",
            "source=Downloads/beach (1).jpg",
            "pattern=beach_{n:03}.{ext}",
        ],
    ),
    Case {
        same_as: Some("manage-files/rename"),
        ..case(
            "batch-rename",
            "rename_one",
            "rename notes.txt to todo.txt",
            &["path=Downloads/notes.txt", "new_name=todo.txt"],
        )
    },
    case(
        "manage-files",
        "list",
        "list what is in Downloads",
        &["path=Downloads"],
    ),
    case(
        "manage-files",
        "create",
        "create a folder called Invoices in Documents",
        &["path=Documents", "name=Invoices", "type=dir"],
    ),
    case(
        "manage-files",
        "move",
        "move setup.exe to Documents",
        &["source=Downloads/setup.exe", "target=Documents"],
    ),
    case(
        "manage-files",
        "copy",
        "copy notes.txt into Documents",
        &["source=Downloads/notes.txt", "target=Documents"],
    ),
    case(
        "manage-files",
        "rename",
        "rename the Pictures folder to Photos",
        &["path=Pictures", "new_name=Photos"],
    ),
    case(
        "manage-files",
        "delete",
        "delete setup.exe",
        &["path=Downloads/setup.exe"],
    ),
    case(
        "manage-files",
        "get_metadata",
        "show the details of notes.txt",
        &["path=Downloads/notes.txt"],
    ),
    Case {
        same_as: Some("search-files/find"),
        ..case(
            "manage-files",
            "find",
            "locate the folder named old in Downloads",
            &["path=Downloads", "name=old"],
        )
    },
    case(
        "organize-by-type",
        "organize",
        "sort Downloads into folders by file type",
        &["path=Downloads"],
    ),
    case(
        "organize-by-content",
        "classify",
        "sort the documents in Downloads into Work and Home",
        &["path=Downloads", "categories=Work, Home"],
    ),
    case(
        "organize-by-content",
        "sort",
        "file the papers in Downloads by topic",
        &[r#"assignments=[{"path": "Downloads/notes.txt", "folder": "Downloads/Notes"}]"#],
    ),
    case(
        "parse-content",
        "summarize",
        "summarize Downloads/notes.txt",
        &["path=Downloads/notes.txt"],
    ),
    case(
        "manage-files",
        "tag",
        "tag Downloads/notes.txt with Meetings",
        &["source=Downloads/notes.txt", "add=Meetings"],
    ),
    case(
        "organize-by-content",
        "tag",
        "tag the documents in Downloads by topic instead of moving them",
        &[r#"assignments=[{"path": "Downloads/notes.txt", "category": "Notes"}]"#],
    ),
    case(
        "organize-by-content",
        "name",
        "suggest names for the files in Downloads",
        &["path=Downloads"],
    ),
    case(
        "organize-by-content",
        "rename",
        "rename the files in Downloads by what they are about",
        &[r#"names=[{"path": "Downloads/notes.txt", "name": "Meeting notes"}]"#],
    ),
    case(
        "organize-by-type",
        "by_date",
        "sort the photos in Downloads into folders by the month they were taken",
        &["path=Downloads", "extension=jpg"],
    ),
    case(
        "organize-by-type",
        "preview_categories",
        "how many files of each type are in Downloads, without moving anything",
        &["path=Downloads"],
    ),
    case(
        "parse-content",
        "extract_text",
        "read notes.txt",
        &["path=Downloads/notes.txt"],
    ),
    case(
        "parse-content",
        "metadata",
        "read the title and author of lease.docx",
        &["path=Downloads/lease.docx"],
    ),
    case(
        "remove-duplicates",
        "scan",
        "find duplicate files in Downloads",
        &["path=Downloads"],
    ),
    case(
        "remove-duplicates",
        "remove",
        "remove duplicates in Downloads and keep the newest",
        &[
            r#"groups=[["Downloads/beach.jpg","Downloads/beach (1).jpg","Downloads/old/beach.jpg"]]"#,
            "keep=newest",
        ],
    ),
    case(
        "search-files",
        "search",
        "find the document that talks about the lease deposit",
        &["query=lease deposit"],
    ),
    case(
        "search-files",
        "find",
        // By extension alone is manage-files' find ("locate by name, glob or extension"); a date
        // is what this one filters by.
        "find pdf files in Downloads older than 30 days",
        &["path=Downloads", "extension=pdf"],
    ),
    case(
        "search-files",
        "find_large",
        "find files over 1 MB in Downloads",
        &["path=Downloads", "min_size=1MB"],
    ),
    case(
        "search-files",
        "find_recent",
        "which files in Downloads changed in the last 7 days",
        &["path=Downloads", "modified_after=7days"],
    ),
    Case {
        same_as: Some("search-files/find"),
        ..case(
            "search-files",
            "find_empty",
            "find empty folders in Pictures",
            &["path=Pictures", "empty=true"],
        )
    },
    case(
        "skill-create",
        "create",
        "create a new skill called tidy-screenshots that sorts screenshots by month",
        &[
            "name=tidy-screenshots",
            "description=Sort screenshots into month folders",
        ],
    ),
    case(
        "skill-search",
        "search",
        "which skill can compress files",
        &["query=compress files"],
    ),
];

/// The demo home (Downloads, Documents, Pictures) plus `Downloads/docs.zip`.
fn demo() -> (Env, String) {
    let env = Env::new(&[]);
    let root = env.root.path().join("home");
    let root_arg = root.to_str().unwrap().to_owned();
    let out = env.run(&["demo", &root_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let zipped = env.json(&[
        "tool",
        "archive-files",
        "create",
        "--root",
        &root_arg,
        "source=Documents",
        "target=Downloads/docs.zip",
        "--commit",
    ]);
    assert_eq!(zipped["committed"]["created"], 1, "{zipped}");
    (env, root_arg)
}

fn planned_tools(plan: &Value) -> Vec<String> {
    plan["plan"]["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| {
                    format!(
                        "{}/{}",
                        s["skill"].as_str().unwrap(),
                        s["tool"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_tool_runs_from_the_cli_and_from_a_request() {
    let (env, root) = demo();
    let skills_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let listed = env.json(&["skills", "list"]);
    let shipped: BTreeSet<String> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] != "skill-template")
        .flat_map(|s| {
            let name = s["name"].as_str().unwrap().to_owned();
            s["tools"]
                .as_object()
                .unwrap()
                .keys()
                .map(move |t| format!("{name}/{t}"))
                .collect::<Vec<_>>()
        })
        .collect();
    let covered: BTreeSet<String> = CASES
        .iter()
        .map(|c| format!("{}/{}", c.skill, c.tool))
        .collect();
    assert_eq!(
        covered, shipped,
        "every shipped tool has a case, and only those"
    );

    let before = super::files_below(Path::new(&root));
    let mut failures = Vec::new();
    for c in CASES {
        let id = format!("{}/{}", c.skill, c.tool);
        // Through the planner.
        let plan = env.json(&["plan", c.request, "--root", &root]);
        let tools = planned_tools(&plan);
        let accepted =
            tools.contains(&id) || c.same_as.is_some_and(|s| tools.iter().any(|t| t == s));
        if !accepted || !plan["clarification"].is_null() {
            failures.push(format!(
                "{id}: \"{}\" planned {tools:?} {}",
                c.request, plan["clarification"]
            ));
        }
        // Through `scope-weaver tool` (simulated: no --commit).
        let mut args = vec!["tool", c.skill, c.tool, "--root", root.as_str()];
        args.extend_from_slice(c.params);
        let mut all = vec!["--json"];
        all.extend_from_slice(&args);
        let out = env.run(&all);
        let body: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        if !out.status.success() || body["ok"] != true {
            failures.push(format!(
                "{id}: `scope-weaver {}` failed: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    // Nothing was written: the tools only simulated, the planner only planned.
    assert_eq!(super::files_below(Path::new(&root)), before);
    assert!(!skills_dir.join("tidy-screenshots").exists());
}

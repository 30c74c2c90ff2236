//! SKILL.md parsing and the SkillStore: the shipped skills, diagnostics on broken files, reload, scaffold.

use std::path::Path;

use expect_test::{Expect, expect};
use skills::{ReloadOutcome, SkillStore, engine_primitive_table, parse_skill_md, resolve};

fn table() -> contracts::PrimitiveTable {
    engine_primitive_table(sandbox::graph_primitive_table())
}

fn shipped_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

#[test]
fn every_shipped_skill_loads_cleanly() {
    let store = SkillStore::load(&shipped_dir(), table()).unwrap();
    let diags: Vec<String> = store
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        diags.is_empty(),
        "shipped skills have diagnostics:\n{}",
        diags.join("\n")
    );
    let listing: String = store
        .skills()
        .map(|s| {
            let d = &s.definition;
            let tools: Vec<String> = d
                .tools
                .values()
                .map(|t| {
                    format!(
                        "{}={}{}",
                        t.name,
                        t.primitive.operation(),
                        if t.mutates() { "*" } else { "" }
                    )
                })
                .collect();
            format!(
                "{} [{}] vis={} notes={}: {}\n",
                d.name,
                d.id,
                s.vis.is_some(),
                s.error_notes.len(),
                tools.join(" ")
            )
        })
        .collect();
    expect![[r#"
        analyze-directory [skill-analyze-directory-v1] vis=true notes=2: analyze=analyze_directory largest=find summary=get_metadata
        archive-files [skill-archive-files-v1] vis=true notes=3: create=create_archive* extract=extract_archive* list=list_archive
        batch-rename [skill-batch-rename-v1] vis=true notes=2: rename=batch_rename* rename_one=rename_node*
        manage-files [skill-manage-files-v1] vis=true notes=3: copy=copy_node* create=create_node* delete=delete_node* find=find get_metadata=get_metadata list=get_children move=move_node* rename=rename_node* tag=tag_files*
        organize-by-content [skill-organize-by-content-v1] vis=true notes=2: classify=classify name=suggest_names rename=rename_each* sort=move_into_folders* tag=tag_files*
        organize-by-type [skill-organize-by-type-v1] vis=true notes=3: by_date=organize_by_date* organize=organize_by_type* preview_categories=analyze_directory
        parse-content [skill-parse-content-v1] vis=true notes=2: extract_text=extract_text metadata=read_metadata summarize=summarize
        remove-duplicates [skill-remove-duplicates-v1] vis=true notes=3: remove=remove_duplicates* scan=find_duplicates
        search-files [skill-search-files-v1] vis=true notes=3: find=find find_empty=find find_large=find find_recent=find search=content_search
        skill-create [skill-skill-create-v1] vis=true notes=2: create=scaffold_skill*
        skill-search [skill-skill-search-v1] vis=true notes=2: search=skill_match
        skill-template [skill-skill-template-v1] vis=true notes=2: example_details=get_metadata example_find=find example_list=get_children
    "#]]
    .assert_eq(&listing);
    for s in store.skills() {
        assert!(
            s.definition.description.len() > 80,
            "{} has a thin description",
            s.definition.name
        );
        assert!(
            !s.definition.triggers.is_empty(),
            "{} has no triggers",
            s.definition.name
        );
    }
}

fn check(text: &str, expect: Expect) {
    let file = Path::new("skills/broken/SKILL.md");
    let (_, diags) = skills::check_skill_md(text, file, &table());
    let rendered: String = diags.iter().map(|d| format!("{d}\n")).collect();
    expect.assert_eq(&rendered);
}

#[test]
fn diagnostics_on_broken_files() {
    check(
        "# no frontmatter\n",
        expect![[r#"
        skills/broken/SKILL.md:1: error[MISSING_FRONTMATTER]: SKILL.md must start with YAML frontmatter between `---` lines (name, description, ...)
    "#]],
    );
    check(
        "---\nname: x\ndescription: y\n",
        expect![[r#"
        skills/broken/SKILL.md:1: error[UNCLOSED_FRONTMATTER]: the frontmatter opened on line 1 is never closed with `---`
    "#]],
    );
    check(
        "---\nname: [unclosed\ndescription: y\n---\n",
        expect![[r#"
        skills/broken/SKILL.md:3: error[YAML_SYNTAX]: frontmatter is not valid YAML: did not find expected ',' or ']'
    "#]],
    );
    check(
        "---\nname: Bad_Name\ntags: files\nkb_chunk_strategy: words\nkb_chunk_size: -5\ncolour: blue\ntopic: logs\n---\n",
        expect![[r#"
            skills/broken/SKILL.md:1: error[MISSING_FIELD]: frontmatter needs `description` (the text retrieval matches requests against)
            skills/broken/SKILL.md:2: warning[NAME_FORMAT]: name `Bad_Name` should be lowercase letters, digits and hyphens (at most 64)
            skills/broken/SKILL.md:3: error[BAD_FIELD]: `tags` must be a list, found text
            skills/broken/SKILL.md:4: error[BAD_FIELD]: `kb_chunk_strategy` must be one of fixed, sentence, paragraph, semantic, found `words`
            skills/broken/SKILL.md:5: error[BAD_FIELD]: `kb_chunk_size` must be a positive whole number, found -5
            skills/broken/SKILL.md:6: warning[UNKNOWN_FIELD]: unknown frontmatter field `colour` (ignored); known: name, id, version, description, tags, uses_retrieval, kb_chunk_strategy, kb_chunk_size, triggers, topic
            skills/broken/SKILL.md:7: error[BAD_FIELD]: `topic` must be a list, found text
        "#]],
    );
    check(
        r#"---
name: broken
description: Several broken tools in one file, all reported together.
uses_retrieval: true
---

### movee -- typo in the method
primitive: graph | method: move_nod | mutates: true | required: [source, target]

### sneaky -- claims not to mutate
primitive: graph | method: delete_node | mutates: false | required: [path]

### params -- wrong params
primitive: graph | method: move_node | mutates: true | required: [src] | optional: [overwrite]

### strange -- unknown primitive family
primitive: shell | command: rm

### half -- compact segment without a colon
primitive: graph | method get_children | required: [path]

### long -- long form with bad YAML
primitive: graph
method: find
required_params: [path
"#,
        expect![[r#"
            skills/broken/SKILL.md:4: warning[USES_RETRIEVAL_MISMATCH]: `uses_retrieval: true` but no tool uses a retrieval primitive; using false
            skills/broken/SKILL.md:7: error[UNKNOWN_METHOD]: tool `movee`: graph method `move_nod` does not exist; did you mean `move_node`? known: get_children, get_metadata, create_node, move_node, rename_node, delete_node, copy_node, find, analyze_directory, find_duplicates, remove_duplicates, organize_by_type, organize_by_date, move_into_folders, tag_files, rename_each, batch_rename, create_archive, list_archive, extract_archive, extract_text, read_metadata
            skills/broken/SKILL.md:10: error[MUTATES_MISMATCH]: tool `sneaky`: declares `mutates: false` but `delete_node` changes files, so approval in `key` mode depends on it
            skills/broken/SKILL.md:13: error[UNKNOWN_PARAM]: tool `params`: `move_node` does not take `src` (did you mean `source`?); it accepts: source, target, on_conflict
            skills/broken/SKILL.md:13: error[UNKNOWN_PARAM]: tool `params`: `move_node` does not take `overwrite`; it accepts: source, target, on_conflict
            skills/broken/SKILL.md:13: error[MISSING_REQUIRED_PARAM]: tool `params`: `move_node` requires `source`; list it under required
            skills/broken/SKILL.md:13: error[MISSING_REQUIRED_PARAM]: tool `params`: `move_node` requires `target`; list it under required
            skills/broken/SKILL.md:17: warning[UNKNOWN_KEY]: tool `strange`: unknown key `command` (ignored)
            skills/broken/SKILL.md:17: error[UNKNOWN_PRIMITIVE]: tool `strange`: primitive `shell` is not one of graph, retrieval, skill, llm
            skills/broken/SKILL.md:20: error[BAD_DECLARATION]: tool `half`: `method get_children` is not `key: value`
            skills/broken/SKILL.md:20: error[MISSING_KEY]: tool `half`: a graph primitive needs `method`
            skills/broken/SKILL.md:26: error[YAML_SYNTAX]: tool `long`: did not find expected ',' or ']'
        "#]],
    );
}

#[test]
fn code_fences_and_prose_headings_are_not_tools() {
    let text = "---\nname: fenced\ndescription: A skill whose docs show declarations inside code fences.\n---\n\n### About\nJust prose.\n\n```\n### fake\nprimitive: graph | method: nope\n```\n\n### real -- the one tool\nprimitive: graph | method: get_children | mutates: false | required: [path]\n\nProse after the declaration.\n";
    let file = Path::new("SKILL.md");
    let (draft, diags) = parse_skill_md(text, file);
    assert!(diags.is_empty(), "{diags:?}");
    let (def, diags) = resolve(&draft.unwrap(), &table(), file);
    assert!(diags.is_empty(), "{diags:?}");
    let def = def.unwrap();
    assert_eq!(def.tools.keys().collect::<Vec<_>>(), ["real"]);
    assert_eq!(
        def.tools["real"].signature,
        "graph.get_children(path: path) -> NodeList"
    );
    assert!(def.instructions.contains("Prose after the declaration."));
    assert!(def.instructions.contains("### fake"));
}

#[test]
fn long_and_compact_forms_are_equivalent() {
    let compact = "---\nname: a\ndescription: d\n---\n### move -- Move\nprimitive: graph | method: move_node | mutates: true | required: [source, target] | optional: [on_conflict]\n";
    let long = "---\nname: a\ndescription: d\n---\n### move -- Move\nprimitive: graph\nmethod: move_node\nmutates: true\nscope_enforced: true\nrequired_params:\n  - name: source\n    type: paths\n  - name: target\n    type: path\noptional_params:\n  - name: on_conflict\n    type: str\n";
    let f = Path::new("SKILL.md");
    let a = resolve(&parse_skill_md(compact, f).0.unwrap(), &table(), f)
        .0
        .unwrap();
    let b = resolve(&parse_skill_md(long, f).0.unwrap(), &table(), f)
        .0
        .unwrap();
    assert_eq!(a, b);
    assert!(a.tools["move"].mutates());
}

#[test]
fn plain_agent_skills_file_loads_as_instruction_only() {
    let text = "---\nname: pdf-tips\ndescription: How to work with PDF files; read when the user mentions PDFs.\nlicense: MIT\n---\n\n# PDF tips\n\nUse a real PDF library.\n";
    let f = Path::new("SKILL.md");
    let (draft, diags) = parse_skill_md(text, f);
    assert!(diags.is_empty(), "{diags:?}");
    let (def, diags) = resolve(&draft.unwrap(), &table(), f);
    assert!(diags.is_empty());
    let def = def.unwrap();
    assert!(def.is_instruction_only());
    assert_eq!(
        (def.id.as_str(), def.version.as_str()),
        ("skill-pdf-tips-v1", "1.0")
    );
    assert!(def.instructions.starts_with("# PDF tips"));
}

fn write(dir: &Path, folder: &str, text: &str) {
    std::fs::create_dir_all(dir.join(folder)).unwrap();
    std::fs::write(dir.join(folder).join("SKILL.md"), text).unwrap();
}

const GOOD: &str = "---\nname: good\ndescription: Lists folders.\n---\n### list\nprimitive: graph | method: get_children | mutates: false | required: [path]\n";

#[test]
fn one_bad_skill_never_stops_the_others_and_reload_keeps_the_last_good_version() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good", GOOD);
    write(dir.path(), "bad", "---\nname: bad\n---\n");
    std::fs::create_dir(dir.path().join("not-a-skill")).unwrap();
    let mut store = SkillStore::load(dir.path(), table()).unwrap();
    assert_eq!(
        store
            .skills()
            .map(|s| s.definition.name.as_str())
            .collect::<Vec<_>>(),
        ["good"]
    );
    let codes: Vec<&str> = store
        .diagnostics()
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["MISSING_FIELD", "NO_SKILL_FILE"]);

    // A description edit reloads and asks for re-embedding.
    write(
        dir.path(),
        "good",
        &GOOD.replace("Lists folders.", "Lists folder contents."),
    );
    assert_eq!(
        store.reload(&dir.path().join("good")),
        ReloadOutcome::Loaded {
            name: "good".into(),
            description_changed: true
        }
    );
    // A broken edit keeps the previous version and reports why.
    write(
        dir.path(),
        "good",
        &GOOD.replace("get_children", "get_kids"),
    );
    match store.reload(&dir.path().join("good")) {
        ReloadOutcome::KeptPrevious { name, diagnostics } => {
            assert_eq!(name, "good");
            assert_eq!(diagnostics[0].code, "UNKNOWN_METHOD");
            assert_eq!(diagnostics[0].line, 5);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        store.get("good").unwrap().definition.description,
        "Lists folder contents."
    );
    // Fixing the bad one loads it.
    write(dir.path(), "bad", &GOOD.replace("name: good", "name: bad"));
    assert!(matches!(
        store.reload(&dir.path().join("bad")),
        ReloadOutcome::Loaded { .. }
    ));
    assert_eq!(store.len(), 2);
}

#[test]
fn scaffold_creates_a_loadable_skill_from_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let template = shipped_dir().join("skill_template");
    let copy = dir.path().join("skill_template");
    std::fs::create_dir(&copy).unwrap();
    for e in std::fs::read_dir(&template).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
        }
    }
    let mut store = SkillStore::load(dir.path(), table()).unwrap();
    let name = store
        .scaffold(
            "tidy-photos",
            "Tidy holiday photos: \"quotes\" and colons: fine.",
            &["photos".into()],
        )
        .unwrap();
    assert_eq!(name, "tidy-photos");
    let s = store.get("tidy-photos").unwrap();
    assert_eq!(
        s.definition.description,
        "Tidy holiday photos: \"quotes\" and colons: fine."
    );
    assert_eq!(s.definition.tags, ["photos"]);
    assert!(!s.definition.tools.is_empty());
    assert_eq!(
        contracts::ErrorCode::code(&store.scaffold("tidy-photos", "x", &[]).unwrap_err()),
        "SKILL_EXISTS"
    );
    assert_eq!(
        contracts::ErrorCode::code(&store.scaffold("Bad Name", "x", &[]).unwrap_err()),
        "BAD_SKILL_NAME"
    );
}

#[test]
fn scaffold_with_drafted_tools_replaces_the_template_examples() {
    use contracts::PrimitiveKind;
    use skills::{ScaffoldSpec, ToolDeclaration};
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("skill_template");
    std::fs::create_dir(&copy).unwrap();
    for f in ["SKILL.md", "vis.json"] {
        std::fs::copy(shipped_dir().join("skill_template").join(f), copy.join(f)).unwrap();
    }
    let mut store = SkillStore::load(dir.path(), table()).unwrap();
    let tool = |name: &str, kind, op: &str, required: &[&str], optional: &[&str]| ToolDeclaration {
        name: name.into(),
        summary: format!("{name} summary"),
        primitive: kind,
        operation: op.into(),
        required: required.iter().map(|s| s.to_string()).collect(),
        optional: optional.iter().map(|s| s.to_string()).collect(),
    };
    let tools = [
        tool(
            "find_shots",
            PrimitiveKind::Graph,
            "find",
            &["path"],
            &["glob"],
        ),
        tool(
            "by_month",
            PrimitiveKind::Graph,
            "organize_by_date",
            &["path"],
            &[],
        ),
        tool(
            "search_text",
            PrimitiveKind::Retrieval,
            "content_search",
            &["query"],
            &["top_k"],
        ),
    ];
    let spec = ScaffoldSpec {
        name: "sort-shots",
        description: "Sort screenshots by month.",
        tags: &[],
        tools: &tools,
    };
    store.scaffold_with(&spec).unwrap();
    let folder = dir.path().join("sort-shots");
    let text = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    let section = &text[text.find("## Tools").unwrap()..];
    expect![[r#"
        ## Tools

        Drafted by the planner from the description; check each declaration before relying on it.

        ### find_shots -- find_shots summary
        primitive: graph | method: find | mutates: false | required: [path] | optional: [glob]

        ### by_month -- by_month summary
        primitive: graph | method: organize_by_date | mutates: true | required: [path]

        ### search_text -- search_text summary
        primitive: retrieval | query_type: content_search | required: [query] | optional: [top_k]
    "#]]
    .assert_eq(section);
    assert!(!text.contains("example_list"));
    let loaded = store.get("sort-shots").unwrap();
    let mut names: Vec<&String> = loaded.definition.tools.keys().collect();
    names.sort();
    assert_eq!(names, ["by_month", "find_shots", "search_text"]);
    let vis: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("vis.json")).unwrap()).unwrap();
    assert_eq!(vis["skill"], "sort-shots");
    assert_eq!(vis["tools"]["by_month"]["action"], "move");
    assert_eq!(vis["tools"]["find_shots"]["action"], "search");

    // A declaration the table refuses: nothing is written, every problem is named.
    let bad = [tool(
        "wipe",
        PrimitiveKind::Graph,
        "delete_node",
        &[],
        &["colour"],
    )];
    let err = store
        .scaffold_with(&ScaffoldSpec {
            name: "wipe-all",
            description: "x",
            tags: &[],
            tools: &bad,
        })
        .unwrap_err();
    assert_eq!(contracts::ErrorCode::code(&err), "SKILL_INVALID");
    assert!(err.to_string().contains("colour"), "{err}");
    assert!(!dir.path().join("wipe-all").exists());
}

const PLANNING_SKILL: &str = "---\nname: tidy-logs\ndescription: Archive old log files of a folder into a zip, one folder at a time.\ntags: [logs]\ntopic: [Logs, log]\n---\n\n### pack -- Pack log files into an archive\nprimitive: graph | method: create_archive | mutates: true | required: [source, target] | optional: [format, level]\nacts_on: nodes | selects: created | defaults: {target: \"{source}.{format|zip}\", level: 9}\ntriggers: [\"pack the logs in {source}\", \"archive logs of {source} as {format}\"]\nkeywords: [logs, log]\nwhen_said: [{words: [fast, quick], set: {level: 1}}]\nwhen_denied: [{words: [compressed, compress], set: {level: 0}}]\nfill: {format: format}\n";

#[test]
fn planning_keys_are_read_from_a_tool_declaration() {
    let (def, diags) =
        skills::check_skill_md(PLANNING_SKILL, Path::new("tidy-logs/SKILL.md"), &table());
    assert!(diags.is_empty(), "{diags:?}");
    let def = def.unwrap();
    // The skill's topic words, lowercase.
    assert_eq!(def.topic, ["logs", "log"]);
    let planning = &def.tools["pack"].planning;
    expect![[r#"
        {
          "triggers": [
            "pack the logs in {source}",
            "archive logs of {source} as {format}"
          ],
          "keywords": [
            "logs",
            "log"
          ],
          "defaults": {
            "level": 9,
            "target": "{source}.{format|zip}"
          },
          "when_said": [
            {
              "words": [
                "fast",
                "quick"
              ],
              "set": {
                "level": 1
              }
            }
          ],
          "when_denied": [
            {
              "words": [
                "compressed",
                "compress"
              ],
              "set": {
                "level": 0
              }
            }
          ],
          "acts_on": "nodes",
          "selects": "created",
          "fill": {
            "format": "format"
          }
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(planning).unwrap());
}

#[test]
fn every_problem_of_the_planning_keys_is_reported_with_its_line() {
    check(
        "---\nname: bad-plan\ndescription: A skill whose planning keys are wrong in every way it can be.\n---\n\n### pack -- Pack files\nprimitive: graph | method: create_archive | mutates: true | required: [source, target] | optional: [level]\nacts_on: folders | selects: \"created files\" | reads: [Archives, Spreadsheets]\ndefaults: {level: high, colour: red}\ntriggers: [\"pack {sources} now\", \"{source}\"]\nwhen_said: [{words: [fast]}]\nwhen_denied: {fast: 1}\nfill: {level: speed}\n\n### drop -- Remove duplicates\nprimitive: graph | method: remove_duplicates | mutates: true | required: [groups]\ntakes_from: {groups: pack.nodes}\n",
        expect![[r#"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `pack`: `acts_on` must be one of folder, file, node, files, nodes, found "folders"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `pack`: `selects` must name a field of the result (e.g. `nodes`), found "created files"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `pack`: `reads`: Spreadsheets is no kind of file; the kinds are Images, Documents, Audio, Video, Archives, Code, Data, Installers, Fonts, Ebooks
            skills/broken/SKILL.md:9: error[BAD_PLANNING_KEY]: tool `pack`: `defaults` sets `colour`, which the tool does not take; it takes: source, target, level
            skills/broken/SKILL.md:9: error[BAD_PLANNING_KEY]: tool `pack`: `defaults`: `level` takes int; "high" does not fit
            skills/broken/SKILL.md:10: error[BAD_PLANNING_KEY]: tool `pack`: trigger "pack {sources} now" has `{sources}`, which the tool does not take; it takes: source, target, level
            skills/broken/SKILL.md:10: error[BAD_PLANNING_KEY]: tool `pack`: trigger "{source}" has no words besides its slots
            skills/broken/SKILL.md:11: error[BAD_PLANNING_KEY]: tool `pack`: `when_said`: {"words":["fast"]} needs `words` and `set`
            skills/broken/SKILL.md:12: error[BAD_PLANNING_KEY]: tool `pack`: `when_denied` must be a list of {words: [...], set: {param: value}}
            skills/broken/SKILL.md:13: error[BAD_PLANNING_KEY]: tool `pack`: `fill`: "speed" is not something a request says; did you mean `keep`? known: locations, objects, targets, name, extensions, glob, min_size, max_size, modified_after, modified_before, keep, exclude, format, compression, pattern, name_pattern, find, replace, case, recursive, empty, kind, limit, sentences, start, max_bytes, query, categories, content, tags, delete_originals
        "#]],
    );
}

#[test]
fn takes_from_must_name_a_read_only_sibling() {
    check(
        "---\nname: bad-chain\ndescription: A skill whose removal is fed by a tool that changes files or does not exist.\n---\n\n### pack -- Pack files\nprimitive: graph | method: create_archive | mutates: true | required: [source, target]\n\n### drop -- Remove duplicates\nprimitive: graph | method: remove_duplicates | mutates: true | required: [groups]\ntakes_from: {groups: pack.nodes}\n\n### drop2 -- Remove duplicates\nprimitive: graph | method: remove_duplicates | mutates: true | required: [groups]\ntakes_from: {groups: scan.groups}\n",
        expect![[r#"
            skills/broken/SKILL.md:11: error[BAD_PLANNING_KEY]: tool `drop`: `takes_from` for `groups`: `pack` changes files; a step can only be fed by a read-only tool
            skills/broken/SKILL.md:15: error[BAD_PLANNING_KEY]: tool `drop2`: `takes_from` for `groups`: no tool `scan` in this skill; it has: drop, drop2, pack
        "#]],
    );
}

#[test]
fn previews_is_said_by_a_read_only_tool_of_a_sibling_that_changes_files() {
    check(
        "---\nname: bad-preview\ndescription: A skill whose previews preview nothing or what is not there.\n---\n\n### pack -- Pack files\nprimitive: graph | method: create_archive | mutates: true | required: [source, target]\npreviews: look\n\n### look -- Look at a folder\nprimitive: graph | method: analyze_directory | mutates: false | required: [path]\npreviews: peek\n\n### peek -- Look again\nprimitive: graph | method: analyze_directory | mutates: false | required: [path]\npreviews: sort\n\n### fine -- Look before packing\nprimitive: graph | method: analyze_directory | mutates: false | required: [path]\npreviews: pack\n",
        expect![[r#"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `pack`: `previews`: a tool that changes files previews nothing
            skills/broken/SKILL.md:12: error[BAD_PLANNING_KEY]: tool `look`: `previews`: `peek` changes nothing, so there is nothing to preview
            skills/broken/SKILL.md:16: error[BAD_PLANNING_KEY]: tool `peek`: `previews`: no tool `sort` in this skill; it has: fine, look, pack, peek
        "#]],
    );
}

#[test]
fn takes_rest_must_name_a_text_parameter_of_the_tool() {
    check(
        "---\nname: bad-rest\ndescription: A skill whose tools take the rest of a request into what cannot hold it.\n---\n\n### pack -- Pack files\nprimitive: graph | method: create_archive | mutates: true | required: [source, target] | optional: [level]\ntakes_rest: level\n\n### make -- Make a skill\nprimitive: skill | operation: scaffold_skill | mutates: true | required: [name, description]\ntakes_rest: summary\n",
        expect![[r#"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `pack`: `takes_rest` must name a text parameter the tool takes, found "level"; it takes: source, target, level
            skills/broken/SKILL.md:12: error[BAD_PLANNING_KEY]: tool `make`: `takes_rest` must name a text parameter the tool takes, found "summary"; it takes: name, description
        "#]],
    );
}

#[test]
fn the_format_doc_names_every_planning_key_and_slot() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/skill-format.md"),
    )
    .unwrap();
    for key in skills::PLANNING_KEYS {
        assert!(
            doc.contains(&format!("| `{key}` |")),
            "docs/skill-format.md lacks `{key}`"
        );
    }
    for (slot, _) in contracts::REQUEST_SLOTS {
        assert!(
            doc.contains(&format!("| `{slot}` |")),
            "docs/skill-format.md lacks slot `{slot}`"
        );
    }
}

#[test]
fn makes_names_known_kinds_of_file_made_at_a_target() {
    check(
        "---\nname: bad-makes\ndescription: A skill that says it makes a kind there is not, and makes something with no target.\n---\n\n### pack -- Pack files\nprimitive: graph | method: create_archive | mutates: true | required: [source, target]\nmakes: [Archives, Spreadsheets]\n\n### drop -- Remove duplicates\nprimitive: graph | method: remove_duplicates | mutates: true | required: [groups]\nmakes: [Archives]\n",
        expect![[r#"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `pack`: `makes`: Spreadsheets is no kind of file; the kinds are Images, Documents, Audio, Video, Archives, Code, Data, Installers, Fonts, Ebooks
            skills/broken/SKILL.md:12: error[BAD_PLANNING_KEY]: tool `drop`: `makes` names what the tool makes at its `target`, and it takes no `target`
        "#]],
    );
}

#[test]
fn keeps_source_is_said_by_a_tool_that_changes_files_from_a_source() {
    check(
        "---\nname: bad-keeps\ndescription: A skill that keeps sources it does not have.\n---\n\n### look -- Look at a folder\nprimitive: graph | method: analyze_directory | mutates: false | required: [path]\nkeeps_source: true\n\n### make -- Make a folder\nprimitive: graph | method: create_node | mutates: true | required: [path, name, type]\nkeeps_source: true\n\n### copy -- Copy files\nprimitive: graph | method: copy_node | mutates: true | required: [source, target]\nkeeps_source: yes please\n",
        expect![[r#"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `look`: `keeps_source` is for a tool that changes files and takes a `source`; this one does not
            skills/broken/SKILL.md:12: error[BAD_PLANNING_KEY]: tool `make`: `keeps_source` is for a tool that changes files and takes a `source`; this one does not
            skills/broken/SKILL.md:16: error[BAD_PLANNING_KEY]: tool `copy`: `keeps_source` must be true or false, found "yes please"
        "#]],
    );
}

#[test]
fn asked_with_is_a_list_of_words_and_never_empty() {
    check(
        "---\nname: bad-asked\ndescription: A skill whose tools say badly which words ask for them.\n---\n\n### wipe -- Delete files\nprimitive: graph | method: delete_node | mutates: true | required: [path]\nasked_with: []\n\n### zap -- Delete files\nprimitive: graph | method: delete_node | mutates: true | required: [path]\nasked_with: {delete: true}\n",
        expect![[r#"
            skills/broken/SKILL.md:8: error[BAD_PLANNING_KEY]: tool `wipe`: `asked_with` lists the words one of which asks for the tool; it is empty
            skills/broken/SKILL.md:12: error[BAD_PLANNING_KEY]: tool `zap`: `asked_with` must be a list of phrases
        "#]],
    );
}

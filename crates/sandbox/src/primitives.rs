//! The sandbox's primitive table (what skills may declare) and the dispatcher that runs a method.

use contracts::{ParamSpec, ParamType as T, PrimitiveKind, PrimitiveSpec, PrimitiveTable};
use serde_json::Value;

use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::ops::OpContext;
use crate::params::Params;
use crate::{content, ops};

fn p(name: &str, ty: T, doc: &str) -> ParamSpec {
    ParamSpec::new(name, ty, doc)
}

fn date_source() -> ParamSpec {
    p(
        "date",
        T::Str,
        "taken (a photo's EXIF date, else the modification time; default) | modified",
    )
    .choices(&["taken", "modified"])
}

fn conflict() -> ParamSpec {
    p(
        "on_conflict",
        T::Str,
        "when the target name exists: fail | skip | rename | ask (stop and let the person choose)",
    )
    .choices(&["fail", "skip", "rename", "ask"])
}

fn graph(
    name: &str,
    mutates: bool,
    required: Vec<ParamSpec>,
    optional: Vec<ParamSpec>,
    ret: &str,
    summary: &str,
) -> PrimitiveSpec {
    PrimitiveSpec::new(
        PrimitiveKind::Graph,
        name,
        mutates,
        required,
        optional,
        ret,
        summary,
    )
}

/// Every graph method of the FileSystemGraph, with its parameters.
pub fn graph_primitive_table() -> PrimitiveTable {
    let path = || p("path", T::Path, "a file or folder inside the working root");
    let dir = || p("path", T::Path, "a folder inside the working root");
    let recursive = |default: &str| {
        p(
            "recursive",
            T::Bool,
            &format!("include sub-folders (default {default})"),
        )
    };
    let filters = || {
        vec![
            p("name", T::Str, "text the name contains (case-insensitive)"),
            p(
                "glob",
                T::Str,
                "shell pattern such as *.pdf or reports/**/*.csv",
            ),
            p("regex", T::Str, "regular expression on the name"),
            p(
                "extension",
                T::Str,
                "one extension or a comma list: pdf,jpg",
            ),
            p("min_size", T::Size, "smallest size, e.g. 10MB"),
            p("max_size", T::Size, "largest size"),
            p(
                "modified_after",
                T::Date,
                "2024-05-01, RFC 3339, or an age like 7d",
            ),
            p(
                "modified_before",
                T::Date,
                "2024-05-01, RFC 3339, or an age like 1y",
            ),
            p("kind", T::Str, "file | dir | symlink").choices(&["file", "dir", "symlink"]),
            p(
                "empty",
                T::Bool,
                "only empty files and folders (or only non-empty with false)",
            ),
            recursive("true"),
            p("limit", T::Int, "at most this many results, largest first"),
        ]
    };
    PrimitiveTable::new(vec![
        graph(
            "get_children",
            false,
            vec![dir()],
            vec![
                recursive("false"),
                p(
                    "include_hidden",
                    T::Bool,
                    "include dot-files (default true)",
                ),
            ],
            "NodeList",
            "List what a folder contains.",
        ),
        graph(
            "get_metadata",
            false,
            vec![path()],
            vec![],
            "Metadata",
            "Properties of a file or folder, with folder aggregates.",
        ),
        graph(
            "create_node",
            true,
            vec![
                p(
                    "path",
                    T::Path,
                    "the folder to create in (created if missing)",
                ),
                p("name", T::Str, "name, or a comma list of names"),
                p("type", T::Str, "file | dir").choices(&["file", "dir"]),
            ],
            vec![
                p("content", T::Str, "text content for a new file"),
                conflict(),
            ],
            "Created",
            "Create files or folders.",
        ),
        graph(
            "move_node",
            true,
            vec![
                p("source", T::Paths, "what to move"),
                p(
                    "target",
                    T::Path,
                    "destination folder, or new path for one item",
                ),
            ],
            vec![conflict()],
            "Moves",
            "Move files or folders.",
        ),
        graph(
            "rename_node",
            true,
            vec![path(), p("new_name", T::Str, "the new name (not a path)")],
            vec![conflict()],
            "Moves",
            "Rename one file or folder in place.",
        ),
        graph(
            "delete_node",
            true,
            vec![p("path", T::Paths, "what to delete")],
            vec![],
            "Deleted",
            "Delete files or folders (to the trash by default).",
        ),
        graph(
            "copy_node",
            true,
            vec![
                p("source", T::Paths, "what to copy"),
                p(
                    "target",
                    T::Path,
                    "destination folder, or new path for one item",
                ),
            ],
            vec![conflict()],
            "Copies",
            "Copy files or folders.",
        ),
        graph(
            "find",
            false,
            vec![dir()],
            filters(),
            "NodeList",
            "Find files by name, pattern, type, size and date.",
        ),
        graph(
            "analyze_directory",
            false,
            vec![dir()],
            vec![
                p(
                    "top_n",
                    T::Int,
                    "how many largest files to list (default 10)",
                ),
                p(
                    "duplicates",
                    T::Bool,
                    "also measure the share taken by duplicate copies (reads the candidates; default true)",
                ),
            ],
            "Analysis",
            "Sizes, counts, types, largest files, ages, empty folders and the duplicate share.",
        ),
        graph(
            "find_duplicates",
            false,
            vec![dir()],
            vec![
                p("min_size", T::Size, "ignore smaller files (default 1 byte)"),
                p("max_size", T::Size, "ignore larger files"),
                p("extension", T::Str, "only these extensions"),
                p(
                    "exclude",
                    T::Paths,
                    "files or folders left out of the search",
                ),
                recursive("true"),
                p(
                    "hash",
                    T::Str,
                    "content hash: xxh3 (fast, 128-bit, default) | sha256 (cryptographic)",
                )
                .choices(&["xxh3", "sha256"]),
                p(
                    "format",
                    T::Str,
                    "also return a `report`: json (none, default) | text | csv",
                )
                .choices(&["json", "text", "csv"]),
                p(
                    "similar",
                    T::Bool,
                    "group photos that look alike (resized, recompressed, slightly edited copies) \
                     instead of identical files; each group lists sizes and resolutions (default false)",
                ),
                p(
                    "threshold",
                    T::Int,
                    "similar: how many of the 256 bits of two photos' perceptual hashes may differ \
                     (default 72; lower is stricter)",
                ),
            ],
            "Duplicates",
            "Groups of identical files: size, then hashes of the first block, the last block and \
             the whole content (in parallel); hardlinks count as one file. With `similar`, groups \
             of photos that look alike, by perceptual hash.",
        ),
        graph(
            "remove_duplicates",
            true,
            vec![p(
                "groups",
                T::Any,
                "the `groups` of a find_duplicates result",
            )],
            vec![
                p(
                    "keep",
                    T::Str,
                    "which copy stays: newest (default for identical files) | oldest | \
                     shortest_path | longest_path | largest (most pixels, then bytes; default for \
                     similar photos)",
                )
                .choices(&[
                    "newest",
                    "oldest",
                    "shortest_path",
                    "longest_path",
                    "largest",
                ]),
                p(
                    "action",
                    T::Str,
                    "what happens to the other copies: remove (default) | move (to `target`) | \
                     hardlink (replaced by links to the kept file)",
                )
                .choices(&["remove", "move", "hardlink"]),
                p(
                    "target",
                    T::Path,
                    "action=move: the folder the extra copies go to (keeping their paths)",
                ),
                p(
                    "reference",
                    T::Paths,
                    "folders of originals: never changed, and their copies elsewhere go",
                ),
                p(
                    "priority",
                    T::Paths,
                    "folders in order of preference for the copy that stays",
                ),
                p("exclude", T::Paths, "files or folders left out entirely"),
                conflict(),
            ],
            "Deleted",
            "Keep one copy per duplicate group; remove, move or hardlink the others.",
        ),
        graph(
            "organize_by_type",
            true,
            vec![dir()],
            vec![
                p(
                    "target",
                    T::Path,
                    "where the category folders go (default: the folder itself)",
                ),
                p(
                    "categories",
                    T::Any,
                    "extra categories: {\"Photos\": [\"jpg\", \"heic\"]}",
                ),
                p(
                    "pattern",
                    T::Str,
                    "folder pattern: {category}, {ext}, {year}, {month}, {day} (default {category})",
                ),
                date_source(),
                p(
                    "extension",
                    T::Str,
                    "only files with these extensions (their sidecars follow)",
                ),
                recursive("false"),
                conflict(),
            ],
            "Moves",
            "Sort files into category folders (Images, Documents, ...).",
        ),
        graph(
            "organize_by_date",
            true,
            vec![dir()],
            vec![
                p(
                    "target",
                    T::Path,
                    "where the date folders go (default: the folder itself)",
                ),
                p(
                    "pattern",
                    T::Str,
                    "folder pattern: {year}, {month}, {day}, {category}, {ext} (default {year}/{month})",
                ),
                date_source(),
                p(
                    "extension",
                    T::Str,
                    "only files with these extensions (their sidecars follow)",
                ),
                recursive("false"),
                conflict(),
            ],
            "Moves",
            "Sort files into folders by date ({year}/{month}): when a photo was taken (EXIF), else when the file was last modified.",
        ),
        graph(
            "move_into_folders",
            true,
            vec![p(
                "assignments",
                T::Any,
                "[{path, folder}]: each file and the folder it goes to (a classify step's assignments)",
            )],
            vec![conflict()],
            "Moves",
            "Move each file into the folder it was given, creating missing folders.",
        ),
        graph(
            "tag_files",
            true,
            vec![],
            vec![
                p("source", T::Paths, "files (or folders) to tag"),
                p(
                    "add",
                    T::Str,
                    "tags to add: a list, or text split on commas",
                ),
                p("remove", T::Str, "tags to take away"),
                p(
                    "assignments",
                    T::Any,
                    "[{path, category}] (a classify step's): each file tagged with its category, \
                     instead of moved",
                ),
            ],
            "Tagged",
            "Tag files instead of moving them (the extended attribute user.xdg.tags, which file \
             managers show); nothing moves, undo takes the tags back.",
        ),
        graph(
            "rename_each",
            true,
            vec![p(
                "names",
                T::Any,
                "[{path, name}]: each file and its new name (a suggest_names step's names); a \
                 name without an extension keeps the file's",
            )],
            vec![conflict()],
            "Moves",
            "Rename each file to the name it was given; every entry checked first.",
        ),
        graph(
            "batch_rename",
            true,
            vec![
                p("source", T::Paths, "files to rename"),
                p(
                    "pattern",
                    T::Str,
                    "new name with {name} {ext} {n:03} {date:%Y-%m-%d} {exif.date:%Y-%m-%d} {exif.camera} {parent}",
                ),
            ],
            vec![
                p("find", T::Str, "regex to replace in the new name"),
                p("replace", T::Str, "replacement for `find` ($1 for groups)"),
                p("case", T::Str, "lower | upper | title | keep")
                    .choices(&["lower", "upper", "title", "keep"]),
                p("start", T::Int, "first value of {n} (default 1)"),
                conflict(),
            ],
            "Moves",
            "Rename many files by a pattern; collisions refused, swaps handled.",
        ),
        graph(
            "create_archive",
            true,
            vec![
                p("source", T::Paths, "files and folders to pack"),
                p(
                    "target",
                    T::Path,
                    "the archive file to write (.zip, .tar.gz, .tar.zst, .tar)",
                ),
            ],
            vec![
                p(
                    "format",
                    T::Str,
                    "zip | tar.gz | tar.zst | tar (default: from the target name, else zip)",
                )
                .choices(&["zip", "tar.gz", "tar.zst", "tar"]),
                p(
                    "level",
                    T::Int,
                    "compression level: zip and tar.gz 0-9 (default 6), tar.zst 1-22 (default 3)",
                ),
                p(
                    "delete_originals",
                    T::Bool,
                    "delete the sources once the archive is written and verified",
                ),
                conflict(),
            ],
            "Created",
            "Pack files and folders into a zip, tar.gz, tar.zst or tar archive.",
        ),
        graph(
            "list_archive",
            false,
            vec![p("path", T::Path, "a .zip, .tar.gz, .tgz or .tar file")],
            vec![],
            "ArchiveListing",
            "List an archive's entries.",
        ),
        graph(
            "extract_archive",
            true,
            vec![p("path", T::Path, "a .zip, .tar.gz, .tgz or .tar file")],
            vec![
                p(
                    "target",
                    T::Path,
                    "folder to extract into: a new one (default: beside the archive, named after it), or an existing one the entries merge into",
                ),
                conflict(),
            ],
            "Created",
            "Extract an archive into a new folder or into an existing one (taken names follow on_conflict); entries escaping it are refused.",
        ),
        graph(
            "extract_text",
            false,
            vec![path()],
            vec![p(
                "max_bytes",
                T::Int,
                "return at most this many bytes of text (default 1 MiB)",
            )],
            "Text",
            "The text of a file (text, markdown, code, csv, json, html, pdf, office documents; \
             EXIF of images and tags of audio as lines) and its format metadata.",
        ),
        graph(
            "read_metadata",
            false,
            vec![path()],
            vec![],
            "Metadata",
            "A file's properties plus what its format records: EXIF (date taken, camera, GPS), \
             audio tags, PDF and office document properties, CSV/JSON shape, markdown headings.",
        ),
    ])
}

/// Runs one graph method. `params` were checked against the table by the caller.
pub fn dispatch(
    g: &mut FileSystemGraph,
    cx: &OpContext,
    method: &str,
    params: &Params,
) -> Result<Value> {
    match method {
        "get_children" => ops::get_children(g, cx, params),
        "get_metadata" => ops::get_metadata(g, cx, params),
        "create_node" => ops::create_node(g, cx, params),
        "move_node" => ops::move_node(g, cx, params),
        "rename_node" => ops::rename_node(g, cx, params),
        "delete_node" => ops::delete_node(g, cx, params),
        "copy_node" => ops::copy_node(g, cx, params),
        "find" => ops::find(g, cx, params),
        "analyze_directory" => ops::analyze_directory(g, cx, params),
        "find_duplicates" => ops::find_duplicates(g, cx, params),
        "remove_duplicates" => ops::remove_duplicates(g, cx, params),
        "organize_by_type" => ops::organize_by_type(g, cx, params),
        "organize_by_date" => ops::organize_by_date(g, cx, params),
        "move_into_folders" => ops::move_into_folders(g, cx, params),
        "batch_rename" => ops::batch_rename(g, cx, params),
        "rename_each" => ops::rename_each(g, cx, params),
        "tag_files" => ops::tag_files(g, cx, params),
        "extract_text" => content::extract_text(g, cx, params),
        "read_metadata" => content::read_metadata(g, cx, params),
        "create_archive" => ops::create_archive(g, cx, params),
        "list_archive" => ops::list_archive(g, cx, params),
        "extract_archive" => ops::extract_archive(g, cx, params),
        other => Err(SandboxError::UnknownMethod(other.to_owned())),
    }
}

/// Refuses params the method does not declare (a typo must not be silently ignored).
pub fn check_params(spec: &PrimitiveSpec, params: &serde_json::Map<String, Value>) -> Result<()> {
    let unknown: Vec<&str> = params
        .keys()
        .map(String::as_str)
        .filter(|k| spec.param(k).is_none())
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let accepted: Vec<&str> = spec
        .required
        .iter()
        .chain(&spec.optional)
        .map(|p| p.name.as_str())
        .collect();
    Err(SandboxError::UnknownParams {
        method: spec.name.clone(),
        names: unknown
            .iter()
            .map(|u| format!("`{u}`"))
            .collect::<Vec<_>>()
            .join(", "),
        accepted: accepted.join(", "),
    })
}

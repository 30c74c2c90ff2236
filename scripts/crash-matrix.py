#!/usr/bin/env python3
"""The crash matrix: commits of every kind of change (and an undo) killed with SIGKILL at random
points, then `scope-weaver recover --complete`; every run must end with the folder exactly as
before the commit or exactly as a commit that was never interrupted leaves it, and no file's
bytes may be lost (what a commit deletes is in the trash, unless the delete was permanent).

    python3 scripts/crash-matrix.py [--runs 30] [--bin PATH] [--seed 1] [--out FILE.md]

Each kind runs once uninterrupted first (its expected result and its duration), then `--runs`
times killed after a random delay between 40 % and 105 % of that duration (start-up and planning
come first; the commit is at the end). Prints a table (outcome per kind) and
writes it to --out; exits 1 if any run ends in another state or loses bytes.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

FILES = 120


def tree(root: Path) -> dict:
    """Every file under root (relative path → sha256 and whether it is one of several hard
    links), folders as '/' entries."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = "symlink"
        elif p.is_dir():
            out[rel + "/"] = "dir"
        else:
            linked = "+link" if p.stat().st_nlink > 1 else ""
            out[rel] = archive_listing(p) or hashlib.sha256(p.read_bytes()).hexdigest() + linked
    return out


def archive_listing(p: Path):
    """An archive the commit wrote, by what it holds (its bytes carry the files' times)."""
    name = p.name
    try:
        if name.endswith((".tar.gz", ".tgz", ".tar")):
            with tarfile.open(p) as t:
                return "tar:" + ",".join(sorted(f"{m.name}:{m.size}" for m in t.getmembers()))
        if name.endswith(".zip") and name != "bundle.zip":
            with zipfile.ZipFile(p) as z:
                return "zip:" + ",".join(sorted(f"{i.filename}:{i.file_size}" for i in z.infolist()))
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError):
        return "unreadable archive"
    return None


def contents(root: Path) -> dict:
    """How many files of each content are under root."""
    counts = {}
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            h = hashlib.sha256(p.read_bytes()).hexdigest()
            counts[h] = counts.get(h, 0) + 1
    return counts


def fixture(root: Path) -> None:
    inbox = root / "Inbox"
    inbox.mkdir(parents=True)
    for i in range(FILES):
        ext = ["txt", "pdf", "jpg", "mp3"][i % 4]
        # Every fifth file has a twin (for hardlinks); the rest are unique.
        body = f"file {i // 2 if i % 5 == 0 else i} " * (50 + i)
        (inbox / f"f{i:03}.{ext}").write_text(body)
        if i % 5 == 0:
            (inbox / f"f{i:03} copy.{ext}").write_text(body)
    # Fixed entry dates: the same bytes in every run.
    with zipfile.ZipFile(root / "bundle.zip", "w") as z:
        for i in range(60):
            z.writestr(zipfile.ZipInfo(f"bundle/part{i:03}.txt", (2024, 1, 1, 0, 0, 0)), f"part {i} " * 200)


def some(n: int) -> str:
    return json.dumps([f"Inbox/f{i:03}.{['txt', 'pdf', 'jpg', 'mp3'][i % 4]}" for i in range(n)])


# kind → (argv after the binary and before/after the root, extra environment, trash expected)
KINDS = {
    "trash": (["tool", "--root", "{root}", "manage-files", "delete", "path=" + some(60), "--commit"], {}, True),
    "permanent delete": (
        ["tool", "--root", "{root}", "manage-files", "delete", "path=" + some(60), "--commit"],
        {"SCOPE_WEAVER_DELETE_MODE": "permanent"},
        False,
    ),
    "move": (["tool", "--root", "{root}", "manage-files", "move", "source=" + some(90), "target=Archive", "--commit"], {}, False),
    "rename": (
        ["tool", "--root", "{root}", "batch-rename", "rename", "source=" + some(90), "pattern=doc_{n:03}", "--commit"],
        {},
        False,
    ),
    "copy": (["tool", "--root", "{root}", "manage-files", "copy", "source=" + some(90), "target=Copies", "--commit"], {}, False),
    "create": (["run", "--root", "{root}", "--yes", "sort Inbox into folders by type"], {}, False),
    "archive": (
        ["tool", "--root", "{root}", "archive-files", "create", "source=Inbox", "target=inbox.tar.gz",
         "delete_originals=true", "--commit"],
        {},
        True,
    ),
    "extract": (["tool", "--root", "{root}", "archive-files", "extract", "path=bundle.zip", "--commit"], {}, False),
    "hardlink": (["run", "--root", "{root}", "--yes", "replace the duplicate copies in Inbox with hardlinks"], {}, False),
}


class World:
    """A root folder with its own home, trash and state, and the commands run in it."""

    def __init__(self, binary: str, skills: Path, extra_env: dict):
        self.dir = Path(tempfile.mkdtemp(prefix="crash-matrix-"))
        self.root = self.dir / "root"
        self.root.mkdir()
        home = self.dir / "home"
        self.trash = home / "data" / "Trash"
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "SCOPE_WEAVER_STATE_DIR": str(home / "state"),
            "SCOPE_WEAVER_SKILLS_DIR": str(skills),
            **extra_env,
        }
        self.binary = binary
        fixture(self.root)

    def argv(self, args):
        return [self.binary, "--json"] + [a.replace("{root}", str(self.root)) for a in args]

    def run(self, args, timeout=600):
        return subprocess.run(self.argv(args), env=self.env, capture_output=True, timeout=timeout)

    def run_killed(self, args, delay: float):
        child = subprocess.Popen(self.argv(args), env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
        child.wait()
        return child.returncode == -signal.SIGKILL

    def recover(self):
        return self.run(["recover", str(self.root), "--complete"])

    def everything(self) -> dict:
        """Content counts in the root and in the trash together."""
        counts = contents(self.root)
        for h, n in contents(self.trash / "files").items() if (self.trash / "files").exists() else []:
            counts[h] = counts.get(h, 0) + n
        return counts

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def lost(before: dict, after: dict) -> list:
    return [h for h, n in before.items() if after.get(h, 0) < n]


def kind_runs(name, spec, args, rng):
    argv, extra, keeps_bytes = spec
    undo = name == "undo"
    ref = World(args.bin, args.skills, extra)
    if undo:
        ref.run(KINDS["move"][0])
    expected_before = tree(ref.root)
    started = time.monotonic()
    done = ref.run(["undo", "--yes"] if undo else argv)
    duration = time.monotonic() - started
    expected_after = tree(ref.root)
    ref.close()
    if done.returncode != 0 or expected_after == expected_before:
        sys.exit(f"{name}: the uninterrupted run did not change anything:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    outcomes = {"before": 0, "after": 0, "recovered to after": 0, "other": 0}
    failures = []
    for i in range(args.runs):
        w = World(args.bin, args.skills, extra)
        try:
            if undo:
                w.run(KINDS["move"][0])
            before_bytes = w.everything()
            # Late in the run, where the commit is (start-up and planning come first).
            killed = w.run_killed(["undo", "--yes"] if undo else argv, duration * rng.uniform(0.4, 1.05))
            mid = tree(w.root)
            rec = w.recover()
            final = tree(w.root)
            # A permanent delete loses the bytes it was asked to; everything else keeps them all.
            gone = lost(before_bytes, w.everything()) if keeps_bytes or name != "permanent delete" else []
            if final == expected_before and not gone:
                outcomes["before"] += 1
            elif final == expected_after and not gone:
                key = "after" if mid == expected_after else "recovered to after"
                outcomes[key] += 1
            else:
                outcomes["other"] += 1
                failures.append(
                    f"{name} run {i} (killed: {killed}): {len(gone)} content(s) lost; recover said "
                    f"{rec.stdout.decode(errors='replace')[-400:]} {rec.stderr.decode(errors='replace')[-400:]}; "
                    f"differs from before in {len(set(final.items()) ^ set(expected_before.items()))} entries, "
                    f"from after in {len(set(final.items()) ^ set(expected_after.items()))}"
                )
                if args.keep:
                    print(f"kept {w.dir}", file=sys.stderr)
                    continue
        finally:
            if not args.keep or not failures:
                w.close()
    return duration, outcomes, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.expanduser("~/.cache/scope-weaver/target/debug/scope-weaver"))
    ap.add_argument("--skills", type=Path, default=Path(__file__).resolve().parent.parent / "skills")
    ap.add_argument("--out")
    ap.add_argument("--only", nargs="*", help="kinds to run (default: all and undo)")
    ap.add_argument("--keep", action="store_true", help="keep the folders of failed runs")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    kinds = dict(KINDS)
    kinds["undo"] = (None, {}, True)
    rows, failures, total = [], [], 0
    for name, spec in kinds.items():
        if args.only and name not in args.only:
            continue
        duration, outcomes, fails = kind_runs(name, spec, args, rng)
        total += sum(outcomes.values())
        failures += fails
        rows.append((name, duration, outcomes))
        print(f"{name}: {outcomes} (uninterrupted {duration * 1000:.0f} ms)", file=sys.stderr, flush=True)
    lines = [
        f"{total} runs killed with SIGKILL at a random point in the last 60 % of the uninterrupted run's time, "
        f"then `recover --complete` (seed {args.seed}, {args.runs} per kind):",
        "",
        "| change | uninterrupted | ended as before | done when killed | recovered to after | other |",
        "|---|---|---|---|---|---|",
    ]
    for name, duration, o in rows:
        lines.append(
            f"| {name} | {duration * 1000:.0f} ms | {o['before']} | {o['after']} | {o['recovered to after']} | {o['other']} |"
        )
    lines += ["", f"Runs in another state or with bytes lost: {len(failures)}."]
    text = "\n".join(lines)
    print(text)
    for f in failures:
        print("FAILED:", f)
    if args.out:
        Path(args.out).write_text(text + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

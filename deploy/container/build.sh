#!/usr/bin/env bash
# Build the snowid image with no registry: a Debian bookworm root file system from Debian's
# archive (debootstrap), imported as the base image, and snowid installed from a wheelhouse
# made here. Run from the repository's root, as root (debootstrap and podman's storage):
#   deploy/container/build.sh [IMAGE]
# Needs: apt-get install podman debootstrap; a Python 3.11 with pip for the wheelhouse
# (PYTHON, default python3). The base image is made once and reused.
set -euo pipefail
image=${1:-localhost/snowid:latest}
base=localhost/bookworm-minbase:latest
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! podman image exists "$base"; then
  debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$work/rootfs" http://deb.debian.org/debian
  chroot "$work/rootfs" apt-get clean
  rm -rf "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | podman import - "$base"
fi

# The wheels for the image. async-timeout is named because redis needs it on Python before
# 3.11.3 (bookworm has 3.11.2), which pip cannot know when this Python is newer.
"$python" -m pip wheel -q --wheel-dir "$work/context/wheelhouse" \
  '.[web,postgres,redis,mysql]' 'async-timeout>=4.0.3'
podman build --isolation chroot -f deploy/container/Containerfile -t "$image" "$work/context"

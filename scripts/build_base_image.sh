#!/usr/bin/env bash
# Builds the base image the examples and tests use (default pgs-base:1): bash, coreutils, python3 with pytest, git,
# tmux, procps. An image present that was made from another package list (its pgs.base.packages label) is made again.
# With a reachable registry it builds FROM debian:bookworm-slim; otherwise (this workplace) it debootstraps Debian
# bookworm and imports the tree, which needs root and debootstrap. debootstrap uses its own default mirror unless
# PGS_DEBIAN_MIRROR names one. For podman (--engine podman, or PGS_ENGINE=podman) it copies the image from the Docker
# engine when that one has it (the same bytes on both engines), else builds it the same way; podman names it
# localhost/NAME.
# Usage: scripts/build_base_image.sh [NAME:TAG] [--force] [--engine docker|podman]
set -euo pipefail

name="${PGS_BASE_IMAGE:-pgs-base:1}"
engine="${PGS_ENGINE:-docker}"
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1 ;;
    --engine) [ $# -ge 2 ] || { echo "build_base_image.sh: --engine needs docker or podman" >&2; exit 2; }
      engine="$2"; shift ;;
    --engine=*) engine="${1#--engine=}" ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "build_base_image.sh: unknown flag $1" >&2; exit 2 ;;
    *) name="$1" ;;
  esac
  shift
done
case "$engine" in
  docker|podman) ;;
  *) echo "build_base_image.sh: --engine: unknown engine $engine (docker or podman)" >&2; exit 2 ;;
esac
command -v "$engine" >/dev/null || { echo "build_base_image.sh: the $engine CLI is not installed" >&2; exit 1; }
packages="python3,python3-pytest,tmux,git,ca-certificates,procps"
# Only a mirror the user names is passed on (debootstrap has its own default).
mirror=()
[ -n "${PGS_DEBIAN_MIRROR:-}" ] && mirror=("$PGS_DEBIAN_MIRROR")

# The image says which packages it was made with (a label): one made from an older list is made again.
label=pgs.base.packages
packages_of() { timeout 20 "$1" image inspect -f "{{ index .Config.Labels \"$label\" }}" "$name" 2>/dev/null; }
if [ "$force" = 0 ] && "$engine" image inspect "$name" >/dev/null 2>&1; then
  have=$(packages_of "$engine")
  if [ "$have" = "$packages" ]; then
    echo "base image $name is present ($engine)"
    exit 0
  fi
  echo "base image $name was made with packages '${have:-unknown}', not '$packages': making it again ($engine)"
fi

# podman: the Docker engine's copy when it has one (bounded: a wedged engine must not hang CI).
if [ "$force" = 0 ] && [ "$engine" = podman ] && command -v docker >/dev/null && [ "$(packages_of docker)" = "$packages" ]; then
  echo "copying $name from the Docker engine to podman"
  timeout 600 bash -o pipefail -c 'docker save "$1" | podman load -q' _ "$name" >/dev/null
  echo "loaded $name into podman"
  exit 0
fi

# Fully qualified: podman has no default registry for short names.
base=docker.io/library/debian:bookworm-slim
if timeout 20 "$engine" pull -q "$base" >/dev/null 2>&1; then
  echo "building $name FROM $base ($engine)"
  "$engine" build -q -t "$name" - <<DOCKERFILE
FROM $base
LABEL $label="$packages"
RUN apt-get update && apt-get install -y --no-install-recommends ${packages//,/ } && rm -rf /var/lib/apt/lists/*
CMD ["bash"]
DOCKERFILE
  exit 0
fi

command -v debootstrap >/dev/null || { echo "build_base_image.sh: no registry answers and debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "build_base_image.sh: debootstrap needs root" >&2; exit 1; }
root=$(mktemp -d /tmp/pgs-base.XXXXXX)
trap 'rm -rf "$root" "$root.log"' EXIT
echo "no registry answers: debootstrapping bookworm into $root (about a minute)"
debootstrap --variant=minbase --include="$packages" bookworm "$root" ${mirror[@]+"${mirror[@]}"} >"$root.log" 2>&1 || {
  echo "build_base_image.sh: debootstrap failed; the last lines of its log:" >&2; tail -n 20 "$root.log" >&2
  # The last line says why in one line (tests/base_image.ts puts it in the names of the tests it skips).
  why=$(grep '^E: ' "$root.log" | tail -n 1); [ -n "$why" ] || why=$(tail -n 1 "$root.log")
  echo "build_base_image.sh: debootstrap failed: ${why#E: }" >&2; exit 1; }
# Keep the image small and reproducible: no apt caches or lists.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | "$engine" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["bash"]' --change "LABEL $label=$packages" - "$name" >/dev/null
echo "imported $name ($engine)"

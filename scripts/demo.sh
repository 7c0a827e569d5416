#!/usr/bin/env bash
# `deno task demo`: on the first engine that answers (Docker, else podman), makes the base image pgs-base:1 when it is
# missing (scripts/build_base_image.sh), then runs `pgs harbor check examples/tasks` and the oracle eval of
# examples/eval.yaml on it. When no engine answers, one line says what to install and the demo exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

# Whether CLI $1 is installed and its engine answers (bounded: a wedged engine must not hang the demo).
answers() { command -v "$1" >/dev/null 2>&1 && timeout 20 "$@" >/dev/null 2>&1; }

if answers docker version --format '{{.Server.Version}}'; then
  runtime=docker
elif answers podman ps -q; then
  runtime=podman
else
  if command -v docker >/dev/null 2>&1; then
    docker="no Docker engine answers at ${DOCKER_HOST:-unix:///var/run/docker.sock} (start dockerd or set DOCKER_HOST)"
  else
    docker="no docker CLI"
  fi
  podman=$(command -v podman >/dev/null 2>&1 && echo "podman does not answer" || echo "no podman")
  echo "pgs demo: no container engine answers ($docker; $podman): install one, Docker (apt-get install docker.io debootstrap) or podman (apt-get install podman catatonit debootstrap); see the README's Requirements" >&2
  exit 1
fi

echo "pgs demo: on $runtime"
bash scripts/build_base_image.sh --engine "$runtime"
deno run -A main.ts harbor check --runtime "$runtime" examples/tasks
deno run -A main.ts eval --config examples/eval.yaml --runtime "$runtime"

#!/usr/bin/env bash
# Start podman's Docker-compatible API, for the docker sandbox and its tests.
#
# tests/sandbox/conftest.py runs this script (KERNELTRIALS_ENGINE_SCRIPT overrides it);
# run it by hand to use `kerneltrials check --sandbox docker` on a machine without a
# Docker daemon. It needs root, podman (installed with apt-get when missing) and
# catatonit (the containers' --init).
#
# Usage:  scripts/start-docker-api.sh [SOCKET_DIR]      (default: /tmp/kt-podman)
# Prints: DOCKER_HOST=unix://SOCKET_DIR/docker.sock   (export it; the docker SDK reads it)
#         KT_BASE_IMAGE=localhost/kt-base:latest      (an empty image, see below)
# Stop:   kill "$(cat SOCKET_DIR/service.pid)"
#
# Two work-arounds for hosts with hybrid cgroups (v1 controllers plus a cgroup2 "unified"
# mount): the unified mount is hidden in a mount namespace of the service's own (crun
# refuses hybrid cgroups) and cgroups are managed through cgroupfs (no systemd).
#
# That namespace is a slave of the host's, and the host's root mount is made shared (as
# systemd makes it on boot) when it is not: the harness mounts each check's output quota
# (a tmpfs, kerneltrials/_tmpfs.py) on the host after the service started, and the engine
# must see it to bind it into the job. A service started by an older version of this
# script, which saw no new mounts, is restarted.
#
# Images: nothing is pulled. The base image is EMPTY: the docker sandbox runs it with the
# host's minimal view bound read-only (system dirs, the Python runtime and venv, the
# kerneltrials package, a few /etc files; kerneltrials/sandbox/_view.py). Containers
# need explicit nofile and nproc ulimits: the engine's defaults can exceed the host's
# hard limits (the sandbox always passes them).
set -euo pipefail
dir="${1:-/tmp/kt-podman}"
mkdir -p "$dir"
sock="$dir/docker.sock"
# One start at a time: `make test` runs the engine's tests on two pytest workers, and
# each runs this script (the service started below must not inherit the lock: 9>&-).
exec 9>"$dir/start.lock"
flock 9

if ! command -v podman >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman catatonit) \
    >"$dir/apt.log" 2>&1 || { echo "podman install failed, see $dir/apt.log" >&2; exit 1; }
fi

running() { [ -S "$sock" ] && [ -f "$dir/service.pid" ] && kill -0 "$(cat "$dir/service.pid")" 2>/dev/null; }
if running && [ ! -f "$dir/service.receives-mounts" ]; then
  kill "$(cat "$dir/service.pid")" 2>/dev/null || true
  for _ in $(seq 1 50); do running || break; sleep 0.2; done
fi
if running; then
  :  # already running
else
  rm -f "$sock" "$dir/service.receives-mounts"
  case "$(findmnt -no PROPAGATION / 2>/dev/null)" in
    shared*) ;;
    *) mount --make-rshared / ;;
  esac
  setsid unshare -m --propagation slave sh -c "umount /sys/fs/cgroup/unified 2>/dev/null; exec podman --cgroup-manager=cgroupfs system service --time=0 unix://$sock" \
    >"$dir/service.log" 2>&1 < /dev/null 9>&- &
  echo $! >"$dir/service.pid"
  touch "$dir/service.receives-mounts"
  for _ in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.2; done
  [ -S "$sock" ] || { echo "podman service did not start, see $dir/service.log" >&2; exit 1; }
fi

if ! podman image exists localhost/kt-base:latest; then
  empty="$(mktemp -d)"; tar -C "$empty" -cf "$dir/empty.tar" . ; rmdir "$empty"
  podman import -q "$dir/empty.tar" localhost/kt-base:latest >/dev/null
fi

echo "DOCKER_HOST=unix://$sock"
echo "KT_BASE_IMAGE=localhost/kt-base:latest"

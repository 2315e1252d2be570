#!/usr/bin/env bash
# Smoke-test an image built from deploy/container/Containerfile without a container runtime
# (podman run needs cgroups and rlimits these machines do not give): mount a container's
# file system, run its command in a chroot as the image's user, with the image's
# environment, in its own mount and PID namespaces, and ask GET /readyz until it answers
# 200 (at most 60 s). Then stop it with SIGTERM, as a runtime would, and report how it
# exited. Root only.
#   deploy/container/smoke.sh [IMAGE [PORT [NAME=VALUE...]]]
# NAME=VALUE pairs are added to the image's environment (SNOWID_LEASE=..., SNOWID_WORKERS=2).
set -euo pipefail
image=${1:-localhost/snowid:latest}
port=${2:-18080}
extra=("${@:3}")

ctr=$(podman create "$image")
mnt=$(podman mount "$ctr")
server=""  # unshare, which waits for the server
pid1=""    # the server: PID 1 of its namespace, the child of unshare
# unshare does not pass signals on: stop the server itself, at most 30 s, then kill it.
# shellcheck disable=SC2317  # called by the trap
stop_server() {
  [ -n "$pid1" ] && kill -TERM "$pid1" 2>/dev/null
  for _ in $(seq 1 120); do
    kill -0 "$server" 2>/dev/null || return 0
    sleep 0.25
  done
  kill -KILL "$pid1" 2>/dev/null || true
}
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  if [ -n "$server" ]; then stop_server || true; fi
  podman umount "$ctr" >/dev/null || true
  podman rm "$ctr" >/dev/null || true
}
trap cleanup EXIT

# The image's own settings: user, working directory, environment, entrypoint + command.
user=$(podman image inspect --format '{{.Config.User}}' "$image")
workdir=$(podman image inspect --format '{{.Config.WorkingDir}}' "$image")
mapfile -t environment < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" | sed '/^$/d')
mapfile -t command < <(podman image inspect --format '{{range .Config.Entrypoint}}{{println .}}{{end}}{{range .Config.Cmd}}{{println .}}{{end}}' "$image" | sed '/^$/d')
echo "image $image: user $user, workdir $workdir, command ${command[*]}"

# The chroot shares this host's network: listen on loopback only, on a port of our own.
# shellcheck disable=SC2016  # $1 and $@ are the inner shell's
unshare --mount --pid --fork --mount-proc="$mnt/proc" \
  chroot --userspec="$user" "$mnt" /usr/bin/env -i "${environment[@]}" \
  SNOWID_HOST=127.0.0.1 SNOWID_PORT="$port" "${extra[@]}" \
  /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$workdir" "${command[@]}" &
server=$!
for _ in $(seq 1 40); do
  pid1=$(ps -o pid= --ppid "$server" | tr -d ' ')
  [ -n "$pid1" ] && break
  sleep 0.05
done

for _ in $(seq 1 240); do
  if body=$(curl -sf "http://127.0.0.1:$port/readyz"); then
    echo "GET /readyz -> 200 $body"
    break
  fi
  sleep 0.25
done
[ -n "${body:-}" ] || { echo "no 200 from /readyz within 60 s" >&2; exit 1; }
echo "POST /api/ids?count=3 -> $(curl -sf -X POST "http://127.0.0.1:$port/api/ids?count=3")"
echo "state directory $workdir: $(find "$mnt$workdir" -mindepth 1 -printf '%f (mode %m, owner %U:%G) ')"

# SIGTERM to the server, PID 1 of its namespace, as a runtime sends it; then GET /readyz
# until the server is gone, saying when its answer changes (503 while it drains).
started=$(date +%s%N)
since() { local t=$(( ($(date +%s%N) - started) / 100000000 )); echo "$((t / 10)).$((t % 10)) s"; }
kill -TERM "$pid1"
last=""
while kill -0 "$server" 2>/dev/null; do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/readyz" || true)
  [ "$code" = 000 ] && code="no answer"
  if [ "$code" != "$last" ]; then echo "$(since) after SIGTERM: GET /readyz -> $code"; last=$code; fi
  sleep 0.1
done
status=0
wait "$server" || status=$?
server=""
echo "stopped $(since) after SIGTERM, exit code $status"
# 143: a single process ends by the SIGTERM raised again, as uvicorn does: a clean stop.
[ "$status" = 0 ] || [ "$status" = 143 ] || exit "$status"

#!/usr/bin/env bash
# Memory per connection at 19,800 sockets (BENCHMARKS.md "Memory per
# connection"), builds side by side with the floor in the same rounds: each
# run a fresh server on core 0 (embedded store; the floor keeps nothing) and
# one roomload on core 1 holding 4,950 rooms × (2 players + 2 spectators).
# Once every socket is open, a forced GC, 8 s later VmRSS ÷ open sockets.
#
#   ROUNDS=3 deploy/bench/memory.sh /tmp/before /tmp/after
#
# Arguments and $TOOLS as in rounds.sh. Lines: "round name | sockets rss_kib kib_per_socket".
set -euo pipefail
TOOLS=${TOOLS:-/tmp/tools}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18950}
WANT=${WANT:-19800}
run() { # round name cmd...
  local r=$1 name=$2; shift 2
  ROOMD_ADMIN_TOKEN=tok taskset -c 0 "$@" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
  taskset -c 1 "$TOOLS/roomload" --url "http://127.0.0.1:$PORT" --rooms 4950 --players 2 --spectators 2 \
    --rate 0.1 --duration 40s --warmup 5s >/dev/null 2>&1 &
  local load=$!
  local n=0
  for _ in $(seq 120); do
    n=$(ls /proc/$pid/fd 2>/dev/null | wc -l)
    [ "$n" -ge "$WANT" ] && break
    sleep 0.5
  done
  sleep 2
  curl -s -o /dev/null -H 'Authorization: Bearer tok' "http://127.0.0.1:$PORT/debug/pprof/heap?gc=1" || true
  sleep 8
  local socks rss
  socks=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c socket || true)
  rss=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
  kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$r $name | $socks $rss $(awk -v r="$rss" -v s="$socks" 'BEGIN{printf "%.1f", r/s}')"
}
for r in $(seq "$ROUNDS"); do
  run "$r" floor "$TOOLS/roomfloor" --addr "127.0.0.1:$PORT"
  for b in "$@"; do
    d=$(mktemp -d)
    run "$r" "$b" "$b/roomd" --addr "127.0.0.1:$PORT" --log-level warn --data "$d" --quotas=off
    rm -rf "$d"
  done
done

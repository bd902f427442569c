#!/usr/bin/env bash
# Server CPU per move, builds side by side with the floor in the same round
# (BENCHMARKS.md "How to measure"): each run a fresh server on core 0 and
# roomload on core 1, 1,000 rooms × 2 players at 1 move/s.
#
#   ROUNDS=3 deploy/bench/rounds.sh /tmp/before /tmp/after
#
# Each argument is a directory holding a roomd binary; roomload and roomfloor
# come from $TOOLS (default /tmp/tools: go build -o /tmp/tools/ ./cmd/roomload ./cmd/roomfloor).
# Every build runs on the memory store, then on the embedded store (--data,
# a fresh directory). Lines go to stdout: "round name | roomload's line".
set -euo pipefail
TOOLS=${TOOLS:-/tmp/tools}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18900}
run() { # round name cmd...
  local r=$1 name=$2; shift 2
  taskset -c 0 "$@" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
  local line
  line=$(taskset -c 1 "$TOOLS/roomload" --url "http://127.0.0.1:$PORT" --rooms 1000 --players 2 \
    --rate 1 --duration 25s --warmup 5s 2>&1 | grep moves/s || true)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$r $name | $line"
}
for r in $(seq "$ROUNDS"); do
  run "$r" floor "$TOOLS/roomfloor" --addr "127.0.0.1:$PORT"
  for b in "$@"; do
    run "$r" "memory:$b" "$b/roomd" --addr "127.0.0.1:$PORT" --log-level warn --memory --quotas=off
  done
  for b in "$@"; do
    d=$(mktemp -d)
    run "$r" "embedded:$b" "$b/roomd" --addr "127.0.0.1:$PORT" --log-level warn --data "$d" --quotas=off
    rm -rf "$d"
  done
done

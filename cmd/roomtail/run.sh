#!/usr/bin/env bash
# One round of the spectator-tail comparison, roomd against Centrifugo v6,
# end to end: for each spectator count, a fresh roomd and a fresh
# Centrifugo, each on core 0 with roomtail on core 1, one after the other.
#
#   cmd/roomtail/run.sh                 # from the repository's root
#   SPECTATORS="500 5000" DURATION=25s WARMUP=5s RT=1 cmd/roomtail/run.sh
#
# Needs Centrifugo v6.9.1 outside this module:
#   GOBIN=/tmp/tail/bin go install github.com/centrifugal/centrifugo/v6@v6.9.1
# Settings (environment): ROOT (the roomd checkout to build; default the one
# holding this script), CENTRIFUGO (its binary; default /tmp/tail/bin/centrifugo),
# OUT (a work folder; default /tmp/tail/run), PORT (roomd's; Centrifugo's is
# PORT+1), SPECTATORS, RATE, DURATION, WARMUP, ORDER ("roomd centrifugo"),
# RT=1 to run both processes at SCHED_RR priority 1 (chrt), which shields the
# figures from a machine's other work (a shared machine); RT=0 on a quiet one.
# Each run prints roomtail's line; the lines are also appended to $OUT/results.txt.
set -euo pipefail

CENTRIFUGO=${CENTRIFUGO:-/tmp/tail/bin/centrifugo}
OUT=${OUT:-/tmp/tail/run}
PORT=${PORT:-18840}
SPECTATORS=${SPECTATORS:-"500 5000"}
RATE=${RATE:-10}
DURATION=${DURATION:-25s}
WARMUP=${WARMUP:-5s}
ORDER=${ORDER:-"roomd centrifugo"}
RT=${RT:-0}
CPORT=$((PORT + 1))

mkdir -p "$OUT"
root=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)} # the roomd checkout to build
(cd "$root" && go build -o "$OUT/roomd" ./cmd/roomd && go build -o "$OUT/roomtail" ./cmd/roomtail)
[ -x "$CENTRIFUGO" ] || { echo "no Centrifugo at $CENTRIFUGO (see the comment at the top)" >&2; exit 2; }

prio=()
[ "$RT" = 1 ] && prio=(chrt -r 1)

key=tail-$RANDOM$RANDOM
# Anonymous clients may connect and subscribe to channels without a
# namespace; the HTTP API takes the key; no usage statistics are sent.
# Everything else is Centrifugo's default (memory engine, no history).
cat >"$OUT/centrifugo.json" <<JSON
{
  "http_server": {"address": "127.0.0.1", "port": $CPORT},
  "log": {"level": "error"},
  "usage_stats": {"disabled": true},
  "http_api": {"key": "$key"},
  "client": {"allow_anonymous_connect_without_token": true, "allowed_origins": ["*"]},
  "channel": {"without_namespace": {"allow_subscribe_for_anonymous": true, "allow_subscribe_for_client": true}}
}
JSON

server=""
stop() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		server=""
	fi
}
trap stop EXIT

up() { # wait for a port to answer
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
		sleep 0.1
	done
	echo "port $1 never answered" >&2
	return 1
}

for n in $SPECTATORS; do
	for s in $ORDER; do
		case $s in
		roomd)
			"${prio[@]}" taskset -c 0 "$OUT/roomd" --addr "127.0.0.1:$PORT" --memory --quotas=off \
				--max-spectators $((n + 100)) --log-level warn 2>>"$OUT/roomd.log" &
			server=$!
			up "$PORT"
			args=(--server roomd --url "http://127.0.0.1:$PORT")
			;;
		centrifugo)
			"${prio[@]}" taskset -c 0 "$CENTRIFUGO" --config "$OUT/centrifugo.json" >>"$OUT/centrifugo.log" 2>&1 &
			server=$!
			up "$CPORT"
			args=(--server centrifugo --url "http://127.0.0.1:$CPORT" --api-key "$key")
			;;
		esac
		line=$("${prio[@]}" taskset -c 1 "$OUT/roomtail" "${args[@]}" --pid "$server" --spectators "$n" \
			--rate "$RATE" --duration "$DURATION" --warmup "$WARMUP" --json "$OUT/$s-$n-$(date +%H%M%S).json") || true
		echo "$(date -u +%FT%TZ) rt=$RT $line" | tee -a "$OUT/results.txt"
		stop
		sleep 1
	done
done

#!/bin/bash
# Server CPU per move: one node on Redis, two nodes on Redis (half the sockets relayed), one node on memory.
set -u
cd /work/main
go build -o /tmp/sroomd ./cmd/roomd && go build -o /tmp/sroomload ./cmd/roomload || exit 1
PORT=16399
redis-server --port $PORT --save '' --appendonly no --daemonize yes --logfile /tmp/scal-redis.log
sleep 0.5
R=redis://127.0.0.1:$PORT/0
rcpu() { redis-cli -p $PORT info cpu | awk -F: '/used_cpu_(sys|user):/{s+=$2} END{printf "%.3f", s}'; }
rcmds() { redis-cli -p $PORT info stats | awk -F: '/total_commands_processed/{print $2}' | tr -d '\r'; }
run() { # name, roomload urls, servers...
  name=$1; urls=$2
  c0=$(rcpu); k0=$(rcmds)
  /tmp/sroomload --url "$urls" --rooms 1000 --players 2 --rate 1 --duration 20s --warmup 5s --json /tmp/scal-$name.json > /tmp/scal-$name.txt 2>&1
  c1=$(rcpu); k1=$(rcmds)
  echo "$name: redis cpu $(echo "$c1 - $c0" | bc) s, redis commands $((k1-k0))"
  grep -iE 'cpu|p50|p99|moves' /tmp/scal-$name.txt | head -8
}
for round in 1 2; do
  redis-cli -p $PORT flushall >/dev/null
  /tmp/sroomd --addr 127.0.0.1:18501 --log-level warn --quotas=off --redis $R --node-id one > /dev/null 2>&1 &
  P1=$!; sleep 1
  run "redis-one-$round" http://127.0.0.1:18501
  kill -TERM $P1; wait $P1
  redis-cli -p $PORT flushall >/dev/null
  /tmp/sroomd --addr 127.0.0.1:18502 --log-level warn --quotas=off --redis $R --node-id a > /dev/null 2>&1 &
  PA=$!
  /tmp/sroomd --addr 127.0.0.1:18503 --log-level warn --quotas=off --redis $R --node-id b > /dev/null 2>&1 &
  PB=$!; sleep 1.5
  run "redis-two-$round" http://127.0.0.1:18502,http://127.0.0.1:18503
  kill -TERM $PA $PB; wait $PA $PB
  /tmp/sroomd --addr 127.0.0.1:18504 --log-level warn --quotas=off --memory > /dev/null 2>&1 &
  PM=$!; sleep 1
  run "memory-$round" http://127.0.0.1:18504
  kill -TERM $PM; wait $PM
done
redis-cli -p $PORT shutdown nosave
echo ALLDONE

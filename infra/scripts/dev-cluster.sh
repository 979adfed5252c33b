#!/usr/bin/env bash
# The production topology on one machine: NATS (JetStream) + PostgreSQL, one gateway process and
# REPLICAS processes of each service (agent, call, campaign, webhook), each its own OS process.
#
#   infra/scripts/dev-cluster.sh [start]   start everything in the background (default)
#   infra/scripts/dev-cluster.sh stop      SIGTERM every process it started (graceful), SIGKILL stragglers
#   infra/scripts/dev-cluster.sh status    which processes are alive
#
# Environment (all optional):
#   REPLICAS=1             processes per service (2 shows queue groups / durable consumers sharing work)
#   PORT=3000 HOST=127.0.0.1   the gateway's address
#   NATS_URL=nats://127.0.0.1:4222
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/voice   (the `voice` database is created if missing)
#   ADMIN_TOKEN            default: a fixed development token, printed at start
#   LOG_LEVEL, BUS_PREFIX, SIM_TIME_SCALE, WEBHOOK_RETRY_BASE_MS, ...   passed through to every process
#   STOP_TIMEOUT_SECONDS=20    how long `stop` waits for a graceful exit before SIGKILL
#
# Logs: .data/logs/<role>-<n>.log; pid files: .data/run/<role>-<n>.pid.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo_root"
log_dir="$repo_root/.data/logs"
run_dir="$repo_root/.data/run"
services=(agent call campaign webhook)

say() { printf '[dev-cluster] %s\n' "$*"; }
die() { printf '[dev-cluster] ERROR: %s\n' "$*" >&2; exit 1; }

alive() { kill -0 "$1" 2>/dev/null; }

pid_files() {
  [[ -d "$run_dir" ]] || return 0
  find "$run_dir" -maxdepth 1 -name '*.pid' -print | sort
}

cmd_status() {
  local file pid any=0
  while IFS= read -r file; do
    [[ -n "$file" ]] || continue
    any=1
    pid="$(cat "$file")"
    if alive "$pid"; then
      say "$(basename "$file" .pid): running (pid $pid)"
    else
      say "$(basename "$file" .pid): not running (stale pid $pid)"
    fi
  done < <(pid_files)
  ((any)) || say "no processes recorded in $run_dir"
}

cmd_stop() {
  local file pid timeout="${STOP_TIMEOUT_SECONDS:-20}" pids=()
  while IFS= read -r file; do
    [[ -n "$file" ]] || continue
    pid="$(cat "$file")"
    if alive "$pid"; then
      # Each process was started as its own process group (setsid): signal the group so
      # pnpm, tsx and node all get it; the app drains in-flight work on SIGTERM.
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
      say "SIGTERM $(basename "$file" .pid) (pid $pid)"
    fi
    rm -f "$file"
  done < <(pid_files)
  if ((${#pids[@]} == 0)); then
    say "nothing to stop"
    return 0
  fi
  local deadline=$((SECONDS + timeout)) left
  while :; do
    left=()
    for pid in "${pids[@]}"; do
      if alive "$pid" || kill -0 -- "-$pid" 2>/dev/null; then left+=("$pid"); fi
    done
    ((${#left[@]} == 0)) && break
    if ((SECONDS >= deadline)); then
      for pid in "${left[@]}"; do
        say "pid $pid still running after ${timeout}s: SIGKILL"
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      done
      break
    fi
    sleep 0.5
  done
  say "stopped ${#pids[@]} processes (NATS and PostgreSQL keep running)"
}

ensure_database() {
  # Only for the default URL: create the `voice` database on the local server when missing.
  command -v psql >/dev/null 2>&1 || { say "psql not found; assuming database 'voice' exists"; return 0; }
  local exists
  exists="$(psql "postgres://postgres@127.0.0.1:5432/postgres" -tAc "select 1 from pg_database where datname = 'voice'")"
  if [[ "$exists" != 1 ]]; then
    psql "postgres://postgres@127.0.0.1:5432/postgres" -qc 'create database voice' >/dev/null
    say "created database 'voice'"
  fi
}

start_one() {
  local role="$1" n="$2" name="$1-$2"
  local pid_file="$run_dir/$name.pid" log_file="$log_dir/$name.log"
  if [[ -f "$pid_file" ]] && alive "$(cat "$pid_file")"; then
    say "$name already running (pid $(cat "$pid_file"))"
    return 0
  fi
  local port=0
  [[ "$role" == gateway ]] && port="${PORT:-3000}"
  # setsid: its own process group, so `stop` reaches pnpm, tsx and node together.
  PORT="$port" setsid pnpm exec tsx platform/src/main.ts "$role" >>"$log_file" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$pid_file"
  printf '[dev-cluster]   %-12s pid %-7s log %s\n' "$name" "$pid" "${log_file#"$repo_root"/}"
}

wait_for_gateway() {
  local url="http://${HOST:-127.0.0.1}:${PORT:-3000}/v1/health" deadline=$((SECONDS + ${GATEWAY_WAIT_SECONDS:-90}))
  local pid
  pid="$(cat "$run_dir/gateway-1.pid")"
  say "waiting for $url"
  until curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
    alive "$pid" || die "the gateway exited; see .data/logs/gateway-1.log"
    ((SECONDS < deadline)) || die "no healthy answer from $url within ${GATEWAY_WAIT_SECONDS:-90}s; see .data/logs/"
    sleep 0.5
  done
  say "gateway healthy: $url"
}

cmd_start() {
  local replicas="${REPLICAS:-1}"
  [[ "$replicas" =~ ^[1-9][0-9]*$ ]] || die "REPLICAS must be a positive integer (got '$replicas')"
  command -v pnpm >/dev/null 2>&1 || die "pnpm not found (npm i -g pnpm, then pnpm install)"
  [[ -d node_modules ]] || die "node_modules missing: run pnpm install first"
  [[ -f platform/src/main.ts ]] || die "platform/src/main.ts not found"

  bash infra/scripts/start-nats.sh
  bash infra/scripts/start-postgres.sh

  export NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
  if [[ -z "${DATABASE_URL:-}" ]]; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/voice"
    ensure_database
  fi
  export ADMIN_TOKEN="${ADMIN_TOKEN:-dev-cluster-admin-token}"
  export HOST="${HOST:-127.0.0.1}"

  mkdir -p "$log_dir" "$run_dir"
  say "starting gateway + ${#services[@]} services x $replicas (NATS_URL=$NATS_URL)"
  start_one gateway 1
  local role n
  for role in "${services[@]}"; do
    for ((n = 1; n <= replicas; n++)); do start_one "$role" "$n"; done
  done
  if command -v curl >/dev/null 2>&1; then wait_for_gateway; fi
  cat <<INFO
[dev-cluster] gateway:     http://$HOST:${PORT:-3000}   (health: /v1/health)
[dev-cluster] admin token: $ADMIN_TOKEN
[dev-cluster] logs:        tail -f .data/logs/*.log
[dev-cluster] status:      infra/scripts/dev-cluster.sh status
[dev-cluster] stop:        infra/scripts/dev-cluster.sh stop
INFO
}

case "${1:-start}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart) cmd_stop; cmd_start ;;
  *) die "usage: $0 [start|stop|status|restart]" ;;
esac

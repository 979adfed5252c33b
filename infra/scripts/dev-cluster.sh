#!/usr/bin/env bash
# The production topology on one machine, in the background: makes sure NATS (JetStream) and
# PostgreSQL run, then starts `pnpm start:cluster` (platform/src/cluster.ts: GATEWAY_REPLICAS
# gateways and REPLICAS processes of each service, supervised). This script only adds the local
# infrastructure, development defaults and a background life (pid file, log file); the launcher
# does the rest (ports, restarts, ordered graceful stop).
#
#   infra/scripts/dev-cluster.sh [start]   start in the background (default)
#   infra/scripts/dev-cluster.sh run       the same in the foreground (Ctrl-C stops it)
#   infra/scripts/dev-cluster.sh stop      SIGTERM to the launcher (graceful, in order), SIGKILL after STOP_TIMEOUT_SECONDS
#   infra/scripts/dev-cluster.sh status    whether it runs, and its last lines about the processes
#
# Environment (all optional):
#   REPLICAS=2 GATEWAY_REPLICAS=2   processes per service / gateways (ports PORT, PORT+1, ...)
#   PORT=3000 HOST=127.0.0.1        the first gateway's address
#   NATS_URL=nats://127.0.0.1:4222
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/voice   (the `voice` database is created if missing)
#   ADMIN_TOKEN            default: a fixed development token, printed at start
#   LOG_LEVEL, BUS_PREFIX, SIM_TIME_SCALE, WEBHOOK_RETRY_BASE_MS, ...   passed through to every process
#   STOP_TIMEOUT_SECONDS=30    how long `stop` waits for the graceful stop before SIGKILL
#   CLUSTER_WAIT_SECONDS=120   how long `start` waits for every process to be ready
#
# Log: .data/logs/cluster.log (every process's lines, prefixed with its name); pid: .data/run/cluster.pid.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo_root"
log_dir="$repo_root/.data/logs"
run_dir="$repo_root/.data/run"
log_file="$log_dir/cluster.log"
pid_file="$run_dir/cluster.pid"

tag=dev-cluster
# shellcheck source=lib.sh
source "$repo_root/infra/scripts/lib.sh"

alive() { kill -0 "$1" 2>/dev/null; }
running_pid() { [[ -f "$pid_file" ]] && alive "$(cat "$pid_file")" && cat "$pid_file"; }

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

prepare() {
  command -v node >/dev/null 2>&1 || die "node not found"
  [[ -d node_modules ]] || die "node_modules missing: run pnpm install first"
  bash infra/scripts/start-nats.sh
  bash infra/scripts/start-postgres.sh
  export NATS_URL="${NATS_URL:-nats://127.0.0.1:4222}"
  if [[ -z "${DATABASE_URL:-}" ]]; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/voice"
    ensure_database
  fi
  export ADMIN_TOKEN="${ADMIN_TOKEN:-dev-cluster-admin-token}"
  export HOST="${HOST:-127.0.0.1}"
  say "admin token: $ADMIN_TOKEN"
}

cmd_run() {
  prepare
  exec node --import tsx platform/src/cluster.ts
}

cmd_start() {
  local pid
  if pid="$(running_pid)"; then
    say "already running (pid $pid); log: ${log_file#"$repo_root"/}"
    return 0
  fi
  prepare
  mkdir -p "$log_dir" "$run_dir"
  : >"$log_file"
  # setsid: away from this terminal. The launcher puts each process in its own group and stops
  # them in order on SIGTERM; if the launcher dies, they stop by themselves (IPC channel closed).
  setsid node --import tsx platform/src/cluster.ts >>"$log_file" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pid_file"
  say "launcher pid $pid; log: ${log_file#"$repo_root"/}"
  local deadline=$((SECONDS + ${CLUSTER_WAIT_SECONDS:-120}))
  until grep -q '^\[cluster\] ready:' "$log_file"; do
    if ! alive "$pid"; then
      grep '^\[cluster\]' "$log_file" | tail -n 20 >&2 || true
      rm -f "$pid_file"
      die "the cluster did not start; see ${log_file#"$repo_root"/}"
    fi
    ((SECONDS < deadline)) || die "not ready within ${CLUSTER_WAIT_SECONDS:-120}s; see ${log_file#"$repo_root"/}"
    sleep 0.5
  done
  grep '^\[cluster\] ready:' "$log_file" | tail -n 1
  cat <<INFO
[dev-cluster] logs:   tail -f ${log_file#"$repo_root"/}
[dev-cluster] status: infra/scripts/dev-cluster.sh status
[dev-cluster] stop:   infra/scripts/dev-cluster.sh stop
INFO
}

cmd_stop() {
  local pid timeout="${STOP_TIMEOUT_SECONDS:-30}"
  if ! pid="$(running_pid)"; then
    say "not running"
    rm -f "$pid_file"
    return 0
  fi
  say "SIGTERM to the launcher (pid $pid): gateways stop first, then services"
  kill -TERM "$pid"
  local deadline=$((SECONDS + timeout))
  while alive "$pid"; do
    if ((SECONDS >= deadline)); then
      say "still running after ${timeout}s: SIGKILL (its processes then stop by themselves)"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.5
  done
  rm -f "$pid_file"
  grep '^\[cluster\]' "$log_file" 2>/dev/null | tail -n 1 || true
  say "stopped (NATS and PostgreSQL keep running)"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    say "running (launcher pid $pid)"
    grep -E '^\[cluster\] .*(ready|exited|restarting)' "$log_file" | tail -n 30 || true
  else
    say "not running"
  fi
}

case "${1:-start}" in
  start) cmd_start ;;
  run) cmd_run ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart) cmd_stop; cmd_start ;;
  *) die "usage: $0 [start|run|stop|status|restart]" ;;
esac

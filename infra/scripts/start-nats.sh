#!/usr/bin/env bash
# Starts a local NATS server with JetStream unless one already answers on NATS_HOST:NATS_PORT.
# Idempotent: safe to run again and again; it never stops or restarts a running server.
#
#   NATS_HOST            address to check and bind (default 127.0.0.1)
#   NATS_PORT            client port (default 4222)
#   NATS_STORE_DIR       JetStream store (default /var/lib/nats-server, or .data/nats when not writable)
#   NATS_LOG_FILE        server log (default /var/log/nats-server.log, or .data/logs/nats-server.log)
#   NATS_WAIT_SECONDS    how long to wait for the port to answer after starting (default 20)
set -euo pipefail

host="${NATS_HOST:-127.0.0.1}"
port="${NATS_PORT:-4222}"
wait_seconds="${NATS_WAIT_SECONDS:-20}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tag=start-nats
# shellcheck source=lib.sh
source "$repo_root/infra/scripts/lib.sh"

answering() { tcp_answers "$host" "$port"; }

if answering; then
  say "NATS already answering on $host:$port; nothing to do."
  exit 0
fi

bin=""
if [[ -x /usr/sbin/nats-server ]]; then
  bin=/usr/sbin/nats-server
elif command -v nats-server >/dev/null 2>&1; then
  bin="$(command -v nats-server)"
else
  die "nothing answers on $host:$port and no nats-server binary was found (looked at /usr/sbin/nats-server and PATH).
  Install it (Debian: apt-get install -y nats-server) or point NATS_URL at a running server."
fi

# Store and log: the system locations when this user can write them, else under the repo's .data/.
writable_dir() { mkdir -p "$1" 2>/dev/null && [[ -w "$1" ]]; }
store_dir="${NATS_STORE_DIR:-/var/lib/nats-server}"
if ! writable_dir "$store_dir"; then
  store_dir="$repo_root/.data/nats"
  mkdir -p "$store_dir"
fi
log_file="${NATS_LOG_FILE:-/var/log/nats-server.log}"
if ! { writable_dir "$(dirname "$log_file")" && touch "$log_file" 2>/dev/null; }; then
  log_file="$repo_root/.data/logs/nats-server.log"
  mkdir -p "$(dirname "$log_file")"
fi

args=(-a "$host" -p "$port" -js -sd "$store_dir" -l "$log_file")
say "starting $bin ${args[*]}"
if command -v start-stop-daemon >/dev/null 2>&1; then
  # The pid file makes start-stop-daemon match only the server it started for this port, not
  # another nats-server that happens to run on some other port.
  pid_file="$store_dir/nats-server-$port.pid"
  start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "$pid_file" \
    --exec "$bin" -- "${args[@]}"
else
  nohup "$bin" "${args[@]}" >/dev/null 2>&1 &
  disown || true
fi

wait_answering "$wait_seconds" "$log_file" "NATS did not answer on $host:$port within ${wait_seconds}s (log: $log_file)."
say "NATS answering on $host:$port (JetStream store: $store_dir, log: $log_file)."

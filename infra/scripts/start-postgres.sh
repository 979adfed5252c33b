#!/usr/bin/env bash
# Starts the machine's PostgreSQL cluster unless a server already answers on PGHOST:PGPORT.
# Idempotent: safe to run again and again; it never stops or restarts a running server.
#
#   PGHOST / PGPORT          address to check (default 127.0.0.1:5432)
#   PG_CLUSTER_VERSION       Debian cluster version (default: the newest under /etc/postgresql)
#   PG_CLUSTER_NAME          Debian cluster name (default main)
#   PG_WAIT_SECONDS          how long to wait for the server to accept connections (default 30)
set -euo pipefail

host="${PGHOST:-127.0.0.1}"
port="${PGPORT:-5432}"
wait_seconds="${PG_WAIT_SECONDS:-30}"
cluster="${PG_CLUSTER_NAME:-main}"

tag=start-postgres
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

answering() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "$host" -p "$port" -t 2
  else
    tcp_answers "$host" "$port"
  fi
}

if answering; then
  say "PostgreSQL already accepting connections on $host:$port; nothing to do."
  exit 0
fi

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  die "nothing accepts connections on $host:$port and pg_ctlcluster is not installed (no Debian PostgreSQL).
  Install it (apt-get install -y postgresql) or point DATABASE_URL at a running server."
fi

version="${PG_CLUSTER_VERSION:-}"
if [[ -z "$version" ]]; then
  if [[ -d /etc/postgresql ]]; then
    version="$(find /etc/postgresql -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -V | tail -n 1)"
  fi
  [[ -n "$version" ]] || die "no PostgreSQL cluster found: /etc/postgresql is missing or empty.
  Create one (pg_createcluster <version> $cluster) or point DATABASE_URL at a running server."
fi
[[ -d "/etc/postgresql/$version/$cluster" ]] ||
  die "no cluster '$cluster' for PostgreSQL $version (/etc/postgresql/$version/$cluster is missing); pg_lsclusters shows what exists."

say "starting cluster $version/$cluster"
# pg_ctlcluster fails when the cluster is already running; the wait below is the real check.
pg_ctlcluster --skip-systemctl-redirect "$version" "$cluster" start ||
  say "pg_ctlcluster returned non-zero; waiting for the server anyway."

wait_answering "$wait_seconds" "/var/log/postgresql/postgresql-$version-$cluster.log" \
  "PostgreSQL $version/$cluster did not accept connections on $host:$port within ${wait_seconds}s."
say "PostgreSQL $version/$cluster accepting connections on $host:$port."

#!/usr/bin/env bash
# Starts the production bundle (dist/voice.mjs, as the container image runs it) in the embedded
# mode with a scratch DATA_DIR, waits until /v1/health answers 200, fetches a file the bundle
# serves from node_modules (GraphiQL's React) and the dashboard's page and script (dist/dashboard), then stops it with SIGTERM and expects exit 0.
# Catches what `node --check` cannot: a module the bundle resolves only at run time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

data_dir="$(mktemp -d)"
chmod 755 "$data_dir" # as root, the embedded PostgreSQL runs as another user
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
log="$data_dir/bundle.log"
env -u NATS_URL -u DATABASE_URL PORT="$port" DATA_DIR="$data_dir/data" node dist/voice.mjs all >"$log" 2>&1 &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  rm -rf "$data_dir"
}
trap cleanup EXIT

base="http://127.0.0.1:$port"
for _ in $(seq 1 240); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "bundle-smoke: dist/voice.mjs exited during start-up:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  if [[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/health" || true)" == 200 ]]; then break; fi
  sleep 0.5
done
status="$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/health" || true)"
asset="$(curl -s -o /dev/null -w '%{http_code}' "$base/graphql/assets/react.js" || true)"
dashboard_page="$(curl -s "$base/dashboard" || true)"
dashboard_script="$(grep -o '/dashboard/assets/[A-Za-z0-9_.-]*\.js' <<<"$dashboard_page" | head -n 1 || true)"
dashboard="$(curl -s -o /dev/null -w '%{http_code}' "$base${dashboard_script:-/dashboard/assets/missing.js}" || true)"
if [[ "$status" != 200 || "$asset" != 200 || "$dashboard" != 200 ]]; then
  echo "bundle-smoke: /v1/health answered $status, /graphql/assets/react.js $asset, the dashboard's script ${dashboard_script:-(not in /dashboard)} $dashboard" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
if ((rc != 0)); then
  echo "bundle-smoke: dist/voice.mjs exited $rc on SIGTERM" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "bundle-smoke: dist/voice.mjs served /v1/health, GraphiQL's files and the dashboard, and stopped cleanly"

#!/usr/bin/env bash
# Starts the production bundle (dist/voice.mjs, as the container image runs it) in the embedded
# mode with a scratch DATA_DIR, waits until /v1/health answers 200, fetches a file the bundle
# serves from node_modules (GraphiQL's React), then stops it with SIGTERM and expects exit 0.
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
if [[ "$status" != 200 || "$asset" != 200 ]]; then
  echo "bundle-smoke: /v1/health answered $status, /graphql/assets/react.js $asset" >&2
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
echo "bundle-smoke: dist/voice.mjs served /v1/health and GraphiQL's files, and stopped cleanly"

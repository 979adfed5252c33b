# shellcheck shell=bash
# Helpers shared by start-nats.sh, start-postgres.sh and dev-cluster.sh; sourced, never run.
# The sourcing script sets `tag` (its name in messages) before using them.

say() { printf '[%s] %s\n' "$tag" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$tag" "$*" >&2; exit 1; }

# tcp_answers HOST PORT: something accepts a TCP connection there. bash's /dev/tcp (there is no nc
# on the CI machine); `timeout` bounds a silent drop.
tcp_answers() {
  # shellcheck disable=SC2016 # $0/$1 expand in the inner shell
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

# wait_answering SECONDS LOG_FILE MESSAGE: polls the script's `answering` until it succeeds; after
# SECONDS, prints the last lines of LOG_FILE (when readable) and dies with MESSAGE.
wait_answering() {
  local deadline=$((SECONDS + $1))
  until answering; do
    if ((SECONDS >= deadline)); then
      if [[ -r "$2" ]]; then
        printf '[%s] last lines of %s:\n' "$tag" "$2" >&2
        tail -n 20 "$2" >&2 || true
      fi
      die "$3"
    fi
    sleep 0.25
  done
}

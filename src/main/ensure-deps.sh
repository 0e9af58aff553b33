#!/usr/bin/env bash
# Installs node_modules when missing or older than package-lock.json, so `npm run up`
# and `npm test` work on a fresh clone with nothing installed by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
marker=node_modules/.package-lock.json

# `45s`, `1m30s`: the elapsed-time format of withProgress (dev/infra/proc.ts), which cannot run before the
# dependencies (tsx) are installed; this is its shell twin, with the same lines and the same 30 s interval.
elapsed() {
  local s=$((SECONDS - started))
  if [ "$s" -lt 60 ]; then echo "${s}s"; else printf '%dm%02ds' $((s / 60)) $((s % 60)); fi
}

if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  step="installing npm dependencies (npm install)"
  started=$SECONDS
  echo "[setup] ${step}..." >&2
  # The ticker kills its own `sleep` when stopped, so nothing holds the output open after the install.
  (
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while :; do
      sleep "${SETUP_PROGRESS_SECONDS:-30}" &
      nap=$!
      wait "$nap"
      echo "[setup] still ${step}... $(elapsed)" >&2
    done
  ) &
  ticker=$!
  trap 'kill "$ticker" 2>/dev/null || true' EXIT
  # Not `npm ci`: the lockfile lacks entries for other platforms' optional binaries (e.g.
  # @swc/core-darwin-arm64) that the registry mirror here does not serve, and `npm ci` refuses
  # such a lockfile. `npm install --no-save` installs the locked versions and writes nothing back.
  status=0
  npm install --no-save --no-audit --no-fund --loglevel=error >&2 || status=$?
  kill "$ticker" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then
    echo "[setup] ${step}: failed after $(elapsed)" >&2
    exit "$status"
  fi
  echo "[setup] ${step}: done in $(elapsed)" >&2
fi

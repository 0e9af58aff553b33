#!/usr/bin/env bash
# Installs node_modules when missing or older than package-lock.json, so `npm run up`
# and `npm test` work on a fresh clone with nothing installed by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "[setup] installing npm dependencies (npm ci)..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

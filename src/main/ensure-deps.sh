#!/usr/bin/env bash
# Installs node_modules when missing or older than package-lock.json, so `npm run up`
# and `npm test` work on a fresh clone with nothing installed by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "[setup] installing npm dependencies..." >&2
  # Not `npm ci`: the lockfile lacks entries for other platforms' optional binaries (e.g.
  # @swc/core-darwin-arm64) that the registry mirror here does not serve, and `npm ci` refuses
  # such a lockfile. `npm install --no-save` installs the locked versions and writes nothing back.
  npm install --no-save --no-audit --no-fund --loglevel=error >&2
fi

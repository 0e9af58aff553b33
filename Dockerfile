# One image for every Switchboard process; the compose file picks the entry point per service:
#   API        node --max-semi-space-size=32 --no-allocation-site-pretenuring dist/src/main/api.js
#              (default CMD; the flags: NODE_FLAGS in src/platform/buildLayout.ts)
#   worker     node dist/src/main/worker.js
#   simulator  node dist/simulator/main.js
#   MCP        node dist/src/main/mcp.js
#   CLI        node dist/src/main/cli.js <command>   (e.g. `migrate`)
# Two stages (docs/decisions/operations.md, "Production build"): `build` installs every dependency and runs
# `npm run build` (TypeScript compiled to dist/, the workflow bundle written ahead of time to dist/workflow-bundle.js;
# a broken bundle fails the image build); the runtime stage has production dependencies only (no tsx, no TypeScript,
# no esbuild) and the build's dist/. test/unit/dockerfile.test.ts holds this file to that.
# Pinned by digest (security review L22): a rebuild gets the same base, and a moved tag cannot change it
# unseen. The tag stays for the reader; Docker resolves the digest. Bump both on purpose, in both stages
# (docs/decisions/operations.md, "Base image pinned by digest (issue 27)": `docker buildx imagetools inspect node:20-bookworm-slim`).

# ---- build: every dependency, then `npm run build` ----
FROM node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0 AS build
WORKDIR /app
COPY package.json package-lock.json ./
# package.json's `allowScripts` approves install scripts only for @swc/core and protobufjs.
# The npm 10 bundled with node:20 does not read that field (npm 11.16+ only warns about it),
# so enforce it here: install with every script skipped, then run the approved two.
# Nothing else needs its script: @temporalio/core-bridge ships prebuilt .node binaries
# (releases/<target>/) and esbuild (the build's compiler, and tsx's) finds its @esbuild/linux-* binary
# without its postinstall. The workflow bundler (webpack with swc) needs @swc/core's.
# `npm install --no-save` rather than `npm ci`: see src/main/ensure-deps.sh for why.
RUN npm install --no-save --ignore-scripts --no-audit --no-fund \
 && npm rebuild @swc/core protobufjs
# The sources (see .dockerignore for what stays out: tests, benches, a host's dist/ and node_modules).
COPY . .
RUN npm run build

# ---- runtime: production dependencies and the build output ----
FROM node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0 AS runtime

# Production install: no devDependencies (tsx, typescript, esbuild, jest, eslint are not needed to run).
ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so source edits do not invalidate this layer. Scripts as in the build stage. Then two removals:
# - --omit=dev still installs the TypeScript compiler as an optional peer of vue (@scalar/api-reference's): nothing on
#   the server loads either (the API serves Scalar's prebuilt browser file by path);
# - Temporal's native bridge ships prebuilt binaries for five platforms (about 27 MB each); the one this image runs is
#   the one the SDK picks (getPrebuiltTargetName), the others go.
COPY package.json package-lock.json ./
RUN npm install --no-save --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild @swc/core protobufjs \
 && rm -rf node_modules/typescript \
 && keep="$(node -p "require('@temporalio/core-bridge/common').getPrebuiltTargetName()")" \
 && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 ! -name "$keep" -exec rm -rf {} + \
 && node -e "require('@temporalio/core-bridge')" \
 && npm cache clean --force

# The compiled code, its assets and the prebuilt workflow bundle; no TypeScript source. Owned by root and
# read-only for the runtime user: nothing writes into /app at run time.
COPY --from=build /app/dist ./dist

# The filesystem recordings store's mount point (docker-compose.yml's `recordings` volume), owned by the app's user:
# a new volume takes this ownership, so the API and the worker can write it.
RUN mkdir -p /data/recordings && chown node:node /data/recordings && chmod 700 /data/recordings

# Drop root: the official node images ship an unprivileged `node` user (uid 1000).
USER node

# The code defaults HOST to 127.0.0.1, which is unreachable from outside a container. The
# production profile is explicit: the relaxed dev profile is for `npm run up` on loopback only.
# Secrets are never baked in: each process refuses to start until the orchestrator gives it the
# ones it needs (src/platform/startupCheck.ts; docker-compose.yml shows which process needs which):
#   API        CARRIER_WEBHOOK_SECRET, SECRETS_KEY (METRICS_TOKEN optional)
#   worker     CARRIER_API_KEY, PAYMENTS_API_KEY, SECRETS_KEY, and PUBLIC_BASE_URL (the API's URL)
#   simulator  CARRIER_WEBHOOK_SECRET, CARRIER_API_KEY, PAYMENTS_API_KEY, SIMULATOR_CONTROL_TOKEN,
#              SIMULATOR_CALLBACK_BASE_URL (the API's URL)
# WORKFLOW_BUNDLE_PATH: the worker runs the bundle the build wrote (it would find it beside itself anyway; explicit
# for the reader and for an operator who mounts another).
ENV HOST=0.0.0.0 \
    PORT=8080 \
    SWITCHBOARD_PROFILE=production \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js

# 8080: API (PORT). 8090: carrier simulator (port taken from SIMULATOR_URL; not for publishing).
EXPOSE 8080 8090

CMD ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "dist/src/main/api.js"]

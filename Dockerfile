# Steward's production image: one image for both halves; docker-compose.yml runs it as `api` and as `worker`.
#   docker build -t steward .
#   docker run --rm -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... -e STEWARD_PAYLOAD_KEY=... -p 3000:3000 steward            # API
#   docker run --rm -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... -e STEWARD_PAYLOAD_KEY=... steward node dist/app/worker/main.js  # worker
#   docker run --rm -e DATABASE_URL=... steward node dist/app/scripts/admin.js bootstrap --json                                 # admin
#
# Node 26 is the Active LTS line (since October 2026; 24 is in maintenance). TypeScript is compiled
# ahead of time (`npm run build`: tsc into dist/app, the workflow bundle into dist/) and run with
# plain `node`: no tsx, no compiler, no embedded PostgreSQL or PGlite (development dependencies)
# in the final image. Use DATABASE_URL to point at a PostgreSQL server.
ARG NODE_IMAGE=node:26-trixie-slim

# 1. Build: every dependency, the compiler, the workflow bundle.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
COPY package.json package-lock.json ./
# The SDK patch (patches/) is applied by npm's postinstall, so it must be here before npm ci.
COPY patches ./patches
RUN npm ci --no-audit
COPY tsconfig.json tsconfig.build.json ./
COPY core ./core
COPY db ./db
COPY kernel ./kernel
COPY modules ./modules
COPY temporal ./temporal
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY api ./api
COPY scripts ./scripts
COPY sandbox ./sandbox
RUN npm run build

# 2. Production dependencies only (no dev dependencies: no embedded PostgreSQL, PGlite, tsc or jest).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit && npm cache clean --force

# 3. Run: compiled code, production dependencies, a user without root.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    STEWARD_DATA_DIR=/app/data \
    STEWARD_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/package.json ./package.json
COPY --from=build /src/dist/app ./dist/app
COPY --from=build /src/dist/workflow-bundle.js ./dist/workflow-bundle.js
# The only folder Steward writes to (a payload key file when STEWARD_PAYLOAD_KEY is unset, local
# media storage when MEDIA_STORAGE is not s3); mount a volume there to keep it. The code is root's
# and read-only to the service user.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# The API: /healthz answers. A worker (STEWARD_PROCESS=worker): it has polled its task queue lately (scripts/healthcheck.ts).
HEALTHCHECK --interval=15s --timeout=10s --start-period=60s --retries=4 \
  CMD ["node", "dist/app/scripts/healthcheck.js"]
CMD ["node", "dist/app/api/main.js"]

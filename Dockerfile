# One image for both halves of Steward; docker-compose.yml runs it as `api` and as `worker`.
#   docker build -t steward .
#   docker run --rm -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... -p 3000:3000 steward            # API
#   docker run --rm -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... steward npm run worker           # worker
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    HOST=0.0.0.0 \
    PORT=3000

# Dependencies first, so code changes do not reinstall them. Runtime code runs through tsx
# (a dependency); the Temporal CLI from `npm run setup` is only for local development.
COPY package.json package-lock.json ./
# The SDK patch (patches/) is applied by npm's postinstall, so it must be here before npm ci.
COPY patches ./patches
RUN npm ci --omit=dev && npm cache clean --force

COPY . .
# The worker loads this prebuilt workflow bundle instead of bundling at start.
RUN npm run build:workflows

USER node
EXPOSE 3000
CMD ["npm", "run", "api"]

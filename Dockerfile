# One image for the three services; the compose file picks the entry point.
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build stage.
# The Node of package.json (devDependency `node`, the version the tests run on), pinned by the
# digest of its multi-platform index as docker-library/repo-info records it for this tag
# (repos/node/remote/24.21.0-bookworm-slim.md): a rebuilt tag cannot change the image silently.
FROM node:24.21.0-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY shared ./shared
COPY services ./services
COPY infra/clickhouse ./infra/clickhouse
COPY infra/kafka/topics.ts ./infra/kafka/topics.ts
# Seed feeds: the default capability sources until the FEED_* variables point at real ones.
COPY infra/feeds ./infra/feeds
# The audit journal volume must be writable by the service user. (Services load their data from
# capability snapshots in Redis, so the image builds no resolution cache.)
RUN mkdir -p /var/lib/frs /app/.stack && chown node:node /var/lib/frs /app/.stack
USER node
EXPOSE 8080
# The API node's runtime flags (services/api/runtime-flags.ts); the other services override CMD.
CMD ["node", "--v8-pool-size=1", "--max-semi-space-size=16", "services/api/main.ts"]

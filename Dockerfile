# invoice-mirror as a container: `docker compose` (see docker-compose.yml) runs it as a daemon.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY scripts ./scripts
COPY patches ./patches
COPY src ./src
COPY migrations ./migrations
# npm ci builds (the prepare script); the dev dependencies are dropped afterwards, and so are the
# embedded PostgreSQL binaries (optional dependencies): in a container the database is DATABASE_URL.
# The data directory belongs to the user the program runs as, so that an embedded database (when
# no DATABASE_URL is given) can be created there.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --omit=optional --no-audit --no-fund \
  && mkdir -p /app/.invoice-mirror && chown node:node /app/.invoice-mirror
USER node
ENV EMBEDDED_DB_DIR=/app/.invoice-mirror/db
ENTRYPOINT ["node", "dist/cli/cli.js"]
CMD ["daemon"]

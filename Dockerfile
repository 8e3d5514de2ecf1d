# invoice-mirror as a container: `docker compose` (see docker-compose.yml) runs it as a daemon.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY scripts ./scripts
COPY patches ./patches
COPY src ./src
COPY migrations ./migrations
# npm ci builds (the prepare script); the dev dependencies are dropped afterwards, and so are the
# embedded PostgreSQL binaries (optional dependencies): in a container the database is DATABASE_URL.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --omit=optional --no-audit --no-fund
USER node
ENTRYPOINT ["node", "dist/cli/cli.js"]
CMD ["daemon"]

# syntax=docker/dockerfile:1
# mailagent in a container: docs/self-hosting.md ("Docker"). Build: docker build -t mailagent .
# Run:  docker run -d -p 127.0.0.1:7420:7420 -p 25:2525 -v mailagent-data:/data mailagent

# ---- build stage: compile TypeScript and the native SQLite binding, then drop dev dependencies
FROM node:20-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 downloads a prebuilt binding when one exists; the toolchain is the fallback.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` (a build) needs the sources, copied below.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
# The build's second step copies the web inbox's assets into dist/.
COPY scripts/copy-web-assets.mjs ./scripts/
RUN npm run build && npm prune --omit=dev

# ---- run stage: the built package, no compiler, no sources, not root
FROM node:20-bookworm-slim
# NODE_OPTIONS: the main thread's new space at 8 MB instead of 32; MALLOC_ARENA_MAX: glibc's malloc
# with two arenas instead of one per allocating thread (docs/self-hosting.md → Memory).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=4 \
    MALLOC_ARENA_MAX=2 \
    MAILAGENT_DATA_DIR=/data \
    MAILAGENT_HOST=0.0.0.0 \
    XDG_CONFIG_HOME=/data/cli
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/bin ./bin
COPY package.json README.md ./
COPY man ./man
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data \
 && ln -s /app/bin/mailagent /usr/local/bin/mailagent
# The image's unprivileged `node` user (uid 1000) owns the data volume.
USER node
VOLUME ["/data"]
# 7420: HTTP API (and /metrics, /health/ready); 2525: SMTP (map the host's port 25 to it).
EXPOSE 7420 2525
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["mailagent", "health", "--ready", "--url", "http://127.0.0.1:7420"]
# SIGTERM drains for at most 10 s; give `docker stop` more than that (compose: stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["mailagent"]
CMD ["serve"]

# syntax=docker/dockerfile:1
# Rein's image: one image for every role. REIN_ROLE picks what a container
# does (unset: everything in one process on SQLite; web or worker: one of
# several processes on PostgreSQL and Redis, see compose.yaml and
# docs/several-machines.md).
#
#   docker build -t rein .                       # with the desktop (tier T2)
#   docker build -t rein --build-arg DESKTOP=false .   # without Xvfb, x11vnc, openbox, Chromium
#
# Agents' shells and file access run in bubblewrap, which needs user
# namespaces and a fresh /proc inside the container: run web and worker
# containers with --security-opt seccomp=unconfined, apparmor=unconfined and
# systempaths=unconfined (docs/several-machines.md says why and what else).

# The Node Rein pins (scripts/node-runtime.sh, REIN_NODE_VERSION); a test keeps them equal.
ARG NODE_VERSION=24.21.0

# --- build: npm packages, both Prisma clients, the Next.js app and the server bundle ---
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
# As scripts/ensure-deps.sh: npm ci, or the same tree from the lock file when
# npm ci refuses optional packages the registry lacks.
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund --no-save
COPY . .
RUN npm run db:generate
RUN bash scripts/build.sh

# --- runtime ---
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# true: the operative desktop (tier T2) for agents such as demo-browser; false
# leaves out Xvfb, x11vnc, openbox and Chromium (about 400 MB), and runs that
# move up to a desktop then fail with their own message.
ARG DESKTOP=true
# The system packages of scripts/ensure-deps.sh (up): git, ripgrep and
# bubblewrap for every run, fonts, and the desktop's; prlimit (util-linux)
# bounds a pod's commands; tini reaps the processes runs leave behind.
RUN set -eux; \
    desktop=""; \
    if [ "$DESKTOP" = "true" ]; then desktop="xvfb x11vnc openbox chromium"; fi; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      git ripgrep bubblewrap util-linux ca-certificates fonts-dejavu-core tini $desktop; \
    rm -rf /var/lib/apt/lists/*

# Not root: bubblewrap then makes its namespaces as an unprivileged user
# (user namespaces), and the desktop's Chromium keeps its own sandbox.
RUN useradd --create-home --uid 10001 --user-group rein \
 && mkdir -p /data \
 && chown rein:rein /data

WORKDIR /app
COPY --from=build /app /app
# Next.js writes its cache beside the build.
COPY --from=build --chown=rein:rein /app/.next /app/.next

ENV NODE_ENV=production \
    REIN_DATA_DIR=/data

USER rein
EXPOSE 3000
# Web and worker processes both answer /api/health (503 while a process has
# lost PostgreSQL's liveness lock or Redis).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# Applies pending migrations, then runs dist/server.mjs as REIN_ROLE says.
CMD ["node", "scripts/start.mjs"]

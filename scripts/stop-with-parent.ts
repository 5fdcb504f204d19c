// Preloaded by the scripts that run a process through pnpm (`pnpm start`, `pnpm paykit`, an app's
// own `start`: `exec sh scripts/node.sh --import <this file> …`). scripts/node.sh makes node pnpm's
// own child, so the SIGTERM or SIGINT pnpm passes on reaches it; but nothing passes on a SIGKILL
// of pnpm, and node run through another `node` (pnpm's shim, when node.sh finds no binary) has a
// shell between it and pnpm. So node also watches its parent and, once it is gone (node is adopted
// by init), sends itself SIGTERM: the process stops as its SIGTERM handler says (`pnpm start` stops
// its children) instead of holding its ports and the PGlite lock with nobody to stop it.
const parent = process.ppid;

const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  process.kill(process.pid, 'SIGTERM');
}, 200);
// The watch never keeps a process alive that has finished its work.
watch.unref();

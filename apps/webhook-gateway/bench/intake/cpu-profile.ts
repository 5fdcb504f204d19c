// Reads a V8 .cpuprofile (node --cpu-prof) into the two views the intake profile prints: where
// the time is spent (self time by function) and what it is spent for (inclusive time by area: a
// package, one of our source folders, the garbage collector).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  /** Fraction of the busy (non-idle) samples. */
  share: number;
}

export interface ProfileSummary {
  /** Busy samples' time in ms (idle excluded). */
  busyMs: number;
  /** Self time by function (name and file:line), highest first. */
  self: Share[];
  /** Self time by area, highest first. */
  areas: Share[];
  /** Inclusive time of each function (name and file:line), highest first: what calls cost with everything under them. */
  inclusive: Share[];
}

/** The package or source folder a script belongs to: "fastify", "@paykit/store", "node:internal", "(gc)"… */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules) return modules[1]!;
  const ours = /\/(apps|packages|tooling)\/([^/]+)\/(?:src\/)?(.*)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}/${ours[3]}`;
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  return url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url === '' ? '' : `${areaOf(url, functionName)}:${lineNumber + 1}`}`.trim();
}

function ranked(totals: Map<string, number>, busy: number, limit: number): Share[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, time]) => ({ name, share: busy > 0 ? time / busy : 0 }));
}

export function summarizeProfile(file: string, limit = 30): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Each node's own sample time.
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, index) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));

  const self = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  // Depth-first from the root, carrying the frames above so recursion is counted once inclusively.
  const walk = (id: number, above: ReadonlySet<string>): number => {
    const node = byId.get(id)!;
    const name = frameName(node);
    const idle = node.callFrame.functionName === '(idle)';
    let total = idle ? 0 : (selfTime.get(id) ?? 0);
    if (total > 0) {
      busy += total;
      self.set(name, (self.get(name) ?? 0) + total);
      const area = areaOf(node.callFrame.url, node.callFrame.functionName);
      areas.set(area, (areas.get(area) ?? 0) + total);
    }
    const here = new Set(above).add(name);
    for (const child of node.children ?? []) total += walk(child, here);
    if (!above.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + total);
    return total;
  };
  walk(profile.nodes[0]!.id, new Set());
  return {
    busyMs: busy / 1000,
    self: ranked(self, busy, limit),
    areas: ranked(areas, busy, limit),
    inclusive: ranked(inclusive, busy, limit * 2),
  };
}

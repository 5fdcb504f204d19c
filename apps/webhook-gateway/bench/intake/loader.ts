// The load generator, a process of its own so the contender's CPU time and the loader's are not
// one event loop. Spawned by load.ts with the plan in BENCH_LOAD_PLAN (JSON) and the bearer token
// in BENCH_LOAD_TOKEN (environment, not argv: argv is visible to every user in `ps`). Writes one
// JSON LoadResult on stdout; anything else it has to say goes to stderr.
import { closedLoad } from './closed-load.ts';
import type { LoadPlan } from './load-result.ts';
import { pacedLoad } from './paced-load.ts';

const planText = process.env.BENCH_LOAD_PLAN;
const token = process.env.BENCH_LOAD_TOKEN;
if (!planText || !token) {
  console.error(
    'loader.ts is started by the intake benchmark (pnpm bench intake): BENCH_LOAD_PLAN and BENCH_LOAD_TOKEN must be set.',
  );
  process.exit(2);
}
const plan = JSON.parse(planText) as LoadPlan;
const result = plan.mode === 'paced' ? await pacedLoad(plan, token) : await closedLoad(plan, token);
const cpu = process.cpuUsage();
result.loaderCpuSeconds = (cpu.user + cpu.system) / 1e6;
result.loaderWallSeconds = process.uptime();
process.stdout.write(`${JSON.stringify(result)}\n`);

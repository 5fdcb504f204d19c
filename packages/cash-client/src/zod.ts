// The zod schemas of every request, response, component and event of specs/cash.yaml.
export * from './generated/zod.gen.ts';

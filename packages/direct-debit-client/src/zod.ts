// The zod schemas of every request, response, component and event of specs/direct-debit.yaml.
export * from './generated/zod.gen.ts';

// The zod schemas of every request, response, component and event of specs/gift-cards.yaml.
export * from './generated/zod.gen.ts';

// openapi-typescript's maps of specs/lottery.yaml: `paths`, `webhooks`, `components`, `operations`.
export type * from './generated/paths.gen.ts';

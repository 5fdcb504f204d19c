// openapi-typescript's maps of specs/gift-cards.yaml: `paths`, `webhooks`, `components`, `operations`.
export type * from './generated/paths.gen.ts';

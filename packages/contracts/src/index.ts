export * from './sandbox-control.ts';

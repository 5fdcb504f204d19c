export * from './sandbox-control.ts';
export * from './gateway.ts';
export * from './validation.ts';
export * from './amount.ts';
export * from './report-csv.ts';
export * from './spreadsheet.ts';

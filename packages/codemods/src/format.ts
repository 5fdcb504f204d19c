// The human-readable report of a codemod run: the diff (dry run), then each change and each
// occurrence left for a hand edit as `file:line:column`, so editors and terminals link to it.
import type { DomainImportsReport } from './domain-imports.ts';
import type { MoneyOutReport } from './money-out.ts';

interface Report {
  written: boolean;
  filesScanned: number;
  files: { diff: string }[];
  changes: { file: string; line: number; column: number; kind: string; before: string; after: string }[];
  skipped: { file: string; line: number; column: number; code: string; reason: string }[];
}

function formatReport(headline: string, report: Report): string {
  const lines: string[] = [];
  lines.push(headline, '');
  if (!report.written) for (const { diff } of report.files) lines.push(diff);
  const verb = report.written ? 'rewrote' : 'would rewrite';
  for (const change of report.changes) {
    lines.push(
      `${change.file}:${change.line}:${change.column}  ${verb} (${change.kind}): ${change.before}  →  ${change.after}`,
    );
  }
  for (const skip of report.skipped) {
    lines.push(`${skip.file}:${skip.line}:${skip.column}  NOT rewritten: ${skip.code}\n    ${skip.reason}`);
  }
  const summary = `${report.changes.length} change(s) in ${report.files.length} of ${report.filesScanned} file(s) ${report.written ? 'written' : 'found (dry run: pass --write to apply)'}; ${report.skipped.length} occurrence(s) to migrate by hand.`;
  lines.push('', summary);
  return lines.join('\n');
}

export function formatMoneyOutReport(report: MoneyOutReport): string {
  return formatReport(`paykit migrate money-out: ${report.deprecation}`, report);
}

export function formatDomainImportsReport(report: DomainImportsReport): string {
  return formatReport(`paykit-codemod domain-imports: ${report.reason}`, report);
}

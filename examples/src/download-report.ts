// A report download, as a daily job does it: ask the platform for the address of one day's
// transactions file (reports.download), fetch it at once (the address is short-lived and is its
// own authorisation: no credentials go with it), read it with @paykit/contracts' parseReportCsv,
// and say what it holds: the file, how many transactions of each kind and status. Counts only:
// money figures come from the ledger's journal once the file is imported (paykit reports import).
//   node … download-report.ts [YYYY-MM-DD]   the operation date (default: REPORT_DATE, else
//   yesterday in Mexico City); exit 0 with the summary, or with "no report" when the platform has
//   none for that day yet, 1 when the file cannot be had or read, 2 on a bad date or missing setting
import { createCoreClient } from '@paykit/core-client';
import { parseReportCsv, ReportFormatError } from '@paykit/contracts';

const missing = ['CORE_CLIENT_ID', 'CORE_API_KEY'].filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`Set ${missing.join(', ')} (the sandbox's are in GET /_sandbox/seed; see examples/README.md).`);
  process.exit(2);
}

/** Yesterday's date in Mexico City, where the platform's days begin and end. */
function yesterdayInMexicoCity(): string {
  const day = new Date(Date.now() - 24 * 3600 * 1000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Mexico_City' }).format(day); // YYYY-MM-DD
}

const date = process.argv[2] ?? process.env.REPORT_DATE ?? yesterdayInMexicoCity();
if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
  console.error(`"${date}" is no date: give the operation date as YYYY-MM-DD.`);
  process.exit(2);
}

const core = createCoreClient({
  environment: 'sandbox',
  baseUrl: `${process.env.PAYKIT_SANDBOX_URL ?? 'http://127.0.0.1:4010'}/core`,
  clientId: process.env.CORE_CLIENT_ID!,
  apiKey: process.env.CORE_API_KEY!,
  clientSecret: process.env.CORE_CLIENT_SECRET,
});

try {
  const file = await core.reports.download({ reportType: 'DAILY', operationDate: date });
  if (!file.found) {
    console.log(`no report for ${date} yet: the platform announces each file with a REPORT webhook.`);
  } else {
    const text = await core.reports.fetchFile(file.downloadUrl, { maxBytes: 16 * 1024 * 1024 });
    const lines = parseReportCsv(text);
    const kinds = new Map<string, number>();
    for (const line of lines) {
      const kind = `${line.subCategory} ${line.status}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    console.log(`${file.fileName}: ${lines.length} transaction(s) on ${date}`);
    for (const [kind, count] of [...kinds].sort()) console.log(`  ${kind}: ${count}`);
  }
} catch (error) {
  const what = error instanceof ReportFormatError ? 'the file is not in the report format' : 'no report';
  console.error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

// HTML building with escaping by default: every value from the ledger goes through esc().
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.matched{color:#1a7f37}.mismatched,.orphan{color:#cf222e}.stale{color:#9a6700}.pending{color:#57606a}.refunded{color:#8250df}
form.filters{display:flex;gap:.75rem;align-items:end;flex-wrap:wrap}label{display:flex;flex-direction:column;font-size:.8rem}
svg text{font-size:10px;fill:#57606a}nav a{margin-right:1rem}
</style></head><body>${body}</body></html>`;
}

export function table(headers: string[], rows: string[][], attrs = ''): string {
  if (rows.length === 0) return '<p><em>Nothing here.</em></p>';
  return `<table ${attrs}><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</tbody></table>`;
}

// HTML building with escaping by default: every value from the ledger goes through esc(). Every
// page shares one layout: the navigation and the console's one stylesheet (/console.css).
export function esc(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const NAV = [
  ['/', 'Overview'],
  ['/items', 'Items'],
  ['/volumes', 'Volumes'],
  ['/receivables', 'Receivables'],
  ['/conflicts', 'Conflicts'],
  ['/parked', 'Parked'],
  ['/drift', 'Drift'],
  ['/reports', 'Reports'],
  ['/audit', 'Audit'],
] as const;

export function page(title: string, body: string, current = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/console.css"></head>
<body><header><strong>paykit</strong><nav>${NAV.map(([href, label]) => `<a href="${href}"${href === current ? ' aria-current="page"' : ''}>${label}</a>`).join('')}</nav></header>
<main>${body}</main></body></html>`;
}

/** The text of a header cell given as HTML (a sort link): its tags dropped, its entities read. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/**
 * A table (wrapped so that a wide one scrolls instead of widening the page). Each cell carries its
 * column's name (`data-label`): on a phone the stylesheet shows every row as a card of
 * "name value" lines, the amounts included, instead of a table wider than the screen.
 */
export function table(headers: string[], rows: string[][], attrs = ''): string {
  if (rows.length === 0) return '<p class="empty"><em>Nothing here.</em></p>';
  // A sort link's text without its order mark.
  const labels = headers.map((h) => esc(h.startsWith('<') ? textOf(h).replace(/[▲▼]/g, '').trim() : h));
  const labelled = (cell: string, i: number) => cell.replace(/^<td\b/, `<td data-label="${labels[i] ?? ''}"`);
  return `<div class="scroll"><table ${attrs}><thead><tr>${headers.map((h) => (h.startsWith('<') ? `<th>${h}</th>` : `<th>${esc(h)}</th>`)).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map(labelled).join('')}</tr>`).join('')}</tbody></table></div>`;
}

/** The console's stylesheet: one small file, no web fonts, readable from 390 px to 1280 px and wider. */
export const STYLESHEET = `:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;--in:#1a7f37;--out:#0969da;--bad:#cf222e;--warn:#9a6700}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--fg);background:#fff}
header{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--bg)}header .logout{margin-left:auto}
header nav{display:flex;flex-wrap:wrap;gap:.25rem .9rem}header a{color:var(--fg);text-decoration:none}header a[aria-current]{font-weight:600;border-bottom:2px solid var(--out)}
main{max-width:1280px;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.5rem 0 1rem}h2{font-size:1.1rem;margin:2rem 0 .5rem}
a{color:var(--out)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:.75rem;margin:1rem 0}
.card{border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;background:#fff}
.card>span{display:block;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.03em}
.card strong{display:block;font-size:1.3rem;font-variant-numeric:tabular-nums;margin-top:.2rem}.card small{color:var(--muted)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:1rem}
.chart{border:1px solid var(--line);border-radius:8px;padding:.5rem}.chart h2{margin:.25rem 0 .5rem}.chart svg{width:100%;height:auto;display:block}
svg text{font-size:11px;fill:var(--muted)}svg .axis{stroke:var(--line)}svg .grid{stroke:#eaeef2}
.scroll{overflow-x:auto;margin:.5rem 0}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600;white-space:nowrap}th a{color:var(--fg)}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.t{white-space:nowrap}td.id span{display:inline-block;max-width:13ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
tbody tr:hover{background:#f6f8fa}
.matched,.settled{color:var(--in)}.mismatched,.orphan,.conflict,.rejected,.refused{color:var(--bad)}.stale,.disagreement{color:var(--warn)}.pending{color:var(--muted)}.refunded{color:#8250df}
form.filters{display:flex;gap:.75rem;align-items:end;flex-wrap:wrap;margin:.5rem 0}label{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted)}
input,select,button{font:inherit}button{padding:.35rem .9rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);cursor:pointer}
.pager{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin:.5rem 0}.muted,.empty{color:var(--muted)}
.exports a{margin-right:.75rem}
@media (max-width:600px){main{padding:.6rem}h1{font-size:1.15rem}.card strong{font-size:1.1rem}
.scroll{overflow:visible}table,tbody,tr,td{display:block;width:100%}
thead tr{display:flex;flex-wrap:wrap;gap:.2rem .8rem;font-size:.85rem}thead th{background:none;border:0;padding:0}thead th:not(:has(a)){display:none}
tbody tr{border:1px solid var(--line);border-radius:8px;margin:.6rem 0;padding:.2rem .6rem}
td{display:flex;flex-wrap:wrap;justify-content:space-between;gap:0 1rem;padding:.25rem 0;border-bottom:1px solid #eaeef2;text-align:right;overflow-wrap:anywhere}
td:empty{display:none}td:last-child{border-bottom:0}td::before{content:attr(data-label);color:var(--muted);text-align:left;flex:none;max-width:45%}
td.n{white-space:nowrap;font-weight:600}}
`;

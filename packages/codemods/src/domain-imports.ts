// The domain-imports migration (@paykit/runtime 1.1, @paykit/domain 0.1): money, Mexico City time,
// CLABE, RFC and card numbers moved out of the HTTP runtime into @paykit/domain. The runtime still
// re-exports them, deprecated; this rewrites every `import { … } from '@paykit/runtime'` (and
// `export { … } from`) so those names come from @paykit/domain: the whole declaration when it
// holds only domain names, else split in two. `import type`, inline `type` and `as` aliases are
// kept as written. What it cannot rewrite on the syntax alone (a namespace import, a dynamic
// import or require) is reported with file and line.
import {
  Node,
  SyntaxKind,
  type ExportDeclaration,
  type ExportSpecifier,
  type ImportDeclaration,
  type ImportSpecifier,
  type SourceFile,
} from 'ts-morph';
import { applyEdits, type TextEdit } from './edits.ts';
import { finishRun, loadFiles, position, relative, type RunSummary } from './project.ts';

const RUNTIME = '@paykit/runtime';
const DOMAIN = '@paykit/domain';

/** The names @paykit/runtime re-exports from @paykit/domain, deprecated. */
export const RUNTIME_DOMAIN_NAMES: readonly string[] = [
  'toCentavos',
  'fromCentavos',
  'formatMoney',
  'MoneyError',
  'parseMexicoCityLocal',
  'parseOffsetTimestamp',
  'formatMexicoCity',
  'formatMexicoCityLocal',
  'formatMexicoCityOffset',
  'TimeFormatError',
  'parseClabe',
  'isValidClabe',
  'clabeControlDigit',
  'ClabeError',
  'isValidRfc',
  'isValidCardNumber',
  'maskCardNumber',
  'maskCardNumbersIn',
];
const DOMAIN_NAMES = new Set(RUNTIME_DOMAIN_NAMES);

/** What this migration answers, as its report prints it. */
export const DOMAIN_IMPORTS_REASON =
  'the domain primitives (money, Mexico City time, CLABE, RFC, card numbers) moved from @paykit/runtime to @paykit/domain: import them from @paykit/domain.';

export interface DomainImportsOptions {
  /** Files or folders to migrate, relative to `cwd` (default: `['.']`). */
  paths?: readonly string[];
  /** The folder paths are resolved from and reported relative to (default: `process.cwd()`). */
  cwd?: string;
  /** Apply the changes to the files (default false: a dry run that only reports and diffs). */
  write?: boolean;
}

export interface DomainImportsChange {
  /** Path relative to `cwd`, with forward slashes. */
  file: string;
  line: number;
  column: number;
  /**
   * `import`/`export`: the whole declaration now names @paykit/domain; `split`: the domain names
   * went to a declaration of their own; `merged`: they joined the file's @paykit/domain import.
   */
  kind: 'import' | 'export' | 'split' | 'merged';
  /** The declaration before and after (whitespace collapsed). */
  before: string;
  after: string;
}

export interface DomainImportsSkip {
  file: string;
  line: number;
  column: number;
  /** The source line, trimmed. */
  code: string;
  /** Why it was left alone, and what to do by hand. */
  reason: string;
}

export interface DomainImportsReport extends RunSummary {
  changes: DomainImportsChange[];
  skipped: DomainImportsSkip[];
  /** What the migration answers. */
  reason: string;
}

type Declaration = ImportDeclaration | ExportDeclaration;
type Specifier = ImportSpecifier | ExportSpecifier;

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

function specifiersOf(declaration: Declaration): Specifier[] {
  return Node.isImportDeclaration(declaration) ? declaration.getNamedImports() : declaration.getNamedExports();
}

/** `import type { … }` / `export type { … }`, so the domain half keeps the same form. */
function declarationText(declaration: Declaration, specifiers: readonly string[], quote: string): string {
  const verb = Node.isImportDeclaration(declaration) ? 'import' : 'export';
  const type = declaration.isTypeOnly() ? 'type ' : '';
  return `${verb} ${type}{ ${specifiers.join(', ')} } from ${quote}${DOMAIN}${quote};`;
}

/** The end of `node`'s line, its line break included, so a removed declaration leaves no blank line. */
function endOfLine(text: string, end: number): number {
  if (text.startsWith('\r\n', end)) return end + 2;
  return text[end] === '\n' ? end + 1 : end;
}

interface FileResult {
  edits: TextEdit[];
  changes: { node: Node; kind: DomainImportsChange['kind']; before: string; after: string }[];
  skips: { node: Node; reason: string }[];
}

/** The file's `import { … } from '@paykit/domain'` of the same form (type-only or not), to merge into. */
function existingDomainImport(file: SourceFile, typeOnly: boolean): ImportDeclaration | undefined {
  return file
    .getImportDeclarations()
    .find(
      (d) =>
        d.getModuleSpecifierValue() === DOMAIN &&
        d.isTypeOnly() === typeOnly &&
        !d.getNamespaceImport() &&
        d.getNamedImports().length > 0,
    );
}

/**
 * Where the domain names of an import go: the file's own import from @paykit/domain of the same
 * form (value or type-only), else the first one this run makes, so a file ends with one of each.
 */
type DomainTarget =
  | { kind: 'existing'; declaration: ImportDeclaration; added: string[] }
  | ({ kind: 'created' } & Split);

/** A declaration split in two: its edit's text is written once every name it gathers is known. */
interface Split {
  declaration: Declaration;
  names: string[];
  edit: TextEdit;
  runtimeText: string;
  quote: string;
  change: { after: string };
}

function rewriteDeclarations(file: SourceFile, text: string, result: FileResult): void {
  const targets = new Map<boolean, DomainTarget>();
  for (const typeOnly of [false, true]) {
    const existing = existingDomainImport(file, typeOnly);
    if (existing) targets.set(typeOnly, { kind: 'existing', declaration: existing, added: [] });
  }
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const declarations: Declaration[] = [...file.getImportDeclarations(), ...file.getExportDeclarations()];
  for (const declaration of declarations) {
    const moduleSpecifier = declaration.getModuleSpecifier();
    if (!moduleSpecifier || declaration.getModuleSpecifierValue() !== RUNTIME) continue;
    const specifiers = specifiersOf(declaration);
    const moved = specifiers.filter((s) => DOMAIN_NAMES.has(s.getName()));
    if (moved.length === 0) continue;
    const kept = specifiers.filter((s) => !DOMAIN_NAMES.has(s.getName()));
    const quote = moduleSpecifier.getText()[0] ?? "'";
    const start = declaration.getStart();
    const before = collapse(declaration.getText());
    const movedText = moved.map((s) => s.getText());
    const isImport = Node.isImportDeclaration(declaration);
    const target = isImport ? targets.get(declaration.isTypeOnly()) : undefined;
    if (target?.kind === 'existing') target.added.push(...movedText);
    if (target?.kind === 'created') target.names.push(...movedText);

    if (kept.length === 0) {
      if (target) {
        result.edits.push({ start, end: endOfLine(text, declaration.getEnd()), text: '' });
        result.changes.push({
          node: declaration,
          kind: 'merged',
          before,
          after: `(joined the import from ${DOMAIN} above)`,
        });
        continue;
      }
      const quoted = `${quote}${DOMAIN}${quote}`;
      result.edits.push({ start: moduleSpecifier.getStart(), end: moduleSpecifier.getEnd(), text: quoted });
      const after =
        text.slice(start, moduleSpecifier.getStart()) +
        quoted +
        text.slice(moduleSpecifier.getEnd(), declaration.getEnd());
      result.changes.push({ node: declaration, kind: isImport ? 'import' : 'export', before, after: collapse(after) });
      if (isImport) targets.set(declaration.isTypeOnly(), { kind: 'existing', declaration, added: [] });
      continue;
    }

    // Mixed: the runtime keeps its names, the domain names go to a declaration of their own.
    const braces = moved[0]?.getParentOrThrow() ?? declaration;
    const runtimeText =
      text.slice(start, braces.getStart()) +
      `{ ${kept.map((s) => s.getText()).join(', ')} }` +
      text.slice(braces.getEnd(), declaration.getEnd());
    const edit: TextEdit = { start, end: declaration.getEnd(), text: runtimeText };
    result.edits.push(edit);
    if (target) {
      result.changes.push({ node: declaration, kind: 'merged', before, after: collapse(runtimeText) });
      continue;
    }
    const change = { node: declaration, kind: 'split' as const, before, after: '' };
    result.changes.push(change);
    const split: Split = { declaration, names: movedText, edit, runtimeText, quote, change };
    if (isImport) targets.set(declaration.isTypeOnly(), { kind: 'created', ...split });
    else finishSplit(split, newline);
  }
  for (const target of targets.values()) {
    if (target.kind === 'created') {
      finishSplit(target, newline);
      continue;
    }
    const last = target.declaration.getNamedImports().at(-1);
    const names = target.declaration.getNamedImports().map((s) => s.getText());
    const fresh = target.added.filter((name, i) => !names.includes(name) && target.added.indexOf(name) === i);
    if (last && fresh.length > 0)
      result.edits.push({ start: last.getEnd(), end: last.getEnd(), text: `, ${fresh.join(', ')}` });
  }
}

/** The split declaration's text: the runtime's half, then the domain's with every name it gathered. */
function finishSplit(split: Split, newline: string): void {
  const domainText = declarationText(split.declaration, [...new Set(split.names)], split.quote);
  split.edit.text = `${split.runtimeText}${newline}${domainText}`;
  split.change.after = collapse(`${split.runtimeText} ${domainText}`);
}

/** Namespace imports, dynamic imports and requires of the runtime that read a domain name: reported. */
function findUnprovable(file: SourceFile, result: FileResult): void {
  for (const declaration of file.getImportDeclarations()) {
    const namespace = declaration.getNamespaceImport();
    if (declaration.getModuleSpecifierValue() !== RUNTIME || !namespace) continue;
    const alias = namespace.getText();
    for (const node of file.getDescendants()) {
      const [owner, name] = Node.isPropertyAccessExpression(node)
        ? [node.getExpression(), node.getName()]
        : Node.isQualifiedName(node)
          ? [node.getLeft(), node.getRight().getText()]
          : [undefined, undefined];
      if (!owner || owner.getText() !== alias || !name || !DOMAIN_NAMES.has(name)) continue;
      result.skips.push({
        node,
        reason: `${alias}.${name} reads a domain name through a namespace import of ${RUNTIME}: import { ${name} } from '${DOMAIN}' and use it directly.`,
      });
    }
  }
  for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const isLoad =
      callee.getKind() === SyntaxKind.ImportKeyword || (Node.isIdentifier(callee) && callee.getText() === 'require');
    const [argument] = call.getArguments();
    if (!isLoad || !argument || !Node.isStringLiteral(argument) || argument.getLiteralValue() !== RUNTIME) continue;
    let holder: Node = call;
    for (
      let parent = holder.getParent();
      parent && (Node.isAwaitExpression(parent) || Node.isParenthesizedExpression(parent));
      parent = holder.getParent()
    )
      holder = parent;
    const parent = holder.getParent();
    let names: string[] = [];
    if (Node.isVariableDeclaration(parent) && Node.isObjectBindingPattern(parent.getNameNode())) {
      const pattern = parent.getNameNode();
      if (Node.isObjectBindingPattern(pattern))
        names = pattern.getElements().map((e) => e.getPropertyNameNode()?.getText() ?? e.getName());
    } else if (Node.isPropertyAccessExpression(parent)) {
      names = [parent.getName()];
    }
    const domain = names.filter((name) => DOMAIN_NAMES.has(name));
    if (domain.length === 0) continue;
    result.skips.push({
      node: call,
      reason: `loads ${domain.join(', ')} from ${RUNTIME} at run time: load ${domain.length > 1 ? 'them' : 'it'} from '${DOMAIN}' instead (same values).`,
    });
  }
}

/**
 * Rewrites the imports and re-exports of the domain names from `@paykit/runtime` to
 * `@paykit/domain` across a code base. A dry run unless `write` is set; the report lists every
 * change and every occurrence left for a hand edit, with file and line.
 */
export async function migrateDomainImports(options: DomainImportsOptions = {}): Promise<DomainImportsReport> {
  const loaded = await loadFiles(options);
  const { cwd, project, originals } = loaded;
  const changes: DomainImportsChange[] = [];
  const skipped: DomainImportsSkip[] = [];
  const results = new Map<string, string>();
  for (const file of project.getSourceFiles()) {
    const filePath = file.getFilePath();
    const text = originals.get(filePath);
    if (text === undefined || !text.includes(RUNTIME)) continue;
    const result: FileResult = { edits: [], changes: [], skips: [] };
    rewriteDeclarations(file, text, result);
    findUnprovable(file, result);
    const where = (node: Node) => ({ file: relative(cwd, filePath), ...position(file, node) });
    for (const { node, kind, before, after } of result.changes) {
      const { code: _code, ...place } = where(node);
      changes.push({ ...place, kind, before, after });
    }
    for (const { node, reason } of result.skips) skipped.push({ ...where(node), reason });
    if (result.edits.length > 0) results.set(filePath, applyEdits(text, result.edits));
  }
  return {
    ...(await finishRun(loaded, results, { write: options.write, changes, skipped })),
    reason: DOMAIN_IMPORTS_REASON,
  };
}

// The money_out migration (platform change of 2026-05-07, and @paykit/core-client 1.0's documented
// body): every call of the core client's deprecated `transactions.internalTransaction` becomes
// `transactions.moneyOut` (the platform takes the same body on both endpoints), and a flat body
// literal passed to either becomes the nested one (the money inside `transaction_request`). Calls
// it cannot prove are the core client's, and bodies it cannot see into, are reported with file and
// line, never guessed at.
import { Node, SyntaxKind, ts, type CallExpression, type Identifier, type SourceFile } from 'ts-morph';
import { CORE_CLIENT_MODULE, CoreClientResolver } from './core-client-refs.ts';
import { INTERNAL_TRANSACTION_DEPRECATION } from './deprecation.ts';
import { applyEdits, type TextEdit } from './edits.ts';
import { finishRun, loadFiles, position, relative, type RunSummary } from './project.ts';
import { transferBodyVerdict } from './transfer-body.ts';

const OLD = 'internalTransaction';
const NEW = 'moneyOut';
/** The generated SDK's functions for the two operations. */
const GENERATED_OLD = 'createInternalTransaction';
const GENERATED_NEW = 'createMoneyOut';

export interface MoneyOutOptions {
  /** Files or folders to migrate, relative to `cwd` (default: `['.']`). */
  paths?: readonly string[];
  /** The folder paths are resolved from and reported relative to (default: `process.cwd()`). */
  cwd?: string;
  /** Apply the changes to the files (default false: a dry run that only reports and diffs). */
  write?: boolean;
}

export interface MoneyOutChange {
  /** Path relative to `cwd`, with forward slashes. */
  file: string;
  line: number;
  column: number;
  /** A call, a reference to the method (passed or bound), a destructured binding of it, or a flat body made nested. */
  kind: 'call' | 'reference' | 'destructuring' | 'body';
  /** The source line before and after, trimmed. */
  before: string;
  after: string;
}

export interface MoneyOutSkip {
  file: string;
  line: number;
  column: number;
  /** The source line, trimmed. */
  code: string;
  /** Why it was left alone, and what to do by hand. */
  reason: string;
}

export interface MoneyOutReport extends RunSummary {
  changes: MoneyOutChange[];
  skipped: MoneyOutSkip[];
  /** The deprecation this migration answers, worded as everywhere else in paykit. */
  deprecation: string;
}

interface Finding {
  node: Node;
  edits: { node: Node; text: string }[];
  kind: MoneyOutChange['kind'];
}

/** Whether `moneyOut` already names something where `node` is (renaming onto it would capture it). */
function nameTaken(node: Node): boolean {
  const checker = node.getProject().getTypeChecker().compilerObject;
  return checker.getSymbolsInScope(node.compilerNode, ts.SymbolFlags.Value).some((symbol) => symbol.getName() === NEW);
}

function mentionsCoreClient(file: SourceFile): boolean {
  return file.getFullText().includes(CORE_CLIENT_MODULE);
}

/**
 * The uses of a destructured local in its file. The language service's references of a shorthand
 * binding would also return the client's property (its declaration, `['internalTransaction']`
 * accesses): only the local's own symbol counts here.
 */
function localReferences(binding: Identifier): Identifier[] {
  const checker = binding.getProject().getTypeChecker();
  const local = binding.getSymbol();
  if (!local) return [];
  return binding
    .getSourceFile()
    .getDescendantsOfKind(SyntaxKind.Identifier)
    .filter((candidate) => {
      if (candidate === binding || candidate.getText() !== OLD) return false;
      const parent = candidate.getParent();
      const symbol =
        parent && Node.isShorthandPropertyAssignment(parent)
          ? checker.getShorthandAssignmentValueSymbol(parent)
          : candidate.getSymbol();
      return symbol === local;
    });
}

/** `const { internalTransaction } = core.transactions`: renames the binding and every use of it. */
function destructured(identifier: Identifier, element: Node): Finding | string {
  if (!Node.isBindingElement(element)) return 'not a binding';
  const property = element.getPropertyNameNode();
  if (property) return { node: identifier, edits: [{ node: property, text: NEW }], kind: 'destructuring' };
  const statement = element.getFirstAncestorByKind(SyntaxKind.VariableStatement);
  if (statement?.isExported()) {
    return `the destructured ${OLD} is exported: renaming it changes this module's exports. Rename it to ${NEW} here and in the modules that import it.`;
  }
  const references = localReferences(identifier);
  if ([identifier, ...references].some(nameTaken)) {
    return `${NEW} is already a name in this scope, so the binding cannot take it: destructure { ${NEW}: <another name> } and call that.`;
  }
  const edits: Finding['edits'] = [{ node: identifier, text: NEW }];
  for (const reference of references) {
    const parent = reference.getParent();
    if (parent && Node.isExportSpecifier(parent)) {
      return `${OLD} is re-exported (line ${reference.getStartLineNumber()}): renaming it changes this module's exports. Rename it to ${NEW} by hand.`;
    }
    if (parent && Node.isShorthandPropertyAssignment(parent)) edits.push({ node: reference, text: `${OLD}: ${NEW}` });
    else edits.push({ node: reference, text: NEW });
  }
  return { node: identifier, edits, kind: 'destructuring' };
}

function analyse(
  file: SourceFile,
  resolver: CoreClientResolver,
): { findings: Finding[]; skips: { node: Node; reason: string }[] } {
  const findings: Finding[] = [];
  const skips: { node: Node; reason: string }[] = [];
  const importsCore = mentionsCoreClient(file);
  for (const identifier of file.getDescendantsOfKind(SyntaxKind.Identifier)) {
    if (identifier.getText() !== OLD) continue;
    const parent = identifier.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === identifier) {
      const owner = parent.getExpression();
      if (resolver.kindOf(owner) === 'transactions') {
        const call = parent.getParent();
        const isCall = Node.isCallExpression(call) && call.getExpression() === parent;
        findings.push({
          node: identifier,
          edits: [{ node: identifier, text: NEW }],
          kind: isCall ? 'call' : 'reference',
        });
      } else if (importsCore || /(^|\.)transactions$/.test(owner.getText())) {
        skips.push({
          node: identifier,
          reason: `cannot tell whether ${owner.getText()} is the core client's transactions (nothing here shows it comes from createCoreClient or is typed CoreClient). If it is, rename ${OLD} to ${NEW}: same body.`,
        });
      }
    } else if (
      Node.isBindingElement(parent) &&
      (parent.getPropertyNameNode() === identifier ||
        (!parent.getPropertyNameNode() && parent.getNameNode() === identifier))
    ) {
      const pattern = parent.getParent();
      if (resolver.kindOfBindingSource(pattern, 0) === 'transactions') {
        const finding = destructured(identifier, parent);
        if (typeof finding === 'string') skips.push({ node: identifier, reason: finding });
        else findings.push(finding);
      } else if (importsCore) {
        skips.push({
          node: identifier,
          reason: `cannot tell whether this destructures the core client's transactions. If it does, take ${NEW} instead: same body.`,
        });
      }
    }
  }
  for (const access of file.getDescendantsOfKind(SyntaxKind.ElementAccessExpression)) {
    const key = access.getArgumentExpression();
    if (
      key &&
      !(Node.isStringLiteral(key) || Node.isNoSubstitutionTemplateLiteral(key)) &&
      resolver.kindOf(access.getExpression()) === 'transactions'
    ) {
      // transactions[op]: which operation runs is known only when the code runs.
      skips.push({
        node: access,
        reason: `${access.getText()} picks the core client's operation by a computed key: if it can be ${OLD}, make it ${NEW} (same body), and check the body passed is the nested one (transaction_request).`,
      });
      continue;
    }
    if (
      !key ||
      !(Node.isStringLiteral(key) || Node.isNoSubstitutionTemplateLiteral(key)) ||
      key.getLiteralValue() !== OLD
    )
      continue;
    if (resolver.kindOf(access.getExpression()) === 'transactions') {
      const quote = key.getText()[0] ?? "'";
      findings.push({ node: key, edits: [{ node: key, text: `${quote}${NEW}${quote}` }], kind: 'reference' });
    } else if (importsCore) {
      skips.push({
        node: key,
        reason: `cannot tell whether ${access.getExpression().getText()} is the core client's transactions. If it is, use ['${NEW}']: same body.`,
      });
    }
  }
  // The generated SDK function, imported from the client package: its options are not the client's.
  for (const declaration of file.getImportDeclarations()) {
    if (!declaration.getModuleSpecifierValue().startsWith('@paykit/core-client')) continue;
    for (const named of declaration.getNamedImports()) {
      if (named.getName() !== GENERATED_OLD) continue;
      skips.push({
        node: named,
        reason: `imports the generated ${GENERATED_OLD}, deprecated since 2026-05-07: call ${GENERATED_NEW} with the same options, the body nested in transaction_request (or use the client's transactions.${NEW}). Not rewritten: its options are the SDK's, not the client's.`,
      });
    }
  }
  for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (!isTransferCall(call, resolver)) continue;
    const verdict = transferBodyVerdict(call);
    if (verdict.kind === 'rewrite')
      findings.push({ node: verdict.node, edits: [{ node: verdict.node, text: verdict.text }], kind: 'body' });
    else if (verdict.kind === 'report') skips.push({ node: verdict.node, reason: verdict.reason });
  }
  return { findings, skips };
}

const TRANSFER_METHODS = new Set([OLD, NEW]);

/** A call of the core client's moneyOut or internalTransaction: on `transactions`, by key, or through a destructured binding. */
function isTransferCall(call: CallExpression, resolver: CoreClientResolver): boolean {
  const callee = call.getExpression();
  if (Node.isPropertyAccessExpression(callee))
    return TRANSFER_METHODS.has(callee.getName()) && resolver.kindOf(callee.getExpression()) === 'transactions';
  if (Node.isElementAccessExpression(callee)) {
    const key = callee.getArgumentExpression();
    return (
      !!key &&
      (Node.isStringLiteral(key) || Node.isNoSubstitutionTemplateLiteral(key)) &&
      TRANSFER_METHODS.has(key.getLiteralValue()) &&
      resolver.kindOf(callee.getExpression()) === 'transactions'
    );
  }
  if (!Node.isIdentifier(callee)) return false;
  return (callee.getSymbol()?.getDeclarations() ?? []).some((declaration) => {
    if (!Node.isBindingElement(declaration)) return false;
    const method = declaration.getPropertyNameNode()?.getText() ?? declaration.getName();
    return TRANSFER_METHODS.has(method) && resolver.kindOfBindingSource(declaration.getParent(), 0) === 'transactions';
  });
}

/**
 * Rewrites the core client's `transactions.internalTransaction(...)` to `transactions.moneyOut(...)`
 * and flat transfer bodies to the nested one across a code base. A dry run unless `write` is set; the report lists every change and every
 * occurrence it left for a hand edit, with file and line.
 */
export async function migrateMoneyOut(options: MoneyOutOptions = {}): Promise<MoneyOutReport> {
  const loaded = await loadFiles(options);
  const { cwd, project, originals } = loaded;
  const resolver = new CoreClientResolver();
  const editsByFile = new Map<string, TextEdit[]>();
  const changes: MoneyOutChange[] = [];
  const skipped: MoneyOutSkip[] = [];
  const changedAt: { file: string; node: Node; kind: MoneyOutChange['kind'] }[] = [];

  for (const file of project.getSourceFiles()) {
    const filePath = file.getFilePath();
    if (!originals.has(filePath)) continue;
    const { findings, skips } = analyse(file, resolver);
    for (const { node, reason } of skips) {
      const where = position(file, node);
      skipped.push({ file: relative(cwd, filePath), line: where.line, column: where.column, code: where.code, reason });
    }
    for (const finding of findings) {
      const outside = finding.edits.find((edit) => !originals.has(edit.node.getSourceFile().getFilePath()));
      if (outside) {
        const where = position(file, finding.node);
        const other = relative(cwd, outside.node.getSourceFile().getFilePath());
        skipped.push({
          file: relative(cwd, filePath),
          line: where.line,
          column: where.column,
          code: where.code,
          reason: `migrating this also needs a change in ${other}, which is not among the paths given: run the codemod over both.`,
        });
        continue;
      }
      for (const edit of finding.edits) {
        const target = edit.node.getSourceFile().getFilePath();
        const list = editsByFile.get(target) ?? [];
        if (!list.some((e) => e.start === edit.node.getStart()))
          list.push({ start: edit.node.getStart(), end: edit.node.getEnd(), text: edit.text });
        editsByFile.set(target, list);
      }
      changedAt.push({ file: filePath, node: finding.node, kind: finding.kind });
    }
  }

  const results = new Map<string, string>();
  for (const [file, edits] of editsByFile) results.set(file, applyEdits(originals.get(file) ?? '', edits));
  for (const { file, node, kind } of changedAt) {
    const sourceFile = project.getSourceFileOrThrow(file);
    const where = position(sourceFile, node);
    const afterLine = (results.get(file) ?? '').split(/\r?\n/)[where.line - 1]?.trim() ?? where.code;
    changes.push({
      file: relative(cwd, file),
      line: where.line,
      column: where.column,
      kind,
      before: where.code,
      after: afterLine,
    });
  }
  return {
    ...(await finishRun(loaded, results, { write: options.write, changes, skipped })),
    deprecation: INTERNAL_TRANSACTION_DEPRECATION,
  };
}

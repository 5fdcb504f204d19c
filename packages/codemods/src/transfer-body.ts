// The body half of the money-out migration: the platform documents money_out's body nested, with
// the money inside `transaction_request` ({client_id, source_instrument_id,
// destination_instrument_id, transaction_request: {external_reference, description, amount,
// currency}}), and @paykit/core-client 1.0 types it so. A flat object literal passed to moneyOut or
// internalTransaction is rewritten to the nested form; any body it cannot see into is reported.
import { Node, SyntaxKind, type CallExpression, type Expression, type ObjectLiteralExpression } from 'ts-morph';

/** The fields that move into transaction_request. */
export const MONEY_FIELDS = ['amount', 'currency', 'description', 'external_reference'] as const;

export type BodyVerdict =
  /** Nothing to do: the body is already nested (or has no money fields and no spread). */
  | { kind: 'nested' }
  | { kind: 'rewrite'; node: ObjectLiteralExpression; text: string }
  | { kind: 'report'; node: Node; reason: string };

const HAND_EDIT = 'move amount, currency ("MXN"), description and external_reference into transaction_request: { … }';

function propertyName(property: Node): string | undefined {
  if (
    Node.isPropertyAssignment(property) ||
    Node.isShorthandPropertyAssignment(property) ||
    Node.isMethodDeclaration(property)
  ) {
    const name = property.getNameNode();
    if (Node.isIdentifier(name)) return name.getText();
    if (Node.isStringLiteral(name) || Node.isNoSubstitutionTemplateLiteral(name)) return name.getLiteralValue();
  }
  return undefined;
}

/** The quote the file's string literals use, so inserted text reads like the code around it. */
function quoteOf(node: Node): string {
  const literal = node.getSourceFile().getFirstDescendantByKind(SyntaxKind.StringLiteral);
  return literal?.getText().startsWith('"') ? '"' : "'";
}

function rewriteLiteral(literal: ObjectLiteralExpression): BodyVerdict {
  const properties = literal.getProperties();
  const names = properties.map(propertyName);
  if (names.includes('transaction_request')) return { kind: 'nested' };
  const spread = properties.find((p) => Node.isSpreadAssignment(p));
  const money = properties.filter((_, i) => (MONEY_FIELDS as readonly (string | undefined)[]).includes(names[i]));
  if (spread) {
    return {
      kind: 'report',
      node: literal,
      reason: `the body spreads ${spread.getText()}, which may carry flat money fields: ${HAND_EDIT}.`,
    };
  }
  if (money.length === 0) return { kind: 'nested' };
  if (properties.some((p) => !Node.isPropertyAssignment(p) && !Node.isShorthandPropertyAssignment(p))) {
    return {
      kind: 'report',
      node: literal,
      reason: `the body has a method or accessor, which cannot be moved safely: ${HAND_EDIT}.`,
    };
  }
  const rest = properties.filter((p) => !money.includes(p));
  const moved = money.map((p) => p.getText());
  if (!names.includes('currency')) moved.push(`currency: ${quoteOf(literal)}MXN${quoteOf(literal)}`);
  const multiline = literal.getText().includes('\n');
  if (!multiline) {
    const parts = [...rest.map((p) => p.getText()), `transaction_request: { ${moved.join(', ')} }`];
    return { kind: 'rewrite', node: literal, text: `{ ${parts.join(', ')} }` };
  }
  const first = properties[0]!;
  const indent = ' '.repeat(first.getSourceFile().getLineAndColumnAtPos(first.getStart()).column - 1);
  const closing = indent.slice(2);
  const lines = [
    '{',
    ...rest.map((p) => `${indent}${p.getText()},`),
    `${indent}transaction_request: {`,
    ...moved.map((m) => `${indent}  ${m},`),
    `${indent}},`,
    `${closing}}`,
  ];
  return { kind: 'rewrite', node: literal, text: lines.join('\n') };
}

/** Whether an identifier argument is declared with a written type (so the compiler checks it). */
function declaredWithType(argument: Expression): boolean {
  if (!Node.isIdentifier(argument)) return false;
  return (argument.getSymbol()?.getDeclarations() ?? []).some(
    (d) =>
      (Node.isParameterDeclaration(d) || Node.isVariableDeclaration(d) || Node.isPropertyDeclaration(d)) &&
      d.getTypeNode() !== undefined,
  );
}

/** What to do with the body of one moneyOut / internalTransaction call. */
export function transferBodyVerdict(call: CallExpression): BodyVerdict {
  const [argument] = call.getArguments();
  if (!argument || !Node.isExpression(argument)) return { kind: 'nested' };
  let body: Expression = argument;
  while (Node.isParenthesizedExpression(body) || Node.isAsExpression(body) || Node.isSatisfiesExpression(body))
    body = body.getExpression();
  if (Node.isObjectLiteralExpression(body)) return rewriteLiteral(body);
  const type = body.getType();
  if (type.getProperty('transaction_request')) return { kind: 'nested' };
  if (type.getProperty('amount')) {
    return {
      kind: 'report',
      node: argument,
      reason: `${body.getText()} is a flat body (its type has amount at the top level): ${HAND_EDIT}, where it is built.`,
    };
  }
  if ((type.isAny() || type.isUnknown()) && !declaredWithType(body)) {
    return {
      kind: 'report',
      node: argument,
      reason: `cannot see the shape of ${body.getText()}: if it is flat, ${HAND_EDIT}, where it is built.`,
    };
  }
  return { kind: 'nested' };
}

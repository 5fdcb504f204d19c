// Decides, on the syntax tree and the binder's symbols (no type information about the installed
// package is needed), whether an expression is a paykit core client, its `transactions`, or its
// `transactions.internalTransaction`. It follows what a reader would follow: imports of
// `@paykit/core-client` (named, aliased, namespace, require), `createCoreClient(...)` results,
// `CoreClient` annotations, destructuring, class members and imports between the code base's
// own files. Whatever it cannot prove stays undecided, and the codemod reports it instead.
import { Node, SyntaxKind } from 'ts-morph';

export const CORE_CLIENT_MODULE = '@paykit/core-client';

export type CoreKind = 'client' | 'transactions' | 'internalTransaction';

/** Resolution follows declarations through files; a chain this long is a cycle or not ours. */
const MAX_DEPTH = 24;

/** `client.transactions` → transactions, `transactions.internalTransaction` → the method. */
function step(kind: CoreKind | undefined, property: string): CoreKind | undefined {
  if (kind === 'client' && property === 'transactions') return 'transactions';
  if (kind === 'transactions' && property === 'internalTransaction') return 'internalTransaction';
  return undefined;
}

function unwrap(node: Node): Node {
  let current = node;
  while (
    Node.isParenthesizedExpression(current) ||
    Node.isAsExpression(current) ||
    Node.isNonNullExpression(current) ||
    Node.isSatisfiesExpression(current) ||
    Node.isTypeAssertion(current)
  ) {
    current = current.getExpression();
  }
  return current;
}

function stringValue(node: Node | undefined): string | undefined {
  if (node && (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node))) return node.getLiteralValue();
  return undefined;
}

/** `require('@paykit/core-client')`, `import('@paykit/core-client')`, `await import(…)`. */
function isCoreModuleLoad(node: Node | undefined): boolean {
  if (!node) return false;
  const expression = unwrap(Node.isAwaitExpression(node) ? node.getExpression() : node);
  if (!Node.isCallExpression(expression)) return false;
  const callee = expression.getExpression();
  const isLoader =
    callee.getKind() === SyntaxKind.ImportKeyword || (Node.isIdentifier(callee) && callee.getText() === 'require');
  return isLoader && stringValue(expression.getArguments()[0]) === CORE_CLIENT_MODULE;
}

/** The export of `@paykit/core-client` a declaration binds, or 'module' for a namespace binding. */
function coreImport(declaration: Node): string | undefined {
  if (Node.isImportSpecifier(declaration)) {
    return declaration.getImportDeclaration().getModuleSpecifierValue() === CORE_CLIENT_MODULE
      ? declaration.getName()
      : undefined;
  }
  if (Node.isNamespaceImport(declaration)) {
    const owner = declaration.getFirstAncestorByKind(SyntaxKind.ImportDeclaration);
    return owner?.getModuleSpecifierValue() === CORE_CLIENT_MODULE ? 'module' : undefined;
  }
  if (Node.isImportEqualsDeclaration(declaration)) {
    const reference = declaration.getModuleReference();
    return Node.isExternalModuleReference(reference) && stringValue(reference.getExpression()) === CORE_CLIENT_MODULE
      ? 'module'
      : undefined;
  }
  if (Node.isVariableDeclaration(declaration) && Node.isIdentifier(declaration.getNameNode())) {
    return isCoreModuleLoad(declaration.getInitializer()) ? 'module' : undefined;
  }
  if (Node.isBindingElement(declaration)) {
    const owner = declaration.getParent().getParent();
    if (Node.isVariableDeclaration(owner) && isCoreModuleLoad(owner.getInitializer())) {
      return declaration.getPropertyNameNode()?.getText() ?? declaration.getName();
    }
  }
  return undefined;
}

export class CoreClientResolver {
  /** Whether `node` (an identifier, `ns.name` or a qualified type name) is `exportName` of @paykit/core-client. */
  isCoreExport(node: Node, exportName: string, depth = 0): boolean {
    if (depth > MAX_DEPTH) return false;
    if (Node.isPropertyAccessExpression(node) || Node.isQualifiedName(node)) {
      const left = Node.isPropertyAccessExpression(node) ? node.getExpression() : node.getLeft();
      const right = Node.isPropertyAccessExpression(node) ? node.getName() : node.getRight().getText();
      return right === exportName && this.isCoreExport(left, 'module', depth + 1);
    }
    if (!Node.isIdentifier(node)) return false;
    for (const declaration of node.getSymbol()?.getDeclarations() ?? []) {
      if (coreImport(declaration) === exportName) return true;
    }
    return false;
  }

  /** What an expression is, when it is one of the core client's objects. */
  kindOf(expression: Node, depth = 0): CoreKind | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const node = unwrap(expression);
    if (Node.isCallExpression(node)) {
      return this.isCoreExport(unwrap(node.getExpression()), 'createCoreClient', depth + 1) ? 'client' : undefined;
    }
    if (Node.isPropertyAccessExpression(node)) {
      const stepped = step(this.kindOf(node.getExpression(), depth + 1), node.getName());
      return stepped ?? this.kindOfSymbolOf(node.getNameNode(), depth + 1);
    }
    if (Node.isElementAccessExpression(node)) {
      const key = stringValue(node.getArgumentExpression());
      return key === undefined ? undefined : step(this.kindOf(node.getExpression(), depth + 1), key);
    }
    if (Node.isIdentifier(node)) return this.kindOfSymbolOf(node, depth + 1);
    return undefined;
  }

  /** What the values a binding pattern destructures come from. */
  kindOfBindingSource(pattern: Node, depth: number): CoreKind | undefined {
    const owner = pattern.getParent();
    if (!owner || depth > MAX_DEPTH) return undefined;
    if (Node.isBindingElement(owner)) return this.kindOfBindingElement(owner, depth + 1);
    if (Node.isVariableDeclaration(owner) || Node.isParameterDeclaration(owner)) {
      const typeNode = owner.getTypeNode();
      if (typeNode) return this.kindOfType(typeNode, depth + 1);
      const initializer = owner.getInitializer();
      return initializer ? this.kindOf(initializer, depth + 1) : undefined;
    }
    return undefined;
  }

  /** `{ transactions }` of a client → transactions; `{ internalTransaction }` of transactions → the method. */
  kindOfBindingElement(element: Node, depth: number): CoreKind | undefined {
    if (!Node.isBindingElement(element)) return undefined;
    const parent = element.getParent();
    if (!Node.isObjectBindingPattern(parent)) return undefined;
    const property = element.getPropertyNameNode()?.getText() ?? element.getNameNode().getText();
    return step(this.kindOfBindingSource(parent, depth + 1), property);
  }

  private kindOfSymbolOf(identifier: Node, depth: number): CoreKind | undefined {
    const symbol = identifier.getSymbol();
    if (!symbol) return undefined;
    let declarations = symbol.getDeclarations();
    // An import from another file of the code base: follow it to the exported declaration.
    if (declarations.some((d) => Node.isImportSpecifier(d) || Node.isImportClause(d))) {
      if (declarations.some((d) => coreImport(d) !== undefined)) return undefined;
      declarations = symbol.getAliasedSymbol()?.getDeclarations() ?? [];
    }
    for (const declaration of declarations) {
      const kind = this.kindOfDeclaration(declaration, depth + 1);
      if (kind) return kind;
    }
    return undefined;
  }

  private kindOfDeclaration(declaration: Node, depth: number): CoreKind | undefined {
    if (depth > MAX_DEPTH) return undefined;
    if (Node.isBindingElement(declaration)) return this.kindOfBindingElement(declaration, depth + 1);
    if (
      Node.isVariableDeclaration(declaration) ||
      Node.isParameterDeclaration(declaration) ||
      Node.isPropertyDeclaration(declaration) ||
      Node.isPropertySignature(declaration)
    ) {
      const typeNode = declaration.getTypeNode();
      if (typeNode) return this.kindOfType(typeNode, depth + 1);
      const initializer = Node.isPropertySignature(declaration) ? undefined : declaration.getInitializer();
      return initializer ? this.kindOf(initializer, depth + 1) : undefined;
    }
    if (Node.isPropertyAssignment(declaration)) {
      const initializer = declaration.getInitializer();
      return initializer ? this.kindOf(initializer, depth + 1) : undefined;
    }
    return undefined;
  }

  /** `CoreClient`, `paykit.CoreClient`, `ReturnType<typeof createCoreClient>`, `CoreClient['transactions']`, and local aliases of them. */
  kindOfType(typeNode: Node, depth: number): CoreKind | undefined {
    if (depth > MAX_DEPTH) return undefined;
    if (Node.isParenthesizedTypeNode(typeNode)) return this.kindOfType(typeNode.getTypeNode(), depth + 1);
    if (Node.isIndexedAccessTypeNode(typeNode)) {
      const index = typeNode.getIndexTypeNode();
      const key = Node.isLiteralTypeNode(index) ? stringValue(index.getLiteral()) : undefined;
      return key === undefined ? undefined : step(this.kindOfType(typeNode.getObjectTypeNode(), depth + 1), key);
    }
    if (!Node.isTypeReference(typeNode)) return undefined;
    const name = typeNode.getTypeName();
    if (this.isCoreExport(name, 'CoreClient', depth + 1)) return 'client';
    if (name.getText() === 'ReturnType') {
      const argument = typeNode.getTypeArguments()[0];
      if (
        argument &&
        Node.isTypeQuery(argument) &&
        this.isCoreExport(argument.getExprName(), 'createCoreClient', depth + 1)
      )
        return 'client';
      return undefined;
    }
    if (Node.isIdentifier(name)) {
      for (const declaration of name.getSymbol()?.getDeclarations() ?? []) {
        if (Node.isTypeAliasDeclaration(declaration)) {
          const aliased = declaration.getTypeNode();
          const kind = aliased ? this.kindOfType(aliased, depth + 1) : undefined;
          if (kind) return kind;
        }
      }
    }
    return undefined;
  }
}

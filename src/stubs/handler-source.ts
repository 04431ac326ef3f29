/**
 * The handler files of a stub project (src/handlers/<tag>.ts): the source of one generated handler, and the
 * handlers an existing file exports, found with the TypeScript parser so that --update can tell an untouched
 * stub from one the implementer changed.
 */
import ts from 'typescript';

export interface StubOperation {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary?: string;
}

export type HandlerMode = 'not_implemented' | 'example';

/** The handler statement (its comment excluded: editing a comment does not make a handler the implementer's). */
export function handlerStatement(operation: StubOperation, mode: HandlerMode): string {
  const answer = mode === 'example' ? `documentedExample('${operation.operationId}')` : `notImplemented('${operation.operationId}')`;
  return `export const ${operation.operationId}: Handler<'${operation.operationId}'> = async () => ${answer};`;
}

export function handlerComment(operation: StubOperation): string {
  const summary = operation.summary ? `: ${operation.summary.replace(/\*\//g, '* /')}` : '';
  return `/** ${operation.method} /v1${operation.path}${summary}. */`;
}

export function handlerFileName(tag: string): string {
  return `${
    tag
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'untagged'
  }.ts`;
}

export function handlerFileHeader(tag: string): string {
  return [
    `// Handlers of the ${JSON.stringify(tag)} operations, one function per operation of the contract, typed from it.`,
    '// Replace a body with your implementation: `npm run stubs -- --update` adds handlers for new operations here and',
    '// never overwrites one you changed.',
    "import { documentedExample } from '../examples.js';",
    "import { type Handler, notImplemented } from '../handler-types.js';",
    '',
  ].join('\n');
}

export interface ExportedHandler {
  name: string;
  /** The statement's source, without its leading comment. */
  text: string;
  start: number;
  end: number;
  /** Whether it is typed `Handler<'…'>`, as every generated handler is. */
  typedAsHandler: boolean;
}

/** The top-level exported consts and functions of a handler file. */
export function exportedHandlers(fileName: string, source: string): ExportedHandler[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: ExportedHandler[] = [];
  for (const statement of file.statements) {
    const exported =
      ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    const start = statement.getStart(file);
    const text = source.slice(start, statement.end);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const typedAsHandler = declaration.type !== undefined && /^Handler\s*</.test(declaration.type.getText(file));
        found.push({ name: declaration.name.text, text, start, end: statement.end, typedAsHandler });
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      found.push({ name: statement.name.text, text, start, end: statement.end, typedAsHandler: false });
    }
  }
  return found;
}

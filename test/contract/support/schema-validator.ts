/**
 * JSON Schema 2020-12 validation (the dialect of OpenAPI 3.1) of values against schemas inside the bundled
 * document, addressed by JSON pointer so that the schemas' `#/components/...` references resolve.
 * ajv and ajv-formats come with the toolchain (Prism, Spectral, express-openapi-validator depend on them).
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { document, operation, responseContent } from './document.js';

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const documentId = 'openapi.json';

let ajv: Ajv2020 | undefined;
function instance(): Ajv2020 {
  if (!ajv) {
    // strict: false because OpenAPI adds keywords of its own (discriminator, example, externalDocs, xml).
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, documentId);
  }
  return ajv;
}

/** `['webhooks', 'form.created', 'post']` → `#/webhooks/form.created/post`, escaped as a URI fragment. */
export function pointer(segments: string[]): string {
  return `#/${segments.map((segment) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
}

/** The segments of a local `$ref` (`#/components/responses/Form` → `['components', 'responses', 'Form']`), unescaped. */
export function refSegments(ref: string): string[] {
  if (!ref.startsWith('#/')) throw new Error(`Not a local reference: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Validates `value` against the schema at `schemaPointer` (from `pointer()`); returns ajv's errors, empty when valid. */
export function schemaErrors(schemaPointer: string, value: unknown): ErrorObject[] {
  const validate = instance().getSchema(`${documentId}${schemaPointer}`);
  if (!validate) throw new Error(`No schema at ${schemaPointer}`);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/**
 * The pointer to the body schema of an operation's documented response, through the shared response it
 * references when it does (`#/components/responses/<Name>/content/<media type>/schema`).
 */
export function responseSchemaPointer(operationId: string, status: number): string {
  const op = operation(operationId);
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${operationId} does not document a ${status} response`);
  const { mediaType } = responseContent(operationId, status);
  const base = '$ref' in response ? refSegments(response.$ref) : ['paths', op.path, op.method.toLowerCase(), 'responses', String(status)];
  return pointer([...base, 'content', mediaType, 'schema']);
}

/**
 * Changes of our own carried in patches/express-openapi-validator+5.6.2.patch. The shared document: the validator
 * compiles each operation's schemas against one copy of the document per Ajv instance instead of attaching the
 * whole document to each of them; exercised through the validator's own cache and Ajv factories, as its request and
 * response validators call them. The media types: each distinct Content-Type text is parsed once.
 */
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { useAjvCache } = require('express-openapi-validator/dist/middlewares/util.js') as {
  useAjvCache(ajv: Ajv, schema: object, key: string): ValidateFunction;
};
const { createRequestAjv, createResponseAjv } = require('express-openapi-validator/dist/framework/ajv/index.js') as {
  createRequestAjv(document: object, options: object): Ajv;
  createResponseAjv(document: object, options: object): Ajv;
};

/** As the validator configures Ajv: no extra formats, and keywords it does not know (the document's) allowed. */
const ajvOptions = { formats: {}, strict: false };

const document = () => ({
  openapi: '3.1.0',
  info: { title: 'shared', version: '1' },
  paths: {},
  components: {
    schemas: {
      Lead: {
        type: 'object',
        required: ['email', 'tags'],
        properties: { email: { type: 'string', format: 'email' }, tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } } },
        additionalProperties: false,
      },
      Tag: { type: 'string', minLength: 2 },
      // A schema that refers to itself: the shared copy must compile it like the attached document did.
      Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
    },
  },
});

/** A schema as the response validator builds it: the response schema, with the whole document attached. */
const responseSchema = (doc: ReturnType<typeof document>, schema: object) => ({
  type: 'object',
  properties: { response: schema },
  components: doc.components,
  paths: doc.paths,
});

const sharedDocuments = (ajv: Ajv) =>
  Object.keys((ajv as unknown as { schemas: Record<string, unknown> }).schemas).filter((id) =>
    id.includes('express-openapi-validator.invalid'),
  );

describe('the validator patch: one shared document per Ajv instance', () => {
  it('when schemas refer to components, including nested and recursive ones, then they validate as the attached document did', () => {
    const doc = document();
    const ajv = createResponseAjv(doc, { ...ajvOptions, allErrors: true, ajvFormats: { mode: 'full' } });
    const lead = useAjvCache(ajv, responseSchema(doc, { $ref: '#/components/schemas/Lead' }), 'GET-/leads-200');
    const tree = useAjvCache(ajv, responseSchema(doc, { $ref: '#/components/schemas/Node' }), 'GET-/tree-200');

    expect(lead({ response: { email: 'a@b.test', tags: ['vip'] } })).toBe(true);
    expect(lead({ response: { email: 'not an email', tags: ['v'], extra: 1 } })).toBe(false);
    expect(lead.errors?.map((error) => `${error.instancePath} ${error.keyword}`).sort()).toEqual([
      '/response additionalProperties',
      '/response/email format',
      '/response/tags/0 minLength',
    ]);
    expect(tree({ response: { children: [{ children: [] }] } })).toBe(true);
    expect(tree({ response: { children: [{ children: 'no' }] } })).toBe(false);
  });

  it('when many schemas are compiled against one document, then the document is added to Ajv once and each component compiled once', () => {
    const doc = document();
    const ajv = createResponseAjv(doc, ajvOptions);
    for (const status of [200, 400, 404])
      useAjvCache(ajv, responseSchema(doc, { $ref: '#/components/schemas/Lead' }), `GET-/leads-${status}`);
    useAjvCache(ajv, responseSchema(doc, { type: 'array', items: { $ref: '#/components/schemas/Lead' } }), 'GET-/leads/list-200');
    expect(sharedDocuments(ajv)).toHaveLength(1);
    const [id] = sharedDocuments(ajv);
    // Ajv keeps the compiled component under its full reference, the one every schema above refers to.
    const refs = (ajv as unknown as { refs: Record<string, { validate?: unknown }> }).refs;
    expect(refs[`${id}#/components/schemas/Lead`]?.validate).toBeTypeOf('function');

    // Another document (another validator instance's copy) gets its own.
    const other = document();
    useAjvCache(ajv, responseSchema(other, { $ref: '#/components/schemas/Tag' }), 'GET-/tags-200');
    expect(sharedDocuments(ajv)).toHaveLength(2);
  });

  it('when a default, const or enum holds a member named $ref, then it stays data', () => {
    const doc = document();
    const ajv = createRequestAjv(doc, { ...ajvOptions, useDefaults: true, allErrors: true });
    const body = useAjvCache(
      ajv,
      {
        components: doc.components,
        paths: doc.paths,
        properties: {
          body: {
            type: 'object',
            properties: {
              link: { type: 'object', default: { $ref: '#/components/schemas/Tag' } },
              kind: { enum: [{ $ref: '#/x' }, 'plain'] },
              tag: { $ref: '#/components/schemas/Tag' },
            },
          },
        },
      },
      'POST-/links',
    );
    const data = { body: { tag: 'ok', kind: { $ref: '#/x' } } as Record<string, unknown> };
    expect(body(data)).toBe(true);
    expect(data.body.link).toEqual({ $ref: '#/components/schemas/Tag' });
    // Rewritten like a reference, the enum would accept this value and no longer the one above.
    expect(body({ body: { tag: 'ok', kind: { $ref: `${sharedDocuments(ajv)[0]}#/x` } } })).toBe(false);
    expect(body({ body: { tag: 'x' } })).toBe(false);
  });

  it('when properties are named like keywords (default, enum), then their schemas and references still apply', () => {
    const doc = document();
    const ajv = createResponseAjv(doc, { ...ajvOptions, allErrors: true, ajvFormats: { mode: 'full' } });
    // A pointer into a component (not a component itself) resolves only through the shared copy.
    const email = { $ref: '#/components/schemas/Lead/properties/email' };
    const properties = { default: email, enum: email };
    const validate = useAjvCache(ajv, responseSchema(doc, { type: 'object', properties }), 'GET-/named-200');
    expect(validate({ response: { default: 'a@b.test', enum: 'c@d.test' } })).toBe(true);
    expect(validate({ response: { default: 'not an email', enum: 'c@d.test' } })).toBe(false);
    expect(validate({ response: { enum: 'not an email' } })).toBe(false);
  });

  it('when a schema carries no document, then it is compiled as given', () => {
    const ajv = createResponseAjv(document(), ajvOptions);
    const plain = useAjvCache(ajv, { type: 'object', required: ['id'] }, 'plain');
    expect(plain({ id: 1 })).toBe(true);
    expect(plain({})).toBe(false);
    expect(sharedDocuments(ajv)).toHaveLength(0);
  });
});

describe('the validator patch: media types parsed once per text', () => {
  const { ContentType } = require('express-openapi-validator/dist/middlewares/util.js') as {
    ContentType: {
      new (text?: string): { mediaType: string | null; parameters: Record<string, string>; isWildCard?: boolean; normalize(): string };
      from(req: { headers: Record<string, string | undefined> }): InstanceType<typeof ContentType>;
      fromString(text?: string): InstanceType<typeof ContentType>;
    };
  };
  const fields = (parsed: InstanceType<typeof ContentType>) => ({ ...parsed, normalized: parsed.normalize() });

  it('when a text is parsed again, then the same frozen parse is given, equal to a fresh one', () => {
    for (const text of ['application/json', 'Application/JSON; Charset=UTF-8', 'text/*', 'multipart/form-data; boundary=x; a=b']) {
      const first = ContentType.fromString(text);
      expect(ContentType.fromString(text)).toBe(first);
      expect(ContentType.from({ headers: { 'content-type': text } })).toBe(first);
      expect(fields(first)).toEqual(fields(new ContentType(text)));
      expect(Object.isFrozen(first) && Object.isFrozen(first.parameters)).toBe(true);
    }
  });

  it('when there is no text, or a very long one, then it is parsed every time and nothing is kept', () => {
    expect(ContentType.from({ headers: {} })).not.toBe(ContentType.from({ headers: {} }));
    const long = `application/json; x=${'y'.repeat(300)}`;
    expect(ContentType.fromString(long)).not.toBe(ContentType.fromString(long));
    expect(ContentType.fromString(long).mediaType).toBe('application/json');
  });

  it('when many texts are parsed, then at most 256 are kept and the oldest is parsed again', () => {
    const first = ContentType.fromString('application/x-first');
    for (let index = 0; index < 256; index++) ContentType.fromString(`application/x-${index}`);
    expect(ContentType.fromString('application/x-first')).not.toBe(first);
  });
});

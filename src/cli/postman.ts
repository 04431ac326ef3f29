// Writes a Postman collection of the contract (`npm run postman`, after `npm run bundle`):
// dist/form-funnel.postman_collection.json, converted from dist/openapi.json by openapi-to-postmanv2, with one
// folder per tag and the examples as request values. The bearer key is a collection variable (`apiKey`) used by
// the collection's auth, and `baseUrl` defaults to production; point it at the mock (http://127.0.0.1:4010/v1)
// or the local reference server to try the API.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convert } from 'openapi-to-postmanv2';

const root = path.resolve(import.meta.dirname, '../..');
const bundledJson = path.join(root, 'dist/openapi.json');
export const collectionPath = path.join(root, 'dist/form-funnel.postman_collection.json');

type Json = Record<string, unknown>;
interface Variable {
  key: string;
  value: string;
  type?: string;
  description?: string;
}

export function postmanCollection(document: string): Promise<Json> {
  return new Promise((resolve, reject) => {
    convert(
      { type: 'string', data: document },
      {
        folderStrategy: 'Tags',
        requestParametersResolution: 'Example',
        exampleParametersResolution: 'Example',
        // Optional parameters (both cursors at once, every filter) would make each request one nobody sends.
        enableOptionalParameters: false,
      },
      (error, result) => {
        if (error) return reject(error);
        if (!result?.result || !result.output?.[0]) return reject(new Error(`openapi-to-postmanv2: ${result?.reason ?? 'no collection'}`));
        resolve(withApiKeyVariable(result.output[0].data as Json));
      },
    );
  });
}

/** The collection authenticates with `Bearer {{apiKey}}`; requests that take no key (OAuth token) keep `noauth`. */
function withApiKeyVariable(collection: Json): Json {
  const variables = ((collection.variable as Variable[] | undefined) ?? []).filter((variable) => variable.key !== 'apiKey');
  variables.push({
    key: 'apiKey',
    value: '',
    type: 'string',
    description: 'An API key (svc_test_… for the sandbox) or an OAuth access token, sent as Bearer.',
  });
  for (const request of requestsOf(collection.item as Item[])) {
    // Authenticated requests inherit the collection's auth; the converter names its own variable per request.
    if (request.auth?.type === 'bearer') delete request.auth;
    else request.auth = { type: 'noauth' };
    // A form-encoded body is the request example's fields; the converter disables those the schema's top level
    // does not require (all of them when the body is a oneOf), which would send an empty body.
    for (const field of request.body?.urlencoded ?? []) field.disabled = false;
  }
  // A guide-only tag (x-traitTag, "Getting started") becomes a folder without requests: leave it out.
  const item = (collection.item as Item[]).filter((entry) => entry.request || [...requestsOf(entry.item ?? [])].length > 0);
  return {
    ...collection,
    item,
    variable: variables,
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
  };
}

interface Item {
  item?: Item[];
  request?: { auth?: { type: string }; body?: { urlencoded?: Array<{ disabled?: boolean }> } };
}

function* requestsOf(items: Item[]): Generator<NonNullable<Item['request']>> {
  for (const item of items) {
    if (item.item) yield* requestsOf(item.item);
    if (item.request) yield item.request;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const collection = await postmanCollection(readFileSync(bundledJson, 'utf8'));
  writeFileSync(collectionPath, `${JSON.stringify(collection, null, 2)}\n`);
  console.log(`Wrote ${path.relative(root, collectionPath)}: set its apiKey variable, and baseUrl for the mock or a local server.`);
}

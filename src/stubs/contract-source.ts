/**
 * The contract a stub project is generated from: the document bundled fresh from openapi/ (never a dist/ copy
 * that may be stale), with the code samples the published document carries.
 */
import { fileURLToPath } from 'node:url';
import { bundle, loadConfig } from '@redocly/openapi-core';
import { withCodeSamples } from '../code-samples.js';
import type { OpenApiDocument } from './template/src/contract.js';

const redoclyConfigPath = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));
const documentRootPath = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

export async function bundleContract(): Promise<OpenApiDocument> {
  const config = await loadConfig({ configPath: redoclyConfigPath });
  const { bundle: bundled, problems } = await bundle({ ref: documentRootPath, config });
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) throw new Error(`The contract does not bundle: ${errors.map((problem) => problem.message).join('; ')}`);
  return withCodeSamples(bundled.parsed as Record<string, unknown>) as unknown as OpenApiDocument;
}

import * as logos from '../../domain/forms/logo.js';
import { ifMatchOf } from '../if-match.js';
import { tagged } from './tagged.js';
import type { Handler } from './types.js';

export const setFormLogo: Handler<'setFormLogo'> = async ({ services, principal, params, body, header }) =>
  tagged(
    await logos.setFormLogo(
      services,
      principal,
      params.id,
      { bytes: body.bytes, contentType: body.mediaType },
      ifMatchOf(header('if-match')),
    ),
  );

export const deleteFormLogo: Handler<'deleteFormLogo'> = async ({ services, principal, params, header }) =>
  tagged(await logos.deleteFormLogo(services, principal, params.id, ifMatchOf(header('if-match'))));

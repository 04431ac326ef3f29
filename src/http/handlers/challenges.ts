import * as challenges from '../../domain/challenges/service.js';
import type { Handler } from './types.js';

export const createPublicChallenge: Handler<'createPublicChallenge'> = async ({ services, principal }) => ({
  status: 200,
  body: await challenges.createPublicChallenge(services, principal),
});

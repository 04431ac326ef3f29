import { secretBase62 } from '../../ids.js';

/** `whsec_` and 32 base62 characters (about 190 bits). */
export const generateSigningSecret = (): string => `whsec_${secretBase62(32)}`;

/** What later responses show of the secret: its prefix and last four characters (`whsec_…u9Lo`). */
export const signingSecretHint = (secret: string): string => `whsec_…${secret.slice(-4)}`;

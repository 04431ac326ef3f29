import { createHash, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../../contract.js';
import { secretBase62 } from '../../ids.js';

/** `svc_live_` / `svc_test_` and 40 base62 characters (about 238 bits). */
export const secretPattern = /^svc_(live|test)_[0-9A-Za-z]{32,64}$/;

export const generateSecret = (environment: Environment): string => `svc_${environment}_${secretBase62(40)}`;

/**
 * Secrets are random with far more entropy than any guessing budget, so a single SHA-256 is the right
 * hash (a slow password hash would only slow every request). Only the hash is stored; lookups are by hash.
 */
export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** Constant-time comparison of two hashes, whatever their contents. */
export const hashesMatch = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/** What a listing may show of a secret: its prefix and last four characters. */
export const secretHint = (secret: string): string => `${secret.slice(0, secret.indexOf('_', 4) + 1)}…${secret.slice(-4)}`;

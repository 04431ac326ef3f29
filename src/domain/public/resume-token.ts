/**
 * Resume tokens of public submissions: random, shown once, kept only as a SHA-256 hash (they have far more entropy
 * than any guessing budget, as API key secrets do), compared in constant time, and good for one thing: continuing
 * their submission within its resume window.
 */
import { randomBase62 } from '../../ids.js';
import { hashesMatch, hashSecret } from '../keys/secret.js';

/** How long a partial public submission can be continued, from its creation (as createPublicSubmission states). */
export const RESUME_WINDOW_DAYS = 30;

export const generateResumeToken = (): string => `srt_${randomBase62(40)}`;

export const hashResumeToken = hashSecret;

export const resumeTokenMatches = (storedHash: Buffer, token: string): boolean => hashesMatch(storedHash, hashResumeToken(token));

export const resumeExpiryOf = (createdAt: Date): string => new Date(createdAt.getTime() + RESUME_WINDOW_DAYS * 86_400_000).toISOString();

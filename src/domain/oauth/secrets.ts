/**
 * The secrets of the OAuth flow and their lifetimes. Authorization codes (`svc_oac_…`), access tokens
 * (`svc_oat_…`, sent as bearer tokens like API keys), refresh tokens (`svc_ort_…`) and confidential clients'
 * secrets (`svc_ocs_…`) are opaque random
 * strings of about 238 bits, stored only as SHA-256 hashes (RFC 6819 section 5.1.4.1.3), like API key
 * secrets. Distinct prefixes let the authenticator, secret scanners and people tell them apart.
 */
import { randomBase62, secretBase62 } from '../../ids.js';

export { hashesMatch, hashSecret as hashToken } from '../keys/secret.js';

/** `expires_in` of every access token: short-lived, so a leaked one is worth little. */
export const accessTokenLifetimeSeconds = 3600;
export const refreshTokenLifetimeSeconds = 90 * 24 * 3600;
/** RFC 6749 section 4.1.2 recommends at most 10 minutes. */
export const authorizationCodeLifetimeSeconds = 600;

export const authorizationCodePattern = /^svc_oac_[0-9A-Za-z]{40}$/;
export const refreshTokenPattern = /^svc_ort_[0-9A-Za-z]{40}$/;

export const generateAuthorizationCode = (): string => `svc_oac_${secretBase62(40)}`;
export const generateAccessToken = (): string => `svc_oat_${secretBase62(40)}`;
export const generateRefreshToken = (): string => `svc_ort_${secretBase62(40)}`;
/** A confidential client's secret, shown once at registration and kept as its hash like the tokens. */
export const generateClientSecret = (): string => `svc_ocs_${secretBase62(40)}`;

/**
 * Identifiers: `oat_` (access token, reported by GET /me and audit events), `ort_` (refresh token) and `ogr_`
 * (grant) are internal; client ids are public (`client_id`) and follow the contract's OAuthClientId pattern.
 */
export const newOAuthId = (prefix: 'oat' | 'ort' | 'ogr' | 'client'): string => `${prefix}_${randomBase62(24)}`;

export const secondsAfter = (at: Date, seconds: number): string => new Date(at.getTime() + seconds * 1000).toISOString();

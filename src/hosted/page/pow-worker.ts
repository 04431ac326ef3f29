/**
 * Solves a proof-of-work challenge (ALTCHA v2, SHA-256) off the page's main thread, so the page stays responsive:
 * the counter whose digest of salt, nonce and counter starts with the challenge's key prefix.
 */
import type { Schema } from '../../contract.js';

type Challenge = Schema<'Challenge'>;

const bytesOf = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
const hexOf = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

async function solve({ parameters, signature }: Challenge): Promise<string> {
  const salt = bytesOf(parameters.salt);
  const nonce = bytesOf(parameters.nonce);
  const data = new Uint8Array(salt.length + nonce.length + 4);
  data.set(salt);
  data.set(nonce, salt.length);
  const view = new DataView(data.buffer);
  for (let counter = 0; ; counter++) {
    view.setUint32(salt.length + nonce.length, counter);
    const derivedKey = hexOf(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
    if (derivedKey.startsWith(parameters.keyPrefix)) {
      return btoa(JSON.stringify({ challenge: { parameters, signature }, solution: { counter, derivedKey } }));
    }
  }
}

// A worker's global scope; typed with the page's DOM library (the two libraries cannot share one program).
const scope = self as unknown as {
  addEventListener(type: 'message', listener: (event: MessageEvent<Challenge>) => void): void;
  postMessage(message: string): void;
};
scope.addEventListener('message', (event) => {
  solve(event.data).then((payload) => scope.postMessage(payload));
});

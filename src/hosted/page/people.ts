/**
 * The people pages' one script: passkeys. A button `data-passkey="sign-in"` or `"register"` runs that WebAuthn
 * ceremony with @simplewebauthn/browser against the server's two JSON endpoints (src/people/passkey-protocol.ts):
 *
 *   1. POST <data-options>  body {}                           → 200 { options }   (the server keeps the challenge)
 *   2. startAuthentication / startRegistration with those options (the browser asks the authenticator)
 *   3. POST <data-verify>   body { response, next? | name? }  → 200 { redirect }  (a local path: the page goes there)
 *   Any refusal: a 4xx/5xx with JSON { message }, shown as it is in the status line (data-status names it).
 *
 * Both requests are same-origin JSON POSTs with the session cookie (`credentials: 'same-origin'`); the server checks
 * their Origin. Optional data: `data-next` (sign-in: where to go after), `data-name-input` (register: the id of the
 * input holding the passkey's name). The button starts hidden and is shown only where WebAuthn exists; its
 * `data-fallback` names the line that says a passkey needs JavaScript, which this script removes, so a page without the
 * script (JavaScript off, the file blocked) still explains itself.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type {
  PasskeyCeremony,
  PasskeyDone,
  PasskeyProblem,
  RegistrationOptions,
  RegistrationVerification,
  SignInOptions,
  SignInVerification,
} from '../../people/passkey-protocol.js';

/** Thrown with a sentence for the person (the server's message, or ours when the network fails). */
class Refusal extends Error {}

async function postJson<T>(url: string, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new Refusal('The server could not be reached. Check your connection and try again.');
  }
  const parsed = (await response.json().catch(() => undefined)) as (T & Partial<PasskeyProblem>) | undefined;
  if (!response.ok) {
    throw new Refusal(parsed?.message ?? `The server refused the request (${response.status}). Try again in a moment.`);
  }
  if (parsed === undefined) throw new Refusal('The server’s answer could not be read. Try again in a moment.');
  return parsed;
}

/** The server's redirect, if it stays on this origin; anything else is refused rather than followed. */
function localTarget(redirect: unknown): string {
  if (typeof redirect === 'string') {
    const target = new URL(redirect, window.location.href);
    if (target.origin === window.location.origin) return target.href;
  }
  throw new Refusal('The server’s answer could not be used. Reload the page and try again.');
}

async function signIn(button: HTMLButtonElement): Promise<string> {
  const { options } = await postJson<SignInOptions>(button.dataset.options!, {});
  const response = await startAuthentication({ optionsJSON: options });
  const next = button.dataset.next;
  const body: SignInVerification = next ? { response, next } : { response };
  return localTarget((await postJson<PasskeyDone>(button.dataset.verify!, body)).redirect);
}

async function register(button: HTMLButtonElement): Promise<string> {
  const { options } = await postJson<RegistrationOptions>(button.dataset.options!, {});
  const response = await startRegistration({ optionsJSON: options });
  const nameInput = button.dataset.nameInput ? document.getElementById(button.dataset.nameInput) : null;
  const name = nameInput instanceof HTMLInputElement ? nameInput.value.trim() : '';
  const body: RegistrationVerification = name ? { response, name } : { response };
  return localTarget((await postJson<PasskeyDone>(button.dataset.verify!, body)).redirect);
}

const ceremonies: Record<PasskeyCeremony, (button: HTMLButtonElement) => Promise<string>> = {
  'sign-in': signIn,
  register,
};

/** What to tell the person when the browser or the authenticator said no (their error names, from WebAuthn). */
function explain(error: unknown): string {
  if (error instanceof Refusal) return error.message;
  const name = error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') {
    return 'The passkey request was cancelled or timed out. Nothing changed: you can try again.';
  }
  if (name === 'InvalidStateError') return 'This device already holds a passkey for this account.';
  if (name === 'SecurityError') return 'This browser refused passkeys for this address.';
  return 'The passkey could not be used. Try again, or use another way in.';
}

function wire(button: HTMLButtonElement): void {
  const ceremony = ceremonies[button.dataset.passkey as PasskeyCeremony];
  const status = document.getElementById(button.dataset.status ?? '');
  const say = (message: string) => {
    if (status) status.textContent = message;
  };
  if (!ceremony) return;
  document.getElementById(button.dataset.fallback ?? '')?.remove();
  if (!browserSupportsWebAuthn()) {
    say('This browser cannot use passkeys.');
    return;
  }
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    say('Waiting for your passkey…');
    try {
      const target = await ceremony(button);
      say('Done. Opening the next page…');
      window.location.assign(target);
    } catch (error) {
      say(explain(error));
      button.disabled = false;
      button.focus();
    }
  });
}

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-passkey]')) wire(button);

/**
 * A write a person starts (a button, a form): whether it is under way, and the API's error if it failed, kept until
 * the next attempt. The values typed in the form are the form's own state, so an error loses nothing.
 */
import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: unknown;
  /** Runs `write`; resolves true when it succeeded (the caller may then clear its form). */
  run: (write: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  return {
    busy,
    error,
    clear: () => setError(undefined),
    run: async (write) => {
      setBusy(true);
      setError(undefined);
      try {
        await write();
        return true;
      } catch (failure) {
        setError(failure);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

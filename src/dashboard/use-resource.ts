/**
 * A screen's data: `load` runs when the screen opens and whenever `key` changes (a filter, an id); a later answer
 * replaces an earlier one only if it belongs to the latest request, so a slow old page never overwrites a new one.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** Replaces the data with what a write returned, without another request. */
  set: (data: T) => void;
}

export function useResource<T>(load: () => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const run = useCallback(() => {
    const request = ++latest.current;
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    loader.current().then(
      (data) => request === latest.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => request === latest.current && setState((previous) => ({ ...previous, error, loading: false })),
    );
  }, []);
  // `key` names what the data depends on: a new key loads again.
  useEffect(run, [key]);
  return { ...state, reload: run, set: (data: T) => setState({ data, error: undefined, loading: false }) };
}

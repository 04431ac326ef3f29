import { FormFunnelError } from '../api.js';

/**
 * An error from the API, in words: the problem's own message (the contract's), and what to do about the statuses a
 * person can act on: a 429 says when to retry, a 412 that someone else changed the record, a 503 that the service is
 * briefly unavailable. `onReload` offers to load the record again (after a 412).
 */
export function ProblemNotice(props: { error: unknown; onReload?: () => void; onRetry?: () => void }) {
  const { error } = props;
  if (error === undefined || error === null) return null;
  let title = 'Something went wrong';
  let message = error instanceof Error ? error.message : String(error);
  let hint: string | undefined;
  if (error instanceof FormFunnelError) {
    message = error.message;
    const retryAfter = error.details?.retry_after_seconds;
    if (error.status === 429) {
      title = 'Too many requests';
      hint = retryAfter === undefined ? 'Try again in a moment.' : `Try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`;
    } else if (error.status === 412) {
      title = 'Changed by someone else';
      hint = 'This record changed since you opened it. Reload it to see what changed; your edits are kept until you do.';
    } else if (error.status === 503 || error.kind === 'network') {
      title = 'Briefly unavailable';
      hint = 'The service is briefly unavailable. Nothing was lost: try again in a moment.';
    } else if (error.status === 403) {
      title = 'Not allowed';
    } else if (error.status === 404) {
      title = 'Not found';
    } else if (error.status === 400 || error.status === 422) {
      title = 'Check the highlighted fields';
    }
  }
  return (
    <div class="problem" role="alert">
      <p class="problem-title">{title}</p>
      <p>{message}</p>
      {hint && <p>{hint}</p>}
      {error instanceof FormFunnelError && error.requestId && <p class="muted">Request {error.requestId}</p>}
      <div class="actions">
        {props.onReload && (
          <button type="button" onClick={props.onReload}>
            Reload
          </button>
        )}
        {props.onRetry && (
          <button type="button" onClick={props.onRetry}>
            Try again
          </button>
        )}
      </div>
    </div>
  );
}

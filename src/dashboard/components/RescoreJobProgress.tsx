import type { RescoreJob } from '../../client/schemas.js';
import { formatNumber } from '../format.js';

/**
 * A bulk rescore as the API reports it: a progress bar of `processed` out of `total` (an estimate: leads deleted
 * meanwhile are skipped) and, once it has ended, how many leads changed, or the job's own failure message.
 */
export function RescoreJobProgress(props: { job: RescoreJob }) {
  const { job } = props;
  const counts = `${formatNumber(job.processed)} of ${formatNumber(job.total)} leads rescored, ${formatNumber(job.changed)} changed`;
  const status: Record<RescoreJob['status'], string> = {
    queued: 'Rescore queued: waiting for the service to start it.',
    running: `Rescoring: ${counts}.`,
    succeeded: `Rescore finished: ${counts}.`,
    failed: `Rescore failed: ${job.failure_message ?? 'the service gave no reason'}.`,
  };
  return (
    <div class="rescore-job">
      <label for={`progress-${job.id}`}>Rescore progress</label>
      <progress
        id={`progress-${job.id}`}
        max={Math.max(job.total, 1)}
        value={job.status === 'succeeded' ? Math.max(job.total, 1) : Math.min(job.processed, job.total)}
      />
      <p role={job.status === 'failed' ? 'alert' : 'status'}>{status[job.status]}</p>
    </div>
  );
}

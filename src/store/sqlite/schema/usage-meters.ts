/**
 * Meters that never go down: live submissions are counted into `usage_counters` when created and webhook delivery
 * attempts when made, in the same transaction, so deleting a submission, erasing a person or deleting an
 * integration (whose delivery log goes with it) no longer lowers a month already metered.
 *
 * The counts start from what the rows still show: live submissions by the month they were created, and attempts
 * made (not pending) by the month they were due. Rows already deleted before this migration cannot be recovered.
 */
export const usageMetersSchema = `
  ALTER TABLE usage_counters ADD COLUMN submissions INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE usage_counters ADD COLUMN webhook_deliveries INTEGER NOT NULL DEFAULT 0;
  INSERT INTO usage_counters (workspace_id, month, submissions)
    SELECT workspace_id, substr(created_at, 1, 7), COUNT(*) FROM submissions WHERE environment = 'live' GROUP BY 1, 2
    ON CONFLICT (workspace_id, month) DO UPDATE SET submissions = excluded.submissions;
  INSERT INTO usage_counters (workspace_id, month, webhook_deliveries)
    SELECT workspace_id, substr(due_at, 1, 7), COUNT(*) FROM deliveries WHERE environment = 'live' AND status <> 'pending' GROUP BY 1, 2
    ON CONFLICT (workspace_id, month) DO UPDATE SET webhook_deliveries = excluded.webhook_deliveries;
`;

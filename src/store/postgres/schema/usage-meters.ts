/**
 * Meters that never go down: the same change as the SQLite store's migration (see there why). Months are UTC.
 */
export const usageMetersSchema = `
  ALTER TABLE usage_counters ADD COLUMN submissions BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE usage_counters ADD COLUMN webhook_deliveries BIGINT NOT NULL DEFAULT 0;
  INSERT INTO usage_counters (workspace_id, month, submissions)
    SELECT workspace_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM'), COUNT(*) FROM submissions WHERE environment = 'live' GROUP BY 1, 2
    ON CONFLICT (workspace_id, month) DO UPDATE SET submissions = EXCLUDED.submissions;
  INSERT INTO usage_counters (workspace_id, month, webhook_deliveries)
    SELECT workspace_id, to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM'), COUNT(*) FROM deliveries WHERE environment = 'live' AND status <> 'pending'
    GROUP BY 1, 2
    ON CONFLICT (workspace_id, month) DO UPDATE SET webhook_deliveries = EXCLUDED.webhook_deliveries;
`;

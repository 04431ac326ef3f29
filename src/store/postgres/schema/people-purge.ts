/**
 * The hourly purge of people's rows (PeopleStore.purgeExpired): each of its deletes reads one of these ranges,
 * oldest first. Sessions by when they were last seen, which bounds when they ended (src/store/sql/people.ts); mail
 * by when it was sent, so unsent and parked messages are not in the index at all.
 */
export const peoplePurgeSchema = `
  CREATE INDEX one_time_links_expiry ON one_time_links (expires_at);
  CREATE INDEX sessions_last_seen ON sessions (last_seen_at);
  CREATE INDEX outgoing_mail_sent ON outgoing_mail (sent_at) WHERE sent_at IS NOT NULL;
`;

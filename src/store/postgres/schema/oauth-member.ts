/**
 * The member who consented to an OAuth grant (null for a grant made by the operator's command). Removing the member
 * revokes their grants first, in the same transaction; the foreign key then clears the column. It also makes a
 * consent that races a removal wait for it and find the member gone, so no grant outlives its member.
 */
export const oauthMemberSchema = `
  ALTER TABLE oauth_grants ADD COLUMN member_id TEXT CONSTRAINT oauth_grants_member REFERENCES members(id) ON DELETE SET NULL;
  CREATE INDEX oauth_grants_by_member ON oauth_grants (member_id) WHERE member_id IS NOT NULL;
`;

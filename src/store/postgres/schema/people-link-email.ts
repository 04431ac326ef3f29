/**
 * Sign-in links by address and age: the sign-in page counts the links an address was sent lately before it sends
 * another (PeopleStore.recentLinks), so that nobody can make the service flood a person's mailbox.
 */
export const peopleLinkEmailSchema = `
  CREATE INDEX one_time_links_email ON one_time_links (email, purpose, created_at);
`;

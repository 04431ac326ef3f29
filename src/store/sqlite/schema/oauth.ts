/** Tables of the oauth module (none yet). */
export const oauthSchema = `SELECT 1;`;

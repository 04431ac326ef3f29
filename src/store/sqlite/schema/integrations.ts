/** Tables of the integrations module (none yet). */
export const integrationsSchema = `SELECT 1;`;

/** Tables of the submissions module (none yet). */
export const submissionsSchema = `SELECT 1;`;

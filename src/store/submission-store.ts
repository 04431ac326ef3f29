/** Persistence of submissions and their analytics aggregates (filled in with the submissions module). */
export interface SubmissionStore {}

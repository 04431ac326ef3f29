/** Persistence of integrations, events and their deliveries (filled in with the integrations module). */
export interface IntegrationStore {}

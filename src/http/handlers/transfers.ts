import * as transfers from '../../domain/transfers/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const transferForm: Handler<'transferForm'> = ({ replayable, principal, params, body }) =>
  replayable(
    (services) => transfers.requestTransfer(services, principal, params.id, body.workspace_id),
    (transfer) => ({ status: 201, body: transfer, headers: { Location: `/v1/transfers/${transfer.id}` } }),
  );

export const listTransfers: Handler<'listTransfers'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(transfers.listTransfers(services, principal, { direction: query.direction }, pageOf(query))),
});

export const getTransfer: Handler<'getTransfer'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await transfers.getTransfer(services, principal, params.id),
});

export const acceptTransfer: Handler<'acceptTransfer'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => transfers.acceptTransfer(services, principal, params.id),
    (transfer) => ({ status: 200, body: transfer }),
  );

export const declineTransfer: Handler<'declineTransfer'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => transfers.declineTransfer(services, principal, params.id),
    (transfer) => ({ status: 200, body: transfer }),
  );

export const cancelTransfer: Handler<'cancelTransfer'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => transfers.cancelTransfer(services, principal, params.id),
    (transfer) => ({ status: 200, body: transfer }),
  );

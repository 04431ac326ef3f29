import * as transfers from '../../domain/transfers/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const transferForm: Handler<'transferForm'> = async ({ services, principal, params, body }) => {
  const transfer = await transfers.requestTransfer(services, principal, params.id, body.workspace_id);
  return { status: 201, body: transfer, headers: { Location: `/v1/transfers/${transfer.id}` } };
};

export const listTransfers: Handler<'listTransfers'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(transfers.listTransfers(services, principal, { direction: query.direction }, pageOf(query))),
});

export const getTransfer: Handler<'getTransfer'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await transfers.getTransfer(services, principal, params.id),
});

export const acceptTransfer: Handler<'acceptTransfer'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await transfers.acceptTransfer(services, principal, params.id),
});

export const declineTransfer: Handler<'declineTransfer'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await transfers.declineTransfer(services, principal, params.id),
});

export const cancelTransfer: Handler<'cancelTransfer'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await transfers.cancelTransfer(services, principal, params.id),
});

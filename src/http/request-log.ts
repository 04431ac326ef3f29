import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { stateOf } from './locals.js';

/**
 * One JSON line per request. Only named fields are logged, never headers or bodies, so the
 * `Authorization` header and secrets in bodies cannot reach the log. A client that goes away before its
 * response (an aborted upload, a closed tab) is an ordinary event, logged at info like the rest.
 */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // 'finish' is emitted only once the response was handed to the socket. A problem answered to a client that has
    // just gone away can end the response (writableFinished) without it, so "not logged yet" is what tells an abort.
    let logged = false;
    res.on('finish', () => {
      logged = true;
      writeLine(log, req, res, started, true);
    });
    res.on('close', () => {
      if (!logged) writeLine(log, req, res, started, false);
    });
    next();
  };
}

function writeLine(log: Logger, req: Request, res: Response, started: bigint, finished: boolean): void {
  const state = stateOf(res);
  log.info(
    {
      request_id: state.requestId,
      method: req.method,
      path: req.originalUrl.split('?')[0],
      operation_id: state.operation?.operationId,
      key_id: state.principal?.id,
      workspace_id: state.principal?.workspace.id,
      client_ip: state.clientIp,
      status: finished ? res.statusCode : undefined,
      duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
    },
    finished ? 'request' : 'request aborted by the client',
  );
}

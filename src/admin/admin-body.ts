import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Request, Response } from 'express';
import { schemaReason } from '../config/schema-reason.js';
import { GatewayError, invalidRequest, toGatewayError } from '../http/errors.js';
import { sendError, sendJson } from '../http/respond.js';

/** Helpers shared by the admin routers: body checks that name the field, and async handlers answered in our envelope. */

function bodyError(errors: ErrorObject[] | null | undefined): GatewayError {
  const error = errors?.[0];
  if (!error) return invalidRequest('The request body is invalid.');
  const field =
    error.keyword === 'required'
      ? String(error.params['missingProperty'])
      : error.keyword === 'additionalProperties'
        ? String(error.params['additionalProperty'])
        : (error.instancePath.split('/')[1] ?? null);
  const reason = error.keyword === 'additionalProperties' ? 'is not a known field' : error.keyword === 'anyOf' ? 'has the wrong type' : schemaReason(error);
  return invalidRequest(`${field ?? 'body'} ${reason}.`, field);
}

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- T is the shape `check`'s schema holds the body to; the schemas are compiled untyped.
export function validBody<T>(req: Request, check: ValidateFunction): T {
  if (!check(req.body)) throw bodyError(check.errors);
  return req.body as T;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** Wraps an async admin handler so every failure is answered in our envelope. */
export const handled =
  (handler: Handler): Handler =>
  async (req, res) => {
    try {
      await handler(req, res);
    } catch (error) {
      sendError(res, toGatewayError(error));
    }
  };

export const sendBody = (res: Response, status: number, body: unknown): void => sendJson(res, status, JSON.stringify(body));

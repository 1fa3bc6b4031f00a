// Every failure the page meets is an AppError. Its code and field are read
// from the server's error body ({message, status, code, field}); the page
// branches on them, never on the wording, and invents no code from a
// status. The one code of the page's own is 'unreachable'.

import { ERROR_CODES, type ErrorBody, type ErrorCode } from './types';

/** What kind of failure: the server's code, or 'unreachable' when no
 * answer came. */
export type FailureCode = ErrorCode | 'unreachable';

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** A failed call: a sentence a person can act on, the HTTP status of the
 * answer (0 when there was none: nodedesk unreachable, or a failure of
 * the window or the page itself), the code, the path of the offending
 * field of the request body when the failure is about one
 * ("properties.ports_mapping.3.vlan"), and the technical detail behind
 * the sentence when the page has one (shown behind Details). */
export class AppError extends Error {
  readonly status: number;
  readonly code: FailureCode;
  readonly field: string | null;
  readonly detail: string | null;
  constructor(message: string, status: number, code: FailureCode, field?: string | null, detail?: string | null) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.field = field ?? null;
    this.detail = detail ?? null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The error-body fields the page reads; status is absent in a binding's
 * own error (no HTTP answer was made). */
type ErrorLike = Pick<ErrorBody, 'message' | 'code'> & Partial<Pick<ErrorBody, 'status' | 'field'>>;

function errorLike(v: unknown): ErrorLike | null {
  if (!isObject(v) || typeof v.message !== 'string' || typeof v.code !== 'string' || !CODES.has(v.code)) return null;
  return {
    message: v.message,
    code: v.code as ErrorCode,
    status: typeof v.status === 'number' ? v.status : undefined,
    field: typeof v.field === 'string' ? v.field : undefined,
  };
}

/** errorFromAnswer is the AppError of an error answer: its status and the
 * body as openapi-fetch read it (parsed JSON, or the text). */
export function errorFromAnswer(status: number, statusText: string, body: unknown): AppError {
  const e = errorLike(body);
  if (e) return new AppError(e.message, e.status ?? status, e.code, e.field);
  const text = typeof body === 'string' && body.trim() ? `: ${body.trim().slice(0, 300)}` : '';
  return new AppError('nodedesk gave an answer the page did not expect. Try again; if it happens again, restart nodedesk.', status, 'internal', null,
    `HTTP ${status} ${statusText}`.trim() + text);
}

/** unreachable is the AppError of a request that got no answer. */
export function unreachable(err: unknown): AppError {
  const why = err instanceof Error ? err.message : String(err);
  return new AppError('Cannot reach nodedesk. Check that it is still running, then try again.', 0, 'unreachable', null, why);
}

function fromJSON(text: string): AppError | null {
  try {
    const e = errorLike(JSON.parse(text));
    return e && new AppError(e.message, e.status ?? 0, e.code, e.field);
  } catch {
    return null;
  }
}

/** toAppError turns anything thrown into an AppError. A window binding
 * rejects with the JSON text of {message, code, field?} (desktop's
 * FormatError): as a string, or (Wails 2.16 wraps it) as the message of
 * an Error. Anything else is an internal failure of the page. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (typeof err === 'string') return fromJSON(err) ?? new AppError(err || 'Unknown error', 0, 'internal');
  if (err instanceof Error) return fromJSON(err.message) ?? new AppError(err.message, 0, 'internal');
  return new AppError(String(err), 0, 'internal');
}

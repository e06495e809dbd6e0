// The page's only way to the gateway: POST /rpc with the bearer token.
// The token lives in this tab's sessionStorage and travels in the
// Authorization header only, never in a URL.

const KEY = 'zero.gatewayToken';

/** token reads and writes the signed-in gateway token. */
export const token = {
  get: () => sessionStorage.getItem(KEY) || '',
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

/** RPCError is a refused or failed call: the HTTP status and the error code. */
export class RPCError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * rpc calls method with params and returns its result. A 401 signs the
 * page out (the "zero:unauthorized" event) unless a token is passed
 * explicitly (the sign-in check).
 */
export async function rpc(method, params = {}, explicitToken) {
  const tok = explicitToken ?? token.get();
  const res = await fetch('/rpc', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + tok },
    body: JSON.stringify({ method, params }),
    cache: 'no-store',
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  if (res.ok && body && body.ok) return body.result;
  const e = (body && body.error) || {};
  if (res.status === 401 && explicitToken === undefined) window.dispatchEvent(new Event('zero:unauthorized'));
  throw new RPCError(res.status, e.code || 'http_' + res.status, e.message || (body && body.message) || res.statusText || 'request failed');
}

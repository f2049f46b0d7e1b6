/**
 * Recognises a login wall: the site wants an account before it shows the page (Public Surplus
 * answers 401 with its sign-in form; other sites redirect to /login). Such a page is reported as
 * *login required* for the source, distinct from blocked (a bot challenge) and from empty, and
 * is never handed to an adapter to be parsed into listings.
 */
export type LoginVerdict = { reason: string };

const LOGIN_PATH = /(^|\/)(log-?in|sign-?in|signon|logon|auth\/login|users\/sign_in|account\/login)(\/|\.[a-z]+$|$)/i;
const PASSWORD_INPUT = /<input\b[^>]*\btype\s*=\s*["']?password\b/i;
const LOGIN_TITLE = /<title>[^<]{0,200}\b(log ?in|sign ?in|log ?on)\b[^<]{0,200}<\/title>/i;

/**
 * The login wall a response shows, or null. `requestedUrl` is what the crawler asked for: a
 * redirect from it to a login path is a wall; asking for a login path ourselves is not.
 * Only the body's first 64 KB is inspected.
 */
export function detectLoginWall(response: { status: number; url: string; body: string }, requestedUrl: string): LoginVerdict | null {
  if (response.status === 401) return { reason: `HTTP 401: the page asks for a login (${pathOf(response.url)})` };
  const finalPath = pathOf(response.url);
  if (finalPath !== pathOf(requestedUrl) && LOGIN_PATH.test(finalPath)) return { reason: `redirected to a login page (${finalPath})` };
  const head = response.body.slice(0, 65_536);
  // A password field alone is not enough: many sites carry a sign-in box in every page's header.
  if (PASSWORD_INPUT.test(head) && LOGIN_TITLE.test(head)) return { reason: `a login form instead of the page (HTTP ${response.status})` };
  return null;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

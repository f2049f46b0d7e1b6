/**
 * Recognises challenge and block pages (Cloudflare, Incapsula/Imperva, Akamai, PerimeterX,
 * DataDome, Distil) so a source that blocks us is reported as *blocked*, not as empty.
 */
export type BlockVerdict = { vendor: string; reason: string };

const MARKERS: { vendor: string; pattern: RegExp }[] = [
  { vendor: 'Cloudflare', pattern: /<title>\s*(just a moment|attention required|please wait)[^<]*<\/title>|cdn-cgi\/challenge-platform|cf-browser-verification|cf_chl_opt|cf-error-details/i },
  { vendor: 'Incapsula', pattern: /_Incapsula_Resource|Incapsula incident ID|incap_ses_|visid_incap_/i },
  { vendor: 'Akamai', pattern: /<title>\s*Access Denied\s*<\/title>[\s\S]*Reference\s*#|errors\.edgesuite\.net|akamai-bm-telemetry|_abck/i },
  { vendor: 'PerimeterX', pattern: /px-captcha|_pxAppId|perimeterx/i },
  { vendor: 'DataDome', pattern: /captcha-delivery\.com|datadome/i },
  { vendor: 'Distil', pattern: /Pardon Our Interruption|distil_r_captcha|distilnetworks/i },
];

/** The block a response shows, or null. Only a response's first 64 KB is inspected. */
export function detectBlock(response: { status: number; body: string; headers?: Record<string, string> }): BlockVerdict | null {
  const head = response.body.slice(0, 65_536);
  for (const { vendor, pattern } of MARKERS) {
    if (pattern.test(head)) return { vendor, reason: `${vendor} challenge or block page (HTTP ${response.status})` };
  }
  if (response.headers?.['cf-mitigated'] === 'challenge') return { vendor: 'Cloudflare', reason: `Cloudflare challenge (HTTP ${response.status})` };
  if (response.status === 403) return { vendor: 'unknown', reason: 'HTTP 403 Forbidden' };
  return null;
}

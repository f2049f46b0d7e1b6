/** The messages accounts send, as pure functions. Names are user input: escaped in HTML. */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

export function passwordResetLink(appUrl: string, uid: string, token: string): string {
  return `${appUrl.replace(/\/+$/, '')}/reset/${encodeURIComponent(uid)}/${encodeURIComponent(token)}`;
}

export function passwordResetEmail(opts: { firstName: string; link: string; ttlHours: number }): { subject: string; text: string; html: string } {
  const greeting = opts.firstName ? `Hello ${opts.firstName},` : 'Hello,';
  const validity = `The link works once and expires in ${opts.ttlHours} hour${opts.ttlHours === 1 ? '' : 's'}.`;
  const text = [
    greeting,
    '',
    'Someone (hopefully you) asked to reset the password of your Deal Radar account.',
    'Choose a new password here:',
    '',
    opts.link,
    '',
    validity,
    "If you didn't ask for this, ignore this e-mail: your password stays unchanged.",
    '',
    '— Deal Radar',
  ].join('\n');
  const html = `<p>${escapeHtml(greeting)}</p>
<p>Someone (hopefully you) asked to reset the password of your Deal Radar account.</p>
<p><a href="${escapeHtml(opts.link)}">Choose a new password</a></p>
<p>${escapeHtml(validity)} If you didn't ask for this, ignore this e-mail: your password stays unchanged.</p>
<p>— Deal Radar</p>`;
  return { subject: 'Reset your Deal Radar password', text, html };
}

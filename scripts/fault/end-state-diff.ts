/**
 * How the soak compares a killed run's end state with the uninterrupted one's
 * (`scripts/fault/soak.ts`). Every field must be equal, except in the one window no sender can
 * close (docs/operations.md, "Not covered"): a kill while the mail server has accepted a message
 * that the notifier has not yet marked sent. The restarted notifier sends that message again, so
 * the mail arrives twice — "at least once", by design. For a kill that can land in that window, a
 * mail received twice is reported as a duplicate by design, not a mismatch, as long as nothing
 * else differs, no message arrives more than twice and nothing is missing.
 */
export type MailCounts = { mailsReceived: number; mailKeysReceivedTwice: string[] };

/** Kill points that can fall between a provider's accept and the sent mark. */
export function inAcceptWindow(point: string, at: number): boolean {
  // notify-sent is that window itself; a later claim (n > 1) can come while an earlier send of
  // the same batch has been accepted and not yet marked. The first claim has no send before it.
  return point === 'notify-sent' || (point === 'notify-claimed' && at > 1);
}

export type EndStateComparison = {
  /** Fields that differ (expected / got), duplicates by design left out. */
  diff: Record<string, { expected: unknown; got: unknown }>;
  /** Message keys received twice because the kill landed in the accept window. */
  duplicatesByDesign: string[];
};

export function compareEndStates<S extends MailCounts>(
  expected: S,
  got: S,
  kill: { point: string; at: number },
  equal: (a: unknown, b: unknown) => boolean,
): EndStateComparison {
  const diff: EndStateComparison['diff'] = {};
  for (const key of Object.keys(expected) as Array<keyof S & string>) {
    if (!equal(expected[key], got[key])) diff[key] = { expected: expected[key], got: got[key] };
  }
  if (!inAcceptWindow(kill.point, kill.at) || !('mailsReceived' in diff)) return { diff, duplicatesByDesign: [] };
  const extraKeys = got.mailKeysReceivedTwice.filter((k) => !expected.mailKeysReceivedTwice.includes(k));
  const stillTwice = expected.mailKeysReceivedTwice.every((k) => got.mailKeysReceivedTwice.includes(k));
  // Each extra mail must be the second copy of a key that arrived twice: then none is missing and
  // none arrived three times (a key seen three times adds two mails for one key).
  const extraMails = got.mailsReceived - expected.mailsReceived;
  if (stillTwice && extraKeys.length > 0 && extraMails === extraKeys.length) {
    delete diff.mailsReceived;
    delete diff.mailKeysReceivedTwice;
    return { diff, duplicatesByDesign: extraKeys };
  }
  return { diff, duplicatesByDesign: [] };
}

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  criteriaText,
  deliveredSentence,
  deliveredSms,
  emailFooter,
  gsmText,
  smsCriteriaText,
  cleanText,
  dealScoreText,
  priceRangeText,
  renderDigestEmail,
  renderDigestSms,
  renderMatchEmail,
  renderMatchSms,
  SMS_MAX_LENGTH,
  timeLeft,
  type MessageAlert,
  type MessageListing,
} from '../../services/alerts/alert-messages.js';
import { renderWatchEmail } from '../../services/watchlist/watch-messages.js';
import { signUnsubscribeToken, unsubscribeKey, unsubscribeUrl, verifyUnsubscribeToken } from '../../services/alerts/unsubscribe-tokens.js';

const now = new Date('2026-11-21T12:00:00Z');
const listing: MessageListing = { id: 12345, slug: 'cat-320d-excavator-demo-1', title: 'CAT 320D Excavator', priceUsd: 45_000, dealScore: 871, fairValue: 62_000, auctionEndAt: new Date('2026-11-23T17:30:00Z'), city: 'Dallas', state: 'TX' };
const alert: MessageAlert = { id: 9, equipmentType: 'Excavators', priceMin: null, priceMax: 50_000, state: 'TX', condition: null, minDealScore: 80, keywords: 'cat' };

describe('message texts', () => {
  it('spec texts: time left, price range, score badge', () => {
    expect(timeLeft(new Date('2026-11-23T17:30:00Z'), now)).toBe('2d 5h');
    expect(timeLeft(new Date('2026-11-21T20:59:00Z'), now)).toBe('8h');
    expect(timeLeft(new Date('2026-11-21T11:00:00Z'), now)).toBe('Ended');
    // under an hour: the minutes, not "0h"
    expect(timeLeft(new Date('2026-11-21T12:11:30Z'), now)).toBe('11m');
    expect(timeLeft(new Date('2026-11-21T12:00:20Z'), now)).toBe('<1m');
    expect(timeLeft(new Date('2026-11-21T13:00:00Z'), now)).toBe('1h');
    expect(timeLeft(null, now)).toBeNull();
    expect(priceRangeText(1000, 5000)).toBe('$1,000 - $5,000');
    expect(priceRangeText(1000, null)).toBe('Above $1,000');
    expect(priceRangeText(null, 5000)).toBe('Below $5,000');
    expect(priceRangeText(null, null)).toBe('Any price');
    expect(dealScoreText(871)).toBe('88 • Excellent Deal');
    expect(dealScoreText(600)).toBe('60 • Good Deal');
    expect(dealScoreText(391)).toBe('40 • Fair Deal');
    expect(dealScoreText(390)).toBe('39 • Poor Deal');
    expect(dealScoreText(null)).toBe('not rated yet');
  });

  it('the e-mail says why the lot matched, with the deal link and the unsubscribe link', () => {
    const email = renderMatchEmail({ alert, listing, event: 'match', appUrl: 'https://dealradar.example', unsubscribeUrl: 'https://dealradar.example/u', now });
    expect(email.subject).toBe('Deal alert: CAT 320D Excavator at $45,000 (88 • Excellent Deal)');
    expect(email.text).toBe(
      [
        'A listing matches your Excavators alert.',
        '',
        'CAT 320D Excavator',
        'Price: $45,000',
        'Deal score: 88 • Excellent Deal',
        'The deal: $45,000 — about 27% under similar sales; 99 in 100 sold for more',
        'Fair value: $62,000',
        'Time left: 2d 5h',
        'Location: Dallas, TX',
        '',
        'Why it matched: Excavators · Below $50,000 · TX · any condition · deal score 80+ · keywords "cat"',
        '',
        'View the deal: https://dealradar.example/deal/cat-320d-excavator-demo-1',
        '',
        'You get this e-mail because of your Deal Radar alert for Excavators.',
        'Turn this alert off: https://dealradar.example/u',
      ].join('\n'),
    );
    expect(email.html).toContain('<a href="https://dealradar.example/deal/cat-320d-excavator-demo-1">View the deal</a>');
  });

  it('treats listing text as data: escaped in HTML, no header injection, bounded', () => {
    const hostile = { ...listing, title: `<img src=x onerror=alert(1)>\r\nBcc: evil@example.com ${'x'.repeat(5000)}`, city: '<script>' };
    const email = renderMatchEmail({ alert, listing: hostile, event: 'match', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now });
    expect(email.html).not.toContain('<img');
    expect(email.html).not.toContain('<script>');
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.subject.length).toBeLessThanOrEqual(300);
    expect(email.text.length).toBeLessThan(2000);
    expect(cleanText('a\u0000b\u2028c')).toBe('a b c');
  });

  it('SMS stay under 160 characters with a short link, whatever the title', () => {
    for (let i = 0; i < 200; i++) {
      const title = randomBytes(1 + (i % 120)).toString('base64');
      const sms = renderMatchSms({ alert, listing: { ...listing, title, id: 2_000_000_000 }, event: i % 2 ? 'match' : 'price_drop', appUrl: 'https://dealradar.example', now });
      expect(sms.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
      expect(sms.endsWith(' https://dealradar.example/d/x2qxvk')).toBe(true);
    }
    expect(renderMatchSms({ alert, listing, event: 'match', appUrl: 'https://dealradar.example', now })).toBe(
      'Deal Radar: CAT 320D... $45,000, 88 Excellent, 27% under, 99% sure, 2d 5h left. Why: Excavators, to $50k, TX, score 80+, "cat" https://dealradar.example/d/9ix',
    );
  });

  it('SMS say why: the alert criteria, and how far under similar sales and how sure (else the fair-value range); a long title is cut, never the why', () => {
    const ranged = { ...listing, valueLow: 55_000, valueHigh: 70_000 };
    const why = 'Why: Excavators, to $50k, TX, score 80+, "cat"';
    const sms = renderMatchSms({ alert, listing: ranged, event: 'match', appUrl: 'https://dealradar.example', now });
    expect(sms).toContain('27% under, 99% sure');
    expect(sms).toContain(why);
    expect(sms.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
    expect(sms).toBe('Deal Radar: CAT 320D... $45,000, 88 Excellent, 27% under, 99% sure, 2d 5h left. Why: Excavators, to $50k, TX, score 80+, "cat" https://dealradar.example/d/9ix');
    // a valued lot without a price to claim on says the fair value and its range
    expect(renderMatchSms({ alert, listing: { ...ranged, priceUsd: null }, event: 'match', appUrl: 'https://dealradar.example', now })).toContain('fair $62k ($55-70k)');

    // A very long title: the title gives way, the facts, the range and the why stay.
    const longTitle = `2015 Caterpillar 320D2 L Hydraulic Excavator ${'with thumb and enclosed cab '.repeat(40)}`;
    for (const event of ['match', 'price_drop', 'level_up'] as const) {
      const long = renderMatchSms({ alert, listing: { ...ranged, title: longTitle, id: 2_000_000_000 }, event, appUrl: 'https://dealradar.example', now });
      expect(long.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
      expect(long).toMatch(/^(Deal Radar|Price drop|Better deal): 2015(?: \S*)?\.\.\. \$45,000, /);
      expect(long).toContain('$45,000, 88 Excellent, 27% under, 99% sure, 2d 5h left.');
      expect(long).toContain(why);
      expect(long.endsWith(' https://dealradar.example/d/x2qxvk')).toBe(true);
    }

    // The free plan's criteria: the level, and the unscored opt-in; range with a shared unit.
    const free: MessageAlert = { id: 1, equipmentType: 'Wheel Loaders', priceMin: 20_000, priceMax: 60_000, state: null, condition: 'Good', dealLevel: 'excellent', minDealScore: null, includeUnscored: true, keywords: null };
    const unscored = renderMatchSms({ alert: free, listing: { ...listing, dealScore: null, fairValue: null }, event: 'match', appUrl: 'https://dealradar.example', now });
    expect(unscored).toBe('Deal Radar: CAT 320D Excavator $45,000, 2d 5h left. Why: Wheel Loaders, $20-60k, Good, excellent only, +unscored https://dealradar.example/d/9ix');

    // Criteria too long for one SMS even without a title: the end of the why is cut, never the link.
    const crowded: MessageAlert = { ...free, equipmentType: 'Backhoe Loaders', priceMin: 100_000, priceMax: 1_250_000, state: 'NH', condition: 'Parts Only', minDealScore: 75, keywords: 'x'.repeat(200) };
    const cut = renderMatchSms({ alert: crowded, listing: { ...ranged, title: longTitle, id: 2_000_000_000 }, event: 'level_up', appUrl: 'https://dealradar.example', now });
    expect(cut.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
    expect(cut).toMatch(/^Better deal: \$45,000, 88 Excellent, 27% under, 99% sure, 2d 5h left\. Why: Backhoe Loaders, \$100k-\$1\.25M, NH, Parts Only,(?: \S*)?\.\.\. https:\/\/dealradar\.example\/d\/x2qxvk$/);
  });

  it('SMS stay in the GSM-7 alphabet (one segment): a title\'s typographic quotes, dashes and accents become plain letters', () => {
    // (criteria without keywords, so the title has room beside the deal's claim)
    const sms = renderMatchSms({ alert: { ...alert, keywords: null, minDealScore: null, priceMax: null }, listing: { ...listing, title: 'E35 “Mini” – 36″ crête 🚜' }, event: 'match', appUrl: 'https://dealradar.example', now });
    expect(sms.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
    expect([...sms].every((c) => gsmText(c) === c)).toBe(true);
    expect(sms).toMatch(/^Deal Radar: E35 "Mini" - 36" crete \$45,000, /);
    expect(gsmText('Café – “Crème” 5’ … ×2 🚜')).toBe('Café - "Crème" 5\' ... x2 ');
  });

  it('digests list the matches, best deal first, and stay short on SMS', () => {
    const items = [
      { event: 'match' as const, listing: { ...listing, title: 'Second', dealScore: 700 } },
      { event: 'price_drop' as const, listing: { ...listing, title: 'First', dealScore: 900 } },
    ];
    const email = renderDigestEmail({ alert, items, day: '2026-11-21', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now });
    expect(email.subject).toBe('Daily digest: 2 matches for your Excavators alert');
    // Best deal first, whatever order they came in.
    expect(email.text).toContain('1. [price drop] First');
    expect(email.text).toContain('2. Second');
    const sms = renderDigestSms({ alert, items, appUrl: 'https://dealradar.example' });
    expect(sms).toBe('Deal Radar: 2 new Excavators matches today. Top: First $45,000 https://dealradar.example/alerts');
    const many = Array.from({ length: 60 }, (_, i) => ({ event: 'match' as const, listing: { ...listing, title: `Lot ${i}` } }));
    // At most 20 shown, and a link to the rest.
    const long = renderDigestEmail({ alert, items: many, day: '2026-11-21', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now }).text;
    expect(long).toContain('…and 40 more: http://a/alerts');
    expect(long).toContain('20. Lot');
    expect(long).not.toContain('21. Lot');
  });
});

describe('distance and price delivered in alert messages (issue 30)', () => {
  // 100 miles from 50309; a stated 10% premium on $45,000; a lowboy's $800–2,500
  const delivered = { zip: '50309', distanceMiles: 100.2, precision: 'city' as const, premium: 4500, haulLow: 800, haulHigh: 2500, totalLow: 50_300, totalHigh: 52_000 };
  const near: MessageListing = { ...listing, buyersPremiumPct: 10, delivered };
  const nearAlert: MessageAlert = { ...alert, state: null, minDealScore: null, keywords: null, nearZip: '50309', radiusMiles: 150, worthTheTrip: true };

  it('one sentence: how far, and the delivered range with what it counts', () => {
    expect(deliveredSentence(delivered)).toBe('about 100 mi away; ≈ $50,300–$52,000 delivered with premium and haul');
    expect(deliveredSentence({ ...delivered, premium: null, totalLow: 45_800, totalHigh: 47_500 })).toBe("about 100 mi away; ≈ $45,800–$47,500 delivered with haul; no buyer's premium stated");
    expect(deliveredSentence({ ...delivered, totalLow: null, totalHigh: null })).toBe('about 100 mi away; haul ≈ $800–$2,500');
    expect(deliveredSentence({ ...delivered, distanceMiles: 1234.4, precision: 'state' })).toBe('~1,234 mi away (state only); ≈ $50,300–$52,000 delivered with premium and haul');
    expect(deliveredSms(delivered)).toBe('100 mi, $50.3-52k delivered');
    expect(deliveredSms({ ...delivered, precision: 'state', totalLow: null, totalHigh: null })).toBe('100 mi (state), haul $800-$2.5k');
  });

  it('the criteria say "worth the trip" and the radius, in full and in short', () => {
    expect(criteriaText(nearAlert)).toBe('Excavators · Below $50,000 · within 150 mi of 50309 · any condition · good deals or better · worth the trip to 50309');
    expect(smsCriteriaText(nearAlert)).toBe('Excavators, to $50k, good+, <150mi, worth trip');
    expect(criteriaText({ ...nearAlert, worthTheTrip: false })).not.toContain('worth');
  });

  it('the e-mail shows distance, haul and total; the digest one sentence a lot; without a ZIP code nothing of it', () => {
    const email = renderMatchEmail({ alert: nearAlert, listing: near, event: 'match', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now }).text;
    expect(email).toContain('Distance: about 100 mi from 50309\nHaul (estimate): $800 - $2,500\nDelivered (estimate): $50,300 - $52,000 incl. $4,500 buyer\'s premium');
    const digest = renderDigestEmail({ alert: nearAlert, items: [{ event: 'match', listing: near }], day: '2026-11-21', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now });
    expect(digest.text).toContain('   Delivered to 50309: about 100 mi away; ≈ $50,300–$52,000 delivered with premium and haul\n');
    expect(digest.html).toContain('<th align="left">Delivered to 50309</th><td>about 100 mi away; ≈ $50,300–$52,000 delivered with premium and haul</td>');
    const plain = renderDigestEmail({ alert, items: [{ event: 'match', listing }], day: '2026-11-21', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now }).text;
    expect(plain).not.toMatch(/delivered|Distance/i);
  });

  it('SMS: the distance and price delivered within one GSM-7 segment beside how far under and how sure; the title keeps its start', () => {
    const sms = renderMatchSms({ alert: nearAlert, listing: near, event: 'match', appUrl: 'https://dealradar.example', now });
    expect(sms).toBe('Deal Radar: CAT 320D Exca... $45,000, 88 Excellent, 20% under, 99% sure, 2d 5h left, 100 mi, $50.3-52k delivered. Why: Excav... https://dealradar.example/d/9ix');
    expect(sms.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
    for (let i = 0; i < 100; i++) {
      const title = `${randomBytes(1 + (i % 90)).toString('base64')} “Mini” – 36″`;
      const d = { ...delivered, distanceMiles: 3 + i * 31.7, precision: i % 3 === 0 ? ('state' as const) : ('zip' as const), totalLow: 1_000_000 + i, totalHigh: 2_250_000 + i };
      const long = renderMatchSms({ alert: { ...nearAlert, keywords: 'x'.repeat(200) }, listing: { ...near, title, id: 2_000_000_000, delivered: d }, event: 'price_drop', appUrl: 'https://dealradar.example', now });
      expect(long.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
      expect([...long].every((c) => gsmText(c) === c)).toBe(true);
      expect(long).toContain(`, ${deliveredSms(d)}. Why: Exc`);
      expect(long.endsWith(' https://dealradar.example/d/x2qxvk')).toBe(true);
    }
    const digestSms = renderDigestSms({ alert: nearAlert, items: [{ event: 'match', listing: near }], appUrl: 'https://dealradar.example' });
    expect(digestSms).toBe('Deal Radar: 1 new Excavators match today. Top: CAT 320D Excavator $45,000 (100 mi, $50.3-52k delivered) https://dealradar.example/alerts');
  });

  it('alert and watch e-mails end with the same footer: why, and the one link that stops them', () => {
    const footer = emailFooter('You get this e-mail because of your Deal Radar alert for Excavators.', { label: 'Turn this alert off', url: 'http://a/u?t=<x>' });
    expect(footer.text).toEqual(['You get this e-mail because of your Deal Radar alert for Excavators.', 'Turn this alert off: http://a/u?t=<x>']);
    expect(footer.html).toBe('<p style="color:#666;font-size:12px">You get this e-mail because of your Deal Radar alert for Excavators. <a href="http://a/u?t=&lt;x&gt;">Turn this alert off</a></p>');
    const email = renderMatchEmail({ alert, listing, event: 'match', appUrl: 'http://a', unsubscribeUrl: 'http://a/u?t=<x>', now });
    expect(email.text.endsWith(footer.text.join('\n'))).toBe(true);
    expect(email.html).toContain(footer.html);
    const watch = renderWatchEmail({
      kind: 'reminder', watchId: 1, maxPrice: null, appUrl: 'http://a', now, unsubscribeUrl: 'http://a/w',
      listing: { id: 1, slug: 's', title: 'T', status: 'open', priceUsd: 1, dealScore: null, fairValue: null, auctionEndAt: null, finalPrice: null },
    });
    expect(watch.text.endsWith('You get this e-mail because you watch this lot on Deal Radar.\nStop messages for this lot: http://a/w')).toBe(true);
    expect(watch.html).toContain('<a href="http://a/w">Stop messages for this lot</a></p>\n</body></html>');
  });
});

describe('the Good bid limit in alert messages (issue 38)', () => {
  const limited: MessageListing = { ...listing, goodBidLimit: 48_200 };
  it('e-mail and digest carry "Good up to $X"; without a limit nothing of it', () => {
    expect(renderMatchEmail({ alert, listing: limited, event: 'match', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now }).text).toContain('Bid limit: Good up to $48,200 (before premium)');
    const digest = renderDigestEmail({ alert, items: [{ event: 'match', listing: limited }], day: '2026-11-21', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now });
    expect(digest.text).toContain('   Bid limit: Good up to $48,200 (before premium)\n');
    expect(renderMatchEmail({ alert, listing, event: 'match', appUrl: 'http://a', unsubscribeUrl: 'http://a/u', now }).text).not.toContain('Good up to');
  });
  it('SMS: "Good up to $X" within one GSM-7 segment, however long the title and criteria', () => {
    expect(renderMatchSms({ alert, listing: limited, event: 'match', appUrl: 'https://dealradar.example', now })).toContain('Good up to $48,200');
    for (let i = 0; i < 100; i++) {
      const title = `${randomBytes(1 + (i % 90)).toString('base64')} “Mini” – 36″`;
      const delivered = i % 2 ? { zip: '50309', distanceMiles: 3 + i * 31.7, precision: 'zip' as const, premium: 4500, haulLow: 800, haulHigh: 2500, totalLow: 1_000_000 + i, totalHigh: 2_250_000 + i } : null;
      const sms = renderMatchSms({ alert: { ...alert, keywords: 'x'.repeat(200) }, listing: { ...limited, title, id: 2_000_000_000, goodBidLimit: 1_000_000 + i, delivered }, event: 'price_drop', appUrl: 'https://dealradar.example', now });
      expect(sms.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
      expect(sms).toContain(`Good up to $${(1_000_000 + i).toLocaleString('en-US')}`);
    }
    const digestSms = renderDigestSms({ alert, items: [{ event: 'match', listing: limited }], appUrl: 'https://dealradar.example' });
    expect(digestSms).toBe('Deal Radar: 1 new Excavators match today. Top: CAT 320D Excavator $45,000, Good up to $48,200 https://dealradar.example/alerts');
  });
});

describe('unsubscribe tokens', () => {
  const key = unsubscribeKey('a-secret-that-is-long-enough-for-tests-0123');
  it('verify only for the alert they were signed for, under the same key', () => {
    const token = signUnsubscribeToken(key, 1234);
    expect(verifyUnsubscribeToken(key, token)).toBe(1234);
    expect(verifyUnsubscribeToken(unsubscribeKey('another-secret-entirely-different-0000'), token)).toBeNull();
    expect(verifyUnsubscribeToken(key, token.replace(/^[^.]+/, (1235).toString(36)))).toBeNull();
    expect(verifyUnsubscribeToken(key, `${token}x`)).toBeNull();
    expect(verifyUnsubscribeToken(key, '')).toBeNull();
    expect(verifyUnsubscribeToken(key, '<script>.aaaaaaaaaaaaaaaaaaaaaaaa')).toBeNull();
    expect(unsubscribeUrl('http://h', key, 1234)).toBe(`http://h/api/alerts/unsubscribe/?token=${token}`);
  });
});

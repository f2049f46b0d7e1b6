import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  gsmText,
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
import { signUnsubscribeToken, unsubscribeKey, unsubscribeUrl, verifyUnsubscribeToken } from '../../services/alerts/unsubscribe-tokens.js';

const now = new Date('2026-11-21T12:00:00Z');
const listing: MessageListing = { id: 12345, slug: 'cat-320d-excavator-demo-1', title: 'CAT 320D Excavator', priceUsd: 45_000, dealScore: 871, fairValue: 62_000, auctionEndAt: new Date('2026-11-23T17:30:00Z'), city: 'Dallas', state: 'TX' };
const alert: MessageAlert = { id: 9, equipmentType: 'Excavators', priceMin: null, priceMax: 50_000, state: 'TX', condition: null, minDealScore: 80, keywords: 'cat' };

describe('message texts', () => {
  it('spec texts: time left, price range, score badge', () => {
    expect(timeLeft(new Date('2026-11-23T17:30:00Z'), now)).toBe('2d 5h');
    expect(timeLeft(new Date('2026-11-21T20:59:00Z'), now)).toBe('8h');
    expect(timeLeft(new Date('2026-11-21T11:00:00Z'), now)).toBe('Ended');
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

import { describe, expect, it } from 'vitest';
import { dealClaim, dealClaimSentence, inTen, probabilityFromScore } from '../../services/valuation/deal-claim.js';
import { dealLevel, scoreFromZ } from '../../services/valuation/deal-score.js';
import { normalQuantile } from '../../services/valuation/market-distribution.js';

describe('the deal claim in words', () => {
  it('reads the probability back from the stored score', () => {
    for (const p of [0.02, 0.05, 0.3, 0.5, 0.8, 0.95, 0.97, 0.99, 0.999]) {
      expect(probabilityFromScore(scoreFromZ(normalQuantile(p)))).toBeCloseTo(p, 2);
    }
    // the words match the level: a good deal says 19 in 20, an excellent one 99 in 100
    expect(dealLevel(scoreFromZ(normalQuantile(0.96)))).toBe('good');
    expect(inTen(probabilityFromScore(scoreFromZ(normalQuantile(0.96))))).toBe('19 in 20');
    expect(inTen(probabilityFromScore(scoreFromZ(normalQuantile(0.995))))).toBe('99 in 100');
    expect(inTen(0.72)).toBe('7 in 10');
  });

  it('says how far under and how sure, with what the buyer pays', () => {
    const score = scoreFromZ(normalQuantile(0.995));
    expect(dealClaimSentence({ priceUsd: 3_350, fairValue: 8_400, dealScore: score })).toBe('$3,350 — about 60% under similar sales; 99 in 100 sold for more');
    // the buyer's premium is in what the buyer pays
    expect(dealClaimSentence({ priceUsd: 10_000, buyersPremiumPct: 10, fairValue: 20_000, dealScore: scoreFromZ(normalQuantile(0.91)) })).toBe(
      '$11,000 — about 45% under similar sales; 9 in 10 sold for more',
    );
    expect(dealClaim({ priceUsd: 30_000, fairValue: 20_000, dealScore: scoreFromZ(normalQuantile(0.03)) })).toBe('about 50% over similar sales; 19 in 20 sold for less');
    expect(dealClaim({ priceUsd: 20_200, fairValue: 20_000, dealScore: 495 })).toMatch(/^about what similar machines sell for; \d in 10 sold for less$/);
    expect(dealClaim({ priceUsd: null, fairValue: 20_000, dealScore: 500 })).toBeNull();
    expect(dealClaim({ priceUsd: 1_000, fairValue: 20_000, dealScore: null })).toBeNull();
  });
});

/** Deal score rules (spec §4): the API's 0–1000 score shown on a 0–100 scale with a level. */

export type DealLevel = 'excellent' | 'good' | 'fair' | 'poor';

export const DEAL_LEVEL_LABELS: Record<DealLevel, string> = {
  excellent: 'Excellent Deal',
  good: 'Good Deal',
  fair: 'Fair Deal',
  poor: 'Poor Deal',
};

/** Used when the listing has no score (it could not be valued). */
export const DEFAULT_DISPLAY_SCORE = 50;

/** deal_score / 10 rounded up, clamped to 0–100; 50 when the score is not a number. */
export function displayScore(dealScore: unknown): number {
  if (typeof dealScore !== 'number' || !Number.isFinite(dealScore)) return DEFAULT_DISPLAY_SCORE;
  return Math.min(100, Math.max(0, Math.ceil(dealScore / 10)));
}

export function dealLevel(score: number): DealLevel {
  if (score >= 80) return 'excellent';
  if (score >= 60) return 'good';
  if (score >= 40) return 'fair';
  return 'poor';
}

export type DealScoreBadge = { score: number; level: DealLevel; label: string; text: string };

/** Everything a score badge shows, from the API's raw deal_score. */
export function dealScoreBadge(dealScore: unknown): DealScoreBadge {
  const score = displayScore(dealScore);
  const level = dealLevel(score);
  const label = DEAL_LEVEL_LABELS[level];
  return { score, level, label, text: `${score} • ${label}` };
}

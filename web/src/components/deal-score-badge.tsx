import { Badge, type BadgeTone } from './ui/badge.js';
import { dealScoreBadge, type DealLevel } from '../lib/deal-score.js';

const LEVEL_TONES: Record<DealLevel, BadgeTone> = { excellent: 'success', good: 'info', fair: 'warning', poor: 'muted' };

export function DealScoreBadge({ dealScore, className }: { dealScore: unknown; className?: string }) {
  const badge = dealScoreBadge(dealScore);
  return (
    <Badge tone={LEVEL_TONES[badge.level]} className={className} aria-label={`Deal score ${badge.score} out of 100: ${badge.label}`} data-level={badge.level}>
      {badge.text}
    </Badge>
  );
}

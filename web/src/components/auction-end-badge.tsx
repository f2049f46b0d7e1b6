import { Clock } from 'lucide-react';
import { Badge } from './ui/badge.js';
import { timeLeft } from '../lib/time-left.js';

/** 'Auction Ended', 'No end date' or '{time} left', in warning style with under a day left. */
export function AuctionEndBadge({ endDate, now }: { endDate: string | null; now?: Date }) {
  const left = timeLeft(endDate, now);
  const text = left.state === 'none' ? 'No end date' : left.state === 'ended' ? 'Auction Ended' : `${left.text} left`;
  const tone = left.state === 'open' ? (left.warning ? 'warning' : 'info') : left.state === 'ended' ? 'danger' : 'neutral';
  return (
    <Badge tone={tone} data-warning={left.warning || undefined}>
      <Clock className="h-3 w-3" aria-hidden />
      {text}
    </Badge>
  );
}

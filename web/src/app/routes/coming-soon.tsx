import { Link } from 'react-router-dom';
import { Button } from '../../components/ui/button.js';
import { Card } from '../../components/ui/card.js';

/** Alerts and Account arrive with the next part of the web app; until then the page says so. */
export function ComingSoon({ title, subtitle }: { title: string; subtitle: string }) {
  return (
    <div className="space-y-6">
      <title>{`${title} — Deal Radar`}</title>
      <div>
        <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{title}</h1>
        <p className="mt-1 text-slate-700">{subtitle}</p>
      </div>
      <Card className="p-8 text-center">
        <p className="text-slate-800">This page is not available yet.</p>
        <Button asChild variant="secondary" className="mt-4">
          <Link to="/dashboard">Back to Dashboard</Link>
        </Button>
      </Card>
    </div>
  );
}

import { ComingSoon } from './coming-soon.js';

export default function AlertsRoute() {
  return <ComingSoon title="Price Alerts" subtitle="Get notified when equipment matching your criteria becomes available" />;
}

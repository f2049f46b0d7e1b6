import { AlertsPage } from '../../features/alerts/components/alerts-page.js';

export default function AlertsRoute() {
  return <AlertsPage />;
}

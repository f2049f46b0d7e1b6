import { ValuePage } from '../../features/valuation/components/value-page.js';

export default function ValueRoute() {
  return <ValuePage />;
}

import { ComingSoon } from './coming-soon.js';

export default function AccountRoute() {
  return <ComingSoon title="Account Settings" subtitle="Manage your profile and subscription" />;
}

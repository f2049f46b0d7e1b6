import { AccountPage } from '../../features/account/components/account-page.js';

export default function AccountRoute() {
  return <AccountPage />;
}

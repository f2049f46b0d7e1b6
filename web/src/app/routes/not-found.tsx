import { NotFoundPage } from '../../features/not-found/components/not-found-page.js';

export default function NotFoundRoute() {
  return <NotFoundPage />;
}

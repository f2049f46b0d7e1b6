import { AuctionList } from '../../features/auctions/components/auction-list.js';

export default function DashboardRoute() {
  return (
    <>
      <title>Equipment Deals — Deal Radar</title>
      <AuctionList />
    </>
  );
}

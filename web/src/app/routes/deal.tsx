import { useParams } from 'react-router-dom';
import { DealDetail } from '../../features/auctions/components/deal-detail.js';

export default function DealRoute() {
  const { id = '' } = useParams();
  return (
    <DealDetail key={id} id={id} />
  );
}

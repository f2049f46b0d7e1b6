import { LandingPage } from '../../features/landing/components/landing-page.js';

export default function LandingRoute() {
  return (
    <>
      <title>Deal Radar — find underpriced heavy equipment</title>
      <LandingPage />
    </>
  );
}

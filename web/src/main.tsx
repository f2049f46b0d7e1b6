import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

// The app shell arrives with the web app issue; until then the API serves this page.
function App() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: '2rem' }}>
      <h1>Deal Radar</h1>
      <p>
        The API is running. Its description is at <a href="/api/docs/">/api/docs/</a>.
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// The top of the tree: error boundary + a store per "generation" (Reset makes a new one).
import { useState } from 'react';
import { App } from './App';
import { ErrorBoundary } from './panels/ErrorBoundary';
import { StoreProvider } from './store/context';

/** Root component: never a blank page, Reset starts over with the default scenario. */
export function Root() {
  const [generation, setGeneration] = useState(0);
  const reset = (): void => {
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    setGeneration((g) => g + 1);
  };
  return (
    <ErrorBoundary onReset={reset}>
      <StoreProvider key={generation}>
        <App />
      </StoreProvider>
    </ErrorBoundary>
  );
}

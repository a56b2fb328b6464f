// Entry point: applies the stored theme (before the first render, so the page never flashes
// another one) and mounts the app.
// First: zod must be told before any schema is built that it may not eval (the CSP).
import './base/zodConfig';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/tokens.css';
import './styles/themes/light.css';
import './styles/themes/dark.css';
import './styles/themes/high-contrast.css';
import './styles/global.css';
import { Root } from './Root';
import { initTheme } from './theme/themeStore';

initTheme();
const container = document.getElementById('root');
if (container) {
  createRoot(container).render(
    <StrictMode>
      <Root />
    </StrictMode>,
  );
}

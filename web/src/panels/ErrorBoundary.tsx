// Catches render errors so the page is never blank; offers Reset.
import { Component, type ErrorInfo, type ReactNode } from 'react';
import styles from './ErrorBoundary.module.css';

interface Props {
  onReset: () => void;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

/** Error boundary showing the message and a Reset button. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('mmviz crashed:', error, info.componentStack);
  }

  private readonly reset = (): void => {
    this.setState({ error: null });
    this.props.onReset();
  };

  override render(): ReactNode {
    if (!this.state.error) return this.props.children;
    return (
      <main className={styles.fallback}>
        <div role="alert" className={styles.box}>
          <h1>Something went wrong</h1>
          <p className={styles.message}>{this.state.error.message}</p>
          <p>Reset opens the default scenario again. If this keeps happening, copy the address of this page into a bug report.</p>
          <button type="button" className={styles.button} onClick={this.reset}>
            Reset
          </button>
        </div>
      </main>
    );
  }
}

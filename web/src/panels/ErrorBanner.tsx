// Banner listing errors and warnings (role="alert") and notices about what the
// user did (role="status": announced politely), each dismissible.
import { useAppStore } from '../store/context';
import styles from './ErrorBanner.module.css';

const LABELS = { error: 'Error:', warning: 'Warning:', info: 'Note:' } as const;

/** Shows every pending message; the app stays usable underneath. */
export function ErrorBanner() {
  const messages = useAppStore((s) => s.messages);
  const dismiss = useAppStore((s) => s.dismiss);
  if (messages.length === 0) return null;
  return (
    <div className={styles.banner}>
      {messages.map((m) => (
        <div key={m.id} role={m.severity === 'info' ? 'status' : 'alert'} className={styles[m.severity]}>
          <strong className={styles.icon}>{LABELS[m.severity]}</strong>
          <span className={styles.text}>{m.message}</span>
          {m.action && (
            <button
              type="button"
              className={styles.dismiss}
              onClick={() => {
                dismiss(m.id);
                m.action?.run();
              }}
            >
              {m.action.label}
            </button>
          )}
          <button type="button" className={styles.dismiss} onClick={() => dismiss(m.id)} aria-label={`Dismiss: ${m.message}`}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}

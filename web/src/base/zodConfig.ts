// Zod compiles a fast path for object schemas with `new Function` unless told not to; the lab's
// Content-Security-Policy forbids eval (script-src has no 'unsafe-eval'), and merely probing for it
// reports a violation. Imported first by main.tsx: object schemas decide at construction.
import { config } from 'zod';

config({ jitless: true });

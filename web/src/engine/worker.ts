// The engine worker: owns one wasm module instance and the simulations built in
// it, and answers the protocol of protocol.ts. Started by workerEngine.ts with
// `new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })`.
// The only module that loads raw.ts, so wasm never runs on the UI thread
// (enforced by ESLint; other modules may import its types).
import { loadRawWasm } from './raw';
import { createWorkerHost } from './workerHost';

// The DOM lib has no worker-scope types; this is all of the scope the worker uses.
const scope = self as unknown as { postMessage(message: unknown, transfer?: Transferable[]): void; onmessage: ((e: MessageEvent<unknown>) => void) | null };
// A frame's bulk arrays are transferred (their buffers listed), not structured-cloned.
const answer = createWorkerHost(loadRawWasm, (message, transfer) => scope.postMessage(message, transfer ?? []));
scope.onmessage = (e: MessageEvent<unknown>) => {
  void answer(e.data);
};

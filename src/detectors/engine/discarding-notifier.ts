// The notifier wired by default until notification channels and delivery land behind the seam (notify-model.ts):
// it takes the engine's notices and delivers nothing. The engine still records, in the same transaction, that each
// notice was handed over (the alert's last_sent_at and sent_count), so the lifecycle behaves exactly as it will
// with real delivery.
import type { Notifier } from '../notify-model.js';

export const DISCARDING_NOTIFIER: Notifier = Object.freeze({
  enqueue: (): Promise<void> => Promise.resolve(),
});

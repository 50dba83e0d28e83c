// Child process of test/notify-delivery.e2e.test.ts: opens the control store in <dataDir> and runs the delivery
// worker with the real HTTP sender until the parent SIGKILLs it (between a post and its mark).
// Usage: node notify-crash-child.js <dataDir> <request timeout ms>
import { openControlStore } from '../../src/stores/control/open-control-store.js';
import { DeliveryWorker } from '../../src/detectors/notify/delivery-worker.js';
import { NotificationMetrics } from '../../src/detectors/notify/metrics.js';
import { httpSender } from '../../src/detectors/notify/sender.js';

const [dataDir, timeoutArg] = process.argv.slice(2);
if (dataDir === undefined || timeoutArg === undefined) throw new Error('usage: notify-crash-child <dataDir> <timeout ms>');
const timeoutMs = Number(timeoutArg);
const store = await openControlStore({ dataDir });
const worker = new DeliveryWorker({
  store, clock: { now: () => Date.now() }, send: httpSender(timeoutMs), metrics: new NotificationMetrics(),
  log: (line) => process.stderr.write(`${line}\n`), requestTimeoutMs: timeoutMs, pollMs: 100,
});
worker.start();
process.stdout.write('ready\n');

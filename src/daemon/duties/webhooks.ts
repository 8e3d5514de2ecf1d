/** The webhook deliveries as one of the daemon's duties (webhooks/loop.ts does the work). */
import type { Logger } from 'pino';
import type { App } from '../../app.js';
import type { Duty } from '../../fleet/duty.js';
import { startDeliveryLoop, type DeliveryLoop } from '../../webhooks/loop.js';

export function webhooksDuty(app: App, log: Logger): Duty {
  let loop: DeliveryLoop | undefined;
  return {
    name: 'webhooks',
    async start() {
      loop = await startDeliveryLoop(app, log);
    },
    async stop() {
      await loop?.stop();
    },
  };
}
